"""Planted cases of the AFS and credit licensees."""

from __future__ import annotations

from bvs_sample.cases.builder import Builder, Ent, match


def plant_financial_services(b: Builder) -> None:
    def afs(ent: Ent, ident: str, name: str = "") -> dict[str, str]:
        number = f"2P{ent.j:05d}"
        b.row("afs", REGISTER_NAME="AFS Licensee", AFS_LIC_NUM=number, AFS_LIC_NAME=name or ent.name,
              AFS_LIC_ABN_ACN=ident, AFS_LIC_START_DT=b.months(50), AFS_LIC_PRE_FSR="N",
              AFS_LIC_ADD_LOCAL="SYDNEY", AFS_LIC_ADD_STATE="NSW", AFS_LIC_ADD_PCODE="2000",
              AFS_LIC_ADD_COUNTRY="AUSTRALIA", AFS_LIC_LAT="-33.8688", AFS_LIC_LNG="151.2093",
              AFS_LIC_CONDITION="1. This licence authorises the licensee\n2. to deal in a financial product")  # fmt: skip
        return {"licence_number": number}

    def credit(ent: Ent, status: str) -> dict[str, str]:
        number = f"3P{ent.j:05d}"
        b.row("credit", REGISTER_NAME="Credit Licensee", CRED_LIC_NUM=number, CRED_LIC_NAME=ent.name,
              CRED_LIC_START_DT=b.months(50),
              CRED_LIC_END_DT=b.months(2) if status == "Cancelled" else None,
              CRED_LIC_STATUS=status, CRED_LIC_ABN_ACN=ent.abn,
              CRED_LIC_STATUS_HISTORY=f"{status} (planted)", CRED_LIC_LOCALITY="SYDNEY",
              CRED_LIC_STATE="NSW", CRED_LIC_PCODE="2000", CRED_LIC_EDRS="AFCA",
              CRED_LIC_AUTHORISATIONS="Credit provider")  # fmt: skip
        return {"licence_number": number}

    s = "Current active licence => PASS"
    ent = b.company()
    b.case("financial_services_licence/afs-by-abn", ent, s, "financial_services_licence", "PASS",
           matches=[match("match_afs_licensees", afs(ent, ent.abn), "abn")])  # fmt: skip
    ent = b.company()
    b.case("financial_services_licence/afs-by-acn", ent, s, "financial_services_licence", "PASS",
           matches=[match("match_afs_licensees", afs(ent, ent.acn), "acn")])  # fmt: skip
    ent = b.company()
    name = ent.name.replace("PTY LTD", "PTY. LTD.")
    b.case("financial_services_licence/afs-by-name", ent, s + " (name at least 0.8)",
           "financial_services_licence", "PASS",
           matches=[match("match_afs_licensees", afs(ent, "", name), "name", name=name)])  # fmt: skip
    ent = b.company()
    b.case("financial_services_licence/credit-current", ent, s, "financial_services_licence",
           "PASS", matches=[match("match_credit_licensees", credit(ent, "Current"), "abn")])  # fmt: skip
    for status in ("Suspended", "Cancelled"):
        ent = b.company()
        b.case(f"financial_services_licence/credit-{status.lower()}", ent,
               "Suspended or cancelled licence => FAIL", "financial_services_licence", "FAIL",
               matches=[match("match_credit_licensees", credit(ent, status), "abn")])  # fmt: skip
    b.case("financial_services_licence/not-found", b.company(), "Not found => N/A",
           "financial_services_licence", "N/A")  # fmt: skip
