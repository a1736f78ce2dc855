"""ASIC's financial advisers register (76 columns), background and planted rows alike."""

from __future__ import annotations

from bvs_sample import formats as F
from bvs_sample.entities import Entity
from bvs_sample.families.background import BackgroundDraws


class Advisers(BackgroundDraws):
    """Financial advisers: the entity's individual or someone, with one of the chunk's AFS licensees."""

    def adviser(self, e: Entity) -> None:
        rnd = self.rnd
        if not self.recent_afs:
            return
        if e.person is not None and e.active and rnd() < 0.5:
            person, abn = e.person, e.abn
        else:
            person, abn = self.someone(0.2)[0], ""
        number = f"{e.r:09d}"
        for k in range(1 if rnd() < 0.8 else 2):
            lic_num, lic_name, lic_abn = self.recent_afs[int(rnd() * len(self.recent_afs))]
            start = self.between(self.end - 20 * 365, self.end - 1)
            current = k == 0 and rnd() < 0.78
            end = None if current else self.between(start, self.end - 1)
            self.put("advisers", adviser_row(self.d, number, person.given_first(), abn,
                                             lic_name, lic_num, lic_abn, start, end,
                                             "Registered" if current else "Not Registered"))  # fmt: skip


def adviser_row(
    d: object, number: str, name: str, abn: str, lic_name: str, lic_num: str, lic_abn: str,
    start: int, end: int | None, overall: str, *, banned_from: int | None = None,
) -> list[str]:  # fmt: skip
    """One row of the 76-column advisers file (``d(key, day)`` formats a date)."""
    fmt = d  # type: ignore[assignment]
    role_status = "Current" if end is None else "Ceased"
    da = [fmt("advisers", banned_from), "", "Banned", "Permanently banned from providing financial services"] if banned_from is not None else ["", "", "", ""]  # type: ignore[operator]  # fmt: skip
    head = [
        "Financial Advisers", name, number, "Financial adviser", "Relevant provider",
        role_status, abn, "", lic_name, lic_num, lic_abn, "", "", "", "",
        fmt("advisers", start), fmt("advisers", end), *da, overall,  # type: ignore[operator]
        overall, fmt("advisers", start), fmt("advisers", end), "", "", "", "AUSTRALIA",  # type: ignore[operator]
        "Diploma of Financial Planning", "FAAA", "", "", "10", "N", "", "", "", "ASIC", "",
    ]  # fmt: skip
    tail = [
        "Y" if (i * 7 + len(name)) % 3 == 0 else "N" for i in range(len(F.ADVISERS) - len(head) - 4)
    ]
    return head + tail + ["Y", "N", "", ""]
