"""What the registers know of a generated entity or person, and how other registers spell
its name. Shared by the background registers (:mod:`bvs_sample.families`) and the ABR
chunk that hands each record to them."""

from __future__ import annotations

import random
from dataclasses import dataclass

LEGAL_FORMS = ("PTY LTD", "PTY. LTD.", "PROPRIETARY LIMITED", "PTY LIMITED", "P/L")


def legal_form_variant(name: str, rnd_value: float) -> str:
    for form in LEGAL_FORMS:
        if name.endswith(" " + form):
            other = LEGAL_FORMS[int(rnd_value * len(LEGAL_FORMS))]
            return name[: -len(form)] + other
    return name


def variant(name: str, rnd: random.Random) -> str:
    """The entity's name as another register spells it (mostly the same)."""
    u = rnd.random()
    if u < 0.55:
        return name
    if u < 0.72:
        return legal_form_variant(name, rnd.random())
    if u < 0.84:
        return name.title()
    if u < 0.92:
        return name.replace("THE TRUSTEE FOR ", "").replace(" & ", " AND ")
    return name.replace(" ", "  ", 1)


@dataclass
class Person:
    given: str
    middle: str
    family: str
    birth: int | None  # day number

    def surname_first(self) -> str:
        given = f"{self.given} {self.middle}" if self.middle else self.given
        return f"{self.family}, {given}"

    def given_first(self) -> str:
        parts = [self.given, self.middle, self.family] if self.middle else [self.given, self.family]
        return " ".join(p.title() for p in parts)


@dataclass
class Entity:
    """What the registers need to know of one ABR record (or ASIC-only company)."""

    r: int
    abn: str
    acn: str
    name: str  # main name, or the individual's "GIVEN FAMILY"
    style: str
    active: bool
    state: str
    postcode: str
    since: int  # ABN start day
    co_status: str = ""
    reg_day: int = 0
    dereg_day: int | None = None
    person: Person | None = None
