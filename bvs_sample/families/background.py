"""The background registers' shared state and draws: their own RNG per chunk (adding a register
never changes the core files), one part file per target, dates in each file's format, and
people drawn like the officeholders (common names collide, as in the real registers)."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from bvs_sample import formats as F
from bvs_sample import words as W
from bvs_sample.draws import Draws, iso_dmy_strings
from bvs_sample.entities import Entity, Person
from bvs_sample.sinks import PartFile


class BackgroundDraws(Draws):
    """The other registers' rows for one chunk, written to one part file per target."""

    p: dict[str, float]  # probability per eligible record, per register (registers.rate)

    def __init__(
        self, seed: int, index: int, scale: int, extract_date: dt.date, part_dir: Path
    ) -> None:
        super().__init__(random.Random(f"bvs-sample-registers:{seed}:{index}"))
        self.index = index
        self.scale = scale
        self.part_dir = part_dir
        self.targets = F.targets(extract_date)
        self.end = extract_date.toordinal()
        self.base = dt.date(1930, 1, 1).toordinal()
        self.iso, self.dmy_ = iso_dmy_strings(self.base, self.end + 4000)
        self.extracted = extract_date.isoformat()
        self.parts: dict[str, PartFile] = {}
        self.samples: dict[str, list[str]] = {}  # first row of each target (for planted faults)
        self.recent_directors: list[tuple[Person, str]] = []  # (person, company name)
        self.recent_companies: list[Entity] = []
        # (number, name, abn) of AFS licensees advisers work for: the chunk's own licensees,
        # and one dealer group per chunk licensed elsewhere (its number outside every range)
        self.recent_afs: list[tuple[str, str, str]] = [
            (f"{100000 + index}", f"{W.PLACES[index * 7]} FINANCIAL PLANNING PTY LTD", "")
        ]

    def put(self, key: str, values: list[str]) -> None:
        part = self.parts.get(key)
        if part is None:
            part = self.parts[key] = PartFile(self.part_path(key))
            self.samples[key] = values
        part.add(self.targets[key].line(values))

    def part_path(self, key: str) -> Path:
        return self.part_dir / f"{key.replace('/', '__')}.{self.index:02d}.part"

    def close(self) -> dict[str, int]:
        for part in self.parts.values():
            part.close()
        return {key: part.rows for key, part in self.parts.items()}

    def d(self, key: str, day: int | None) -> str:
        if day is None:
            return ""
        if self.targets[key].date_format == "iso":
            return self.iso[day - self.base]
        return self.dmy_[day - self.base]

    def between(self, lo: int, hi: int) -> int:
        if hi <= lo:
            return lo
        return lo + int(self.rnd() * (hi - lo + 1))

    def person(self) -> Person:
        given_list = W.FEMALE_GIVEN if self.rnd() < 0.5 else W.MALE_GIVEN
        given = self.pick(given_list)
        middle = self.pick(given_list) if self.rnd() < 0.45 else ""
        birth = (
            self.between(self.end - 85 * 365, self.end - 20 * 365) if self.rnd() < 0.95 else None
        )
        return Person(given, middle, self.surname(), birth)

    def someone(self, director_share: float) -> tuple[Person, str]:
        """A person: sometimes a director drawn earlier in this chunk (with their company)."""
        if self.recent_directors and self.rnd() < director_share:
            return self.recent_directors[int(self.rnd() * len(self.recent_directors))]
        return self.person(), ""

    def address(self) -> tuple[str, str, str]:
        place = self.pick(W.PLACES)
        state = self.pick(("NSW", "VIC", "QLD", "WA", "SA", "TAS", "ACT", "NT"))
        return place, state, f"{int(self.rnd() * 7000) + 2000:04d}"
