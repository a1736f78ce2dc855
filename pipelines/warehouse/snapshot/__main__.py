"""``python -m pipelines.warehouse.snapshot verify PATH EXPECTED``: the verify subprocess."""

from .verify import main

raise SystemExit(main())
