"""``python -m pipelines.cli``: the ``bvs`` command without its console script."""

import sys

from pipelines.cli import main

sys.exit(main())
