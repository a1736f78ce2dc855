"""Adverse records: enforcement actions of the ACCC, the state regulators, the FWO and the
NDIS Commission."""

from __future__ import annotations

from bisect import bisect

from bvs_sample.draws import cumulative
from bvs_sample.entities import Entity, variant
from bvs_sample.families.background import BackgroundDraws

# Adverse records per regulator at 20M (shares of the "adverse" size, registers.SIZES).
ADVERSE_WEIGHTS = (
    ("ACCC", 3_000), ("QBCC", 12_000), ("NSW_FAIR_TRADING", 15_000), ("VBA_BPC", 4_000),
    ("QLD_OFT", 5_000), ("FWO", 9_000), ("NDIS_COMMISSION", 3_200),
)  # fmt: skip
ACTION_TYPES = {
    "ACCC": ("INFRINGEMENT_NOTICE", "COURT_ORDER", "UNDERTAKING", "PUBLIC_WARNING"),
    "FWO": ("COMPLIANCE_NOTICE", "ENFORCEABLE_UNDERTAKING", "INFRINGEMENT_NOTICE", "LITIGATION"),
    "NDIS_COMMISSION": ("BANNING_ORDER", "REVOCATION", "SUSPENSION", "COMPLIANCE_NOTICE"),
}
FREE_ACTIONS = (
    "Disciplinary action", "Licence cancelled", "Show cause notice", "Direction to rectify",
    "Prosecution", "Public warning", "Court enforceable undertaking", "Penalty notice",
)  # fmt: skip
SEVERITIES = ("CRITICAL", "HIGH", "MEDIUM", "LOW")
_SEVERITY_CUM = (0.08, 0.30, 0.70, 1.0)
_ADVERSE_CUM = cumulative([w for _, w in ADVERSE_WEIGHTS])


class Enforcement(BackgroundDraws):
    """Adverse records: one regulator's action against the entity."""

    def adverse(self, e: Entity) -> None:
        rnd = self.rnd
        regulator = ADVERSE_WEIGHTS[bisect(_ADVERSE_CUM, rnd())][0]
        key = f"adverse/{regulator}"
        action = self.pick(ACTION_TYPES.get(regulator, FREE_ACTIONS))
        severity = SEVERITIES[bisect(_SEVERITY_CUM, rnd())]
        u = rnd()
        status = "ACTIVE" if u < 0.35 else "RESOLVED" if u < 0.85 else "EXPIRED"
        day = self.between(self.end - 6 * 365, self.end - 1)
        resolved = self.between(day, self.end) if status == "RESOLVED" else None
        record_id = f"{regulator[:4]}-{e.r:09d}"
        self.put(key, [regulator, record_id, e.abn if rnd() < 0.88 else "", variant(e.name, self.rng),
                       action, severity, status, self.d(key, day), self.d(key, resolved),
                       f"{action.replace('_', ' ').capitalize()} issued",
                       f"https://example.gov.au/{regulator.lower()}/{record_id}"])  # fmt: skip
