"""Shared draws: the random helpers every part of the generator uses, and date-string tables.

Each part that draws rows holds one ``random.Random`` seeded with (seed, chunk), and a
family module draws from its part's RNG in a fixed order: the bytes depend only on the seed,
the scale and the extract date, never on how the code is split into modules.
"""

from __future__ import annotations

import datetime as dt
import random
from functools import lru_cache

from bvs_sample import words as W


def cumulative(weights: list[float]) -> list[float]:
    """Cumulative shares of the weights, the last exactly 1.0 (for ``bisect(cum, rnd())``)."""
    total = sum(weights)
    out: list[float] = []
    acc = 0.0
    for w in weights:
        acc += w / total
        out.append(acc)
    out[-1] = 1.0
    return out


@lru_cache(maxsize=4)
def ymd_dmy_strings(first: int, last: int) -> tuple[list[str], list[str]]:
    """YYYYMMDD and DD/MM/YYYY strings for the day numbers first..last."""
    ymd: list[str] = []
    dmy: list[str] = []
    for n in range(first, last + 1):
        d = dt.date.fromordinal(n)
        y, m, day = f"{d.year:04d}", f"{d.month:02d}", f"{d.day:02d}"
        ymd.append(f"{y}{m}{day}")
        dmy.append(f"{day}/{m}/{y}")
    return ymd, dmy


@lru_cache(maxsize=4)
def iso_dmy_strings(first: int, last: int) -> tuple[list[str], list[str]]:
    """ISO and DD/MM/YYYY strings for day numbers first..last."""
    iso: list[str] = []
    dmy: list[str] = []
    for n in range(first, last + 1):
        d = dt.date.fromordinal(n)
        iso.append(d.isoformat())
        dmy.append(f"{d.day:02d}/{d.month:02d}/{d.year:04d}")
    return iso, dmy


class Draws:
    """One RNG and the draws every part makes from it."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rnd = rng.random

    def pick(self, seq: tuple[str, ...] | list[str]) -> str:
        return seq[int(self.rnd() * len(seq))]

    def surname(self) -> str:
        """A surname: mostly a common one, sometimes one from the long tail."""
        if self.rnd() < W.LONG_TAIL_SURNAME_SHARE:
            return W.syllable_word(self.rnd, 1 + (self.rnd() < 0.7), self.pick(W.SURNAME_ENDINGS))
        return self.pick(W.SURNAMES)
