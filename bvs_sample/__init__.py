"""Sample landing data for the three core registers (ABR extract, ASIC companies, business names).

``write_sample(out_dir, scale=..., seed=...)`` writes the real file formats into a landing
folder, reproducibly, with a few deliberately malformed rows listed in
``_sample/planted.json``.
"""

from bvs_sample.nextweek import NextWeekSummary, write_next_week
from bvs_sample.writer import (
    DEFAULT_AS_OF,
    DEFAULT_EXTRACT_DATE,
    PlantedRow,
    SampleFile,
    SampleSummary,
    extract_date_for,
    write_sample,
)

__all__ = [
    "DEFAULT_AS_OF",
    "DEFAULT_EXTRACT_DATE",
    "NextWeekSummary",
    "PlantedRow",
    "SampleFile",
    "SampleSummary",
    "extract_date_for",
    "write_next_week",
    "write_sample",
]
