"""The chunk's shared state and draws: its RNG, dates, business states and postcodes, ABN
registration days, the counts it reports, and the background registers it feeds."""

from __future__ import annotations

import datetime as dt
import random
from bisect import bisect

from bvs_sample.draws import Draws, cumulative, ymd_dmy_strings
from bvs_sample.entities import Person
from bvs_sample.numbering import Numbering
from bvs_sample.registers import RegisterRows
from bvs_sample.tasks import ChunkTask

CRLF = "\r\n"

# Business address: state shares and postcode ranges.
_STATES = (
    ("NSW", 0.31, ((2000, 2599), (2619, 2899), (2921, 2999))),
    ("VIC", 0.26, ((3000, 3999),)),
    ("QLD", 0.20, ((4000, 4999),)),
    ("WA", 0.10, ((6000, 6797),)),
    ("SA", 0.07, ((5000, 5799),)),
    ("TAS", 0.02, ((7000, 7799),)),
    ("ACT", 0.02, ((2600, 2618), (2900, 2920))),
    ("NT", 0.01, ((800, 899),)),
)
STATE_CODES = tuple(s for s, _, _ in _STATES)
_STATE_CUM = cumulative([w for _, w, _ in _STATES])
_POSTCODES = [
    [f"{p:04d}" for lo, hi in ranges for p in range(lo, hi + 1)] for _, _, ranges in _STATES
]


class ChunkDraws(Draws):
    """Draws the records of one chunk. Random draws come from one RNG seeded per chunk."""

    def __init__(self, task: ChunkTask) -> None:
        super().__init__(random.Random(f"bvs-sample:{task.seed}:{task.index}"))
        self.task = task
        self.numbers = Numbering(task.seed)
        self.scale = task.scale

        # Dates are day numbers (proleptic ordinals); strings come from lookup tables.
        self.base = dt.date(1940, 1, 1).toordinal()
        self.end = task.extract_date.toordinal()
        self._ymd, self._dmy = ymd_dmy_strings(self.base, self.end)
        self.abn_start = dt.date(1999, 11, 1).toordinal()
        self.gst_start = dt.date(2000, 7, 1).toordinal()
        self.acn_start = dt.date(1991, 1, 1).toordinal()
        self.bn_national = dt.date(2012, 5, 28).toordinal()
        self.oldest_company = dt.date(1950, 1, 1).toordinal()
        self.bn_oldest = dt.date(1980, 1, 1).toordinal()

        self.reg = (
            RegisterRows(task.seed, task.index, task.scale, task.extract_date, task.part_dir)
            if task.part_dir is not None
            else None
        )
        self._person: Person | None = None
        self._company: tuple[str, int, int | None] = ("", 0, None)
        self.counts: dict[str, int] = {
            "individuals": 0,
            "companies_in_abr": 0,
            "abn_cancelled": 0,
            "other_names": 0,
            "dgr": 0,
            "dgr_named": 0,
            "gst": 0,
            "company_current_rows": 0,
            "company_former_rows": 0,
            "companies_without_abr": 0,
            "business_names_in_abr": 0,
        }

    def ymd(self, day: int) -> str:
        return self._ymd[day - self.base]

    def dmy(self, day: int) -> str:
        return self._dmy[day - self.base]

    def between(self, lo: int, hi: int) -> int:
        """A day in [lo, hi] (hi clipped to the extract date)."""
        hi = min(hi, self.end)
        if hi <= lo:
            return min(lo, self.end)
        return lo + int(self.rnd() * (hi - lo + 1))

    def abn_registration_day(self) -> int:
        """ABN start: a bump at the 1999-2000 launch, then spread, some in recent months."""
        u = self.rnd()
        if u < 0.15:
            return self.between(self.abn_start, self.gst_start - 1)
        if u < 0.968:
            return self.between(self.abn_start, self.end)
        if u < 0.992:
            return self.between(self.end - 182, self.end)
        return self.between(self.end - 30, self.end)

    def state(self) -> tuple[str, str]:
        """(state, postcode); the state is sometimes empty, the postcode sometimes 0000."""
        u = self.rnd()
        if u < 0.008:
            return "", "0000"
        i = bisect(_STATE_CUM, self.rnd())
        if u < 0.013:
            return STATE_CODES[i], "0000"
        return STATE_CODES[i], self.pick(_POSTCODES[i])
