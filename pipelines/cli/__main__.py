"""``python -m pipelines.cli``: the warm dbt server runs bvs commands so
(``pipelines/dbt_server.py``)."""

import sys

from pipelines.cli import main

sys.exit(main())
