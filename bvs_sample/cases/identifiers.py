"""Planted cases of a record's own identifier (docs/decisions/19-a-records-own-identifier.md): a record that lists an
ABN or ACN naming an entity is that entity's alone, a namesake under another ABN is not
matched; a record whose listed identifier fails its check digits, or is valid but names no
entity, is kept and matched by its register's name rule, with "listed ABN ... not found" in
the evidence. One reading for every register that lists identifiers: conduct, licences,
gazette notices, tax debt, modern slavery."""

from __future__ import annotations

from bvs_sample.cases.builder import Builder, match

CONDUCT = "Active CRITICAL record => FAIL (and ADVERSE_ACTIVE fires)"


def plant_listed_identifiers(b: Builder) -> None:
    t = "match_adverse"
    ent = b.company()
    r = b.adverse(ent, "QBCC", "CRITICAL", "ACTIVE", listed_abn=b.failing_check_digits(ent.abn))
    b.case("identifier/conduct-record-listing-an-abn-failing-its-check-digits", ent,
           f"{CONDUCT}: the listed ABN fails its check digits, the record is matched by name "
           "(above 0.55)", "conduct", "FAIL", flags=("ADVERSE_ACTIVE",),
           matches=[match(t, r, "name", name=ent.name)])  # fmt: skip
    ent = b.company()
    name = ent.name.title()
    r = b.adverse(ent, "ACCC", "CRITICAL", "ACTIVE", listed_abn=b.unknown_abn(), name=name)
    b.case("identifier/conduct-record-listing-an-abn-of-no-entity", ent,
           f"{CONDUCT}: the listed ABN names no entity, the record is matched by name",
           "conduct", "FAIL", flags=("ADVERSE_ACTIVE",),
           matches=[match(t, r, "name", name=name)])  # fmt: skip
    ent = b.company()
    decoy = b.near(ent.name, 0.55)
    r = b.adverse(ent, "QBCC", "CRITICAL", "ACTIVE", listed_abn=b.unknown_abn(), name=decoy)
    b.case("identifier/conduct-record-listing-an-abn-of-no-entity-under-a-decoy-name", ent,
           "No records => PASS: the listed ABN names no entity and the name is not above 0.55",
           "conduct", "PASS", not_flags=("ADVERSE_ACTIVE",),
           non_matches=[match(t, r, name=decoy)])  # fmt: skip

    t = "match_licences"
    ent = b.company()
    b.industry(ent, "3232")
    r = b.licence(ent, "QBCC", "electrical", "ACTIVE", listed_abn=b.unknown_abn())
    b.case("identifier/licence-listing-an-abn-of-no-entity", ent,
           "Active licence of correct class => PASS: the listed ABN names no entity, the licence "
           "is matched by the licensee name (at least 0.8)", "licence", "PASS",
           not_flags=("LICENCE_MISMATCH",), matches=[match(t, r, "name", name=ent.name)])  # fmt: skip

    t = "match_gazette"
    ent = b.company()
    r = b.gazette_notice(ent, ent.name, acn=b.failing_check_digits(ent.acn), k=9)
    b.case("identifier/gazette-notice-listing-an-acn-failing-its-check-digits", ent,
           "Matching notice => FAIL: the listed ACN fails its check digits, the notice is matched "
           "by the SPEC's name rule (above 0.72)", "gazette", "FAIL",
           matches=[match(t, r, "name", name=ent.name)])  # fmt: skip

    t = "match_registers"
    tax, slavery = "match_registers/TAX_DEBT", "match_registers/MODERN_SLAVERY"
    ent, holder = b.company(), b.company()
    r = b.register(holder, "TAX_DEBT", "Disclosed", name=ent.name, k=1)
    b.case("identifier/tax-debt-record-of-another-abn-with-the-same-name", ent,
           "Not on list => PASS: a record under another ABN, with this entity's name", "tax_debt",
           "PASS", non_matches=[match(t, r)])  # fmt: skip
    b.case("identifier/tax-debt-record-under-its-abn-with-another-name", holder,
           "On list => FAIL: the ABN decides, not the name", "tax_debt", "FAIL",
           matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.register(ent, "TAX_DEBT", "Disclosed", listed_abn=b.unknown_abn())
    b.case("identifier/tax-debt-record-listing-an-abn-of-no-entity", ent,
           "On list => FAIL: the listed ABN names no entity, the record is matched by name "
           "(at least 0.75)", "tax_debt", "FAIL",
           matches=[match(t, r, "name", name=ent.name, threshold_key=tax)])  # fmt: skip
    ent, holder = b.company(), b.company()
    r = b.register(holder, "MODERN_SLAVERY", "Published", name=ent.name, k=1)
    b.case("identifier/modern-slavery-statement-of-another-abn-with-the-same-name", ent,
           "Not found => N/A: a statement under another ABN, with this entity's name",
           "modern_slavery", "N/A", non_matches=[match(t, r)])  # fmt: skip
    b.case("identifier/modern-slavery-statement-under-its-abn-with-another-name", holder,
           "Found => PASS: the ABN decides, not the name", "modern_slavery", "PASS",
           matches=[match(t, r, "abn")])  # fmt: skip
    ent = b.company()
    r = b.register(ent, "MODERN_SLAVERY", "Published", listed_abn=b.failing_check_digits(ent.abn))
    b.case("identifier/modern-slavery-statement-listing-an-abn-failing-its-check-digits", ent,
           "Found => PASS: the listed ABN fails its check digits, the statement is matched by "
           "name (at least 0.65)", "modern_slavery", "PASS",
           matches=[match(t, r, "name", name=ent.name, threshold_key=slavery)])  # fmt: skip
