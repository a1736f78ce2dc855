"""The monthly ledger report as a finance person reads it (docs/ledgers.md, "Reports"): the
PDF is read back with pypdfium2 (its text, and where each piece of text is drawn), the CSV
with the csv module, from a run history written on disk as `bvs ledger run` writes it."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest

from pipelines.ledgers.report import report
from pipelines.serving.notices import DECISION_SUPPORT
from pipelines.settings import Settings
from tests.ledgers.report_history import (
    CHECK_IDS,
    FLAG_IDS,
    MONTH,
    seed,
    supplier,
    write_run,
    write_trail,
)

CUSTOMER = "acme"
MM = 72 / 25.4


def high(line: int, **given: Any) -> dict[str, Any]:
    """A supplier whose ABN is cancelled: high risk, an identity failure."""
    fields: dict[str, Any] = {
        "risk_level": "high", "risk_score": 70.0, "assurance_score": 60.0,
        "identity_failures": ["abn_status"], "abn_status_status": "FAIL",
        "abn_status_reason": "ABN cancelled, suspended or not found => FAIL",
    }  # fmt: skip
    return supplier(line, **{**fields, **given})


def pdf(settings: Settings, tmp_path: Path) -> list[str]:
    out = tmp_path / "report.pdf"
    result = report(settings, CUSTOMER, MONTH, "pdf", out)
    pages = pages_of(out)
    assert result["pages"] == len(pages)
    return pages


def pages_of(path: Path) -> list[str]:
    document = pdfium.PdfDocument(str(path))
    return [
        document[i].get_textpage().get_text_range().replace("\r\n", "\n")
        for i in range(len(document))
    ]


def one_line(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------- the act-first list (page 1)


def test_the_act_first_list_names_the_ledger_and_shows_a_supplier_in_two_ledgers_once(
    settings: Settings, tmp_path: Path
) -> None:
    both = {"supplier_ref": "SHARED-1", "entity": "TWICE LISTED PTY LTD"}
    write_run(settings, CUSTOMER, "suppliers", [supplier(2), high(3, **both)])
    write_run(settings, CUSTOMER, "contractors", [high(7, **both), supplier(8)])
    first = one_line(pdf(settings, tmp_path)[0])
    assert first.count("TWICE LISTED PTY LTD") == 1, first
    assert "contractors, line 7" in first and "suppliers, line 3" in first


def test_the_act_first_list_says_how_many_more_need_attention(
    settings: Settings, tmp_path: Path
) -> None:
    write_run(settings, CUSTOMER, "suppliers", [high(n) for n in range(2, 24)])  # 22 high
    first = one_line(pdf(settings, tmp_path)[0])
    assert "and 7 more suppliers that need attention (22 in all)" in first, first


# ------------------------------------------------------------------ codes said in words


def test_flags_rules_and_risk_are_said_in_words_with_the_code_beside_them(
    settings: Settings, tmp_path: Path
) -> None:
    row = high(
        2, flags=["LICENCE_MISMATCH"], gst_status="WARN",
        gst_reason="ABN active, status date unknown => WARN (decided)",
    )  # fmt: skip
    write_run(settings, CUSTOMER, "suppliers", [row])
    text = one_line("\n".join(pdf(settings, tmp_path)))
    trigger = next(f["trigger"] for f in seed("flag_definitions")
                   if f["flag_id"] == "LICENCE_MISMATCH")  # fmt: skip
    assert trigger in text and "LICENCE_MISMATCH" in text
    assert "ABN status fails: ABN cancelled, suspended or not found" in text
    assert "a BVS rule where the specification is open" in text
    assert "Warning" in text and "Fail" in text
    for code in ("=>", "(decided)", "high 70.0", "FAIL", "WARN"):
        assert code not in text, code


def test_every_check_and_flag_has_words_in_the_catalogue() -> None:
    """One source: the seeds the snapshot's marts.checks and marts.flags are built from
    (a run keeps them in its slice). Every check id has a name, every flag a trigger, and
    every flag the risk-flag model can fire is in the catalogue."""
    assert all(r["check_name"] and r["check_name"] != r["check_id"] for r in seed("check_weights"))
    assert all(len(r["trigger"]) > 20 for r in seed("flag_definitions"))
    model = (
        Path(__file__).parents[2] / "dbt_project/models/marts/verification/risk_flags.sql"
    ).read_text()
    fired = set(re.findall(r"'([A-Z]+(?:_[A-Z]+)+)'", model))
    assert fired and fired <= set(FLAG_IDS), fired - set(FLAG_IDS)
    assert len(CHECK_IDS) == 36


def test_every_flag_and_check_the_report_shows_is_in_words(
    settings: Settings, tmp_path: Path
) -> None:
    row = high(2, flags=FLAG_IDS, **{f"{c}_status": "FAIL" for c in CHECK_IDS})
    write_run(settings, CUSTOMER, "suppliers", [row])
    text = one_line("\n".join(pdf(settings, tmp_path)))
    for check in seed("check_weights"):
        assert check["check_name"] in text, check
    for flag in seed("flag_definitions"):
        assert flag["trigger"] in text, flag


# --------------------------------------------------------------- nothing runs past a cell


def text_runs(path: Path) -> list[list[tuple[float, float, float, float, str]]]:
    """Per page, each run of text pdfium finds (left, bottom, right, top, text)."""
    document = pdfium.PdfDocument(str(path))
    pages = []
    for i in range(len(document)):
        textpage = document[i].get_textpage()
        runs = []
        for r in range(textpage.count_rects()):
            box = textpage.get_rect(r)
            runs.append((*box, textpage.get_text_bounded(*box)))
        pages.append(runs)
    return pages


def overlapping(runs: list[tuple[float, float, float, float, str]]) -> list[tuple[str, str]]:
    found = []
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            width = min(a[2], b[2]) - max(a[0], b[0])
            height = min(a[3], b[3]) - max(a[1], b[1])
            if width > 1 and height > 1:
                found.append((a[4], b[4]))
    return found


def test_long_names_and_words_stay_inside_their_cells(settings: Settings, tmp_path: Path) -> None:
    """A 2,000-character name (with spaces, and without), a long ledger name and a
    resolution in words: no piece of text is drawn over another, nothing leaves the page's
    frame, no flag code is broken across lines, and no heading holds the whole name."""
    long_name = ("Very Long Trading Name Holdings " * 70)[:2000]
    rows = [
        high(2, entity=long_name, flags=["LICENCE_MISMATCH", "COMPLIANCE_DUAL_FAILURE"]),
        supplier(
            3,
            abn=None,
            supplier_name="X" * 2000,
            resolution="needs_review",
            review_reason="no usable ABN",
        ),  # fmt: skip
        supplier(4, resolution="resolved_by_name", flags=["LICENCE_SUSPENDED_ACTIVE"]),
    ]
    ledger = "accounts-payable-vendors-2026-consolidated"
    write_run(settings, CUSTOMER, ledger, rows)
    out = tmp_path / "report.pdf"
    report(settings, CUSTOMER, MONTH, "pdf", out)
    for number, runs in enumerate(text_runs(out), start=1):
        assert overlapping(runs) == [], number
        for left, _, right, _, text in runs:
            assert left >= 15 * MM - 1 and right <= (210 - 15) * MM + 1, (number, text)
    text = "\n".join(pages_of(out))
    assert long_name not in one_line(text) and "X" * 200 not in text.replace("\n", "")
    for code in ("LICENCE_MISMATCH", "COMPLIANCE_DUAL_FAILURE", "LICENCE_SUSPENDED_ACTIVE"):
        assert text.count(code[:-2]) == text.count(code), code  # never cut across lines
    assert long_name[:60] in one_line(text)


def test_every_cell_word_fits_its_column(settings: Settings) -> None:
    """Each section on its own: every word of every table cell is narrower than its column
    (reportlab's stringWidth in the cell's font), so a cell never has to break a word."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.platypus import KeepTogether, Paragraph, Table

    from pipelines.ledgers.report import appendix, attention, month, review, summary
    from pipelines.ledgers.report.layout import CELL_FONT, CELL_SIZE, PAD, Layout

    rows = [
        high(2, entity="N" * 300, flags=FLAG_IDS),
        supplier(3, abn=None, supplier_name="Y" * 2000, resolution="needs_review",
                 review_reason="no usable ABN",
                 candidates=[{"abn": "51567459303", "name": "Z" * 500, "score": 0.95}]),
    ]  # fmt: skip
    write_run(settings, CUSTOMER, "vendors-with-a-rather-long-ledger-name", rows)
    months = month.collect(settings, CUSTOMER, MONTH)
    layout = Layout(CUSTOMER, MONTH)
    urgent = month.attention(months)
    flowables = [
        *summary.section(layout, months, urgent), *attention.section(layout, urgent),
        *review.section(layout, urgent), *appendix.section(layout, months),
    ]  # fmt: skip

    def tables(items: list[Any]) -> list[Table]:
        found = []
        for item in items:
            if isinstance(item, Table):
                found.append(item)
            elif isinstance(item, KeepTogether):
                found += tables(item._content)
        return found

    checked = 0
    for table in tables(flowables):
        for row in table._cellvalues:
            for value, width in zip(row, table._colWidths, strict=True):
                if isinstance(value, str):  # drawn as it is, never wrapped: all of it fits
                    used = stringWidth(value, CELL_FONT, CELL_SIZE)
                    assert used <= width - 2 * PAD + 0.01, (value, used, width)
                    continue
                assert isinstance(value, Paragraph), value
                for frag in value.frags:
                    for word in frag.text.split():
                        used = stringWidth(word, frag.fontName, frag.fontSize)
                        assert used <= width - 2 * PAD + 0.01, (word, used, width)
                        checked += 1
    assert checked > 100


# ------------------------------------------------------------- review, overrides, notice


def test_a_supplier_needing_review_shows_the_candidates_import_found(
    settings: Settings, tmp_path: Path
) -> None:
    candidates = [
        {"abn": "51567459303", "name": "SIVOUS TRADING PTY LTD", "legal_name":
         "SIVOUS TRADING PTY LTD", "abn_status": "ACT", "state": "SA", "score": 0.93},
        {"abn": "29980558518", "name": "SIVOUS TRADERS", "legal_name": "SIVOUS HOLDINGS PTY LTD",
         "abn_status": "ACT", "state": "QLD", "score": 0.91},
    ]  # fmt: skip
    row = supplier(2, abn=None, abn_given="5156745930", supplier_name="Sivous Trading",
                   resolution="needs_review", candidates=candidates,
                   review_reason="no usable ABN, and 2 registered businesses have a name at"
                   " least 90% similar to 'Sivous Trading': choose one")  # fmt: skip
    write_run(settings, CUSTOMER, "suppliers", [row, supplier(3)])
    text = one_line("\n".join(pdf(settings, tmp_path)))
    assert "51 567 459 303" in text and "SIVOUS TRADING PTY LTD" in text
    assert "29 980 558 518" in text and "SIVOUS HOLDINGS PTY LTD" in text
    assert "name 93% alike" in text


def test_a_user_supplied_value_shows_the_value_who_when_and_why(
    settings: Settings, tmp_path: Path
) -> None:
    row = high(2, supplier_ref="HH-017", user_supplied=["address"], state="QLD",
               postcode="4217", address_status="PASS")  # fmt: skip
    write_run(settings, CUSTOMER, "suppliers", [row])
    write_trail(settings, CUSTOMER, [
        {"action": "override", "at": "2026-11-19T09:30:00+00:00", "by": "alice",
         "ledger": "suppliers", "supplier_ref": "HH-017", "field": "address", "old": "NSW 2000",
         "new": "QLD 4217", "reason": "confirmed with the supplier by phone"},
        {"action": "override", "at": "2026-11-21T09:30:00+00:00", "by": "bob",  # after the run
         "ledger": "suppliers", "supplier_ref": "HH-017", "field": "address", "old": "QLD 4217",
         "new": "VIC 3000", "reason": "later"},
    ])  # fmt: skip
    text = one_line("\n".join(pdf(settings, tmp_path)))
    assert "QLD 4217" in text and "alice" in text and "2026-11-19 09:30 UTC" in text
    assert "confirmed with the supplier by phone" in text
    assert "bob" not in text and "VIC 3000" not in text  # not yet in force when it ran


def test_the_notice_is_on_every_page_once(settings: Settings, tmp_path: Path) -> None:
    write_run(settings, CUSTOMER, "suppliers", [high(n) for n in range(2, 80)])
    pages = pdf(settings, tmp_path)
    assert len(pages) >= 3
    for number, page in enumerate(pages, start=1):
        assert one_line(page).count(DECISION_SUPPORT) == 1, number
    assert "applies to all of it." in one_line(pages[-1])  # the report's own words are never cut


# --------------------------------------------------------------------------------- CSV


def read_csv(settings: Settings, tmp_path: Path) -> tuple[bytes, list[dict[str, str]]]:
    out = tmp_path / "report.csv"
    report(settings, CUSTOMER, MONTH, "csv", out)
    raw = out.read_bytes()
    with out.open(encoding="utf-8-sig", newline="") as f:
        return raw, list(csv.DictReader(f))


def test_the_csv_writes_the_abn_grouped_so_a_spreadsheet_keeps_it_as_text(
    settings: Settings, tmp_path: Path
) -> None:
    write_run(settings, CUSTOMER, "suppliers", [supplier(2), supplier(3, abn=None)])
    raw, rows = read_csv(settings, tmp_path)
    assert raw.startswith(b"\xef\xbb\xbf")
    assert [r["ABN"] for r in rows] == ["53 004 085 616", ""]
    assert b"53004085616" not in raw


def test_the_csv_columns_have_names_a_person_reads(settings: Settings, tmp_path: Path) -> None:
    write_run(settings, CUSTOMER, "suppliers", [high(2, flags=["LICENCE_MISMATCH"])])
    _, rows = read_csv(settings, tmp_path)
    header = list(rows[0])
    assert not [h for h in header if "_" in h], header
    assert header[:6] == ["Ledger", "Run date", "Line", "Supplier ref", "ABN",
                          "Supplier name (ledger)"]  # fmt: skip
    assert len(header) == 17 + 2 * len(CHECK_IDS)
    row = rows[0]
    assert row["ABN status: result"] == "FAIL"
    assert row["ABN status: rule"] == "ABN cancelled, suspended or not found => FAIL"
    assert row["Corporate company status: result"] == "PASS"
    assert (row["Risk level"], row["Flags"], row["Identity failures"]) == (
        "high", "LICENCE_MISMATCH", "abn_status",
    )  # fmt: skip


@pytest.mark.parametrize("month", ["2026-13", "11-2026"])
def test_a_bad_month_is_refused(settings: Settings, tmp_path: Path, month: str) -> None:
    from pipelines.ledgers.intake import LedgerError

    write_run(settings, CUSTOMER, "suppliers", [supplier(2)])
    with pytest.raises(LedgerError, match="YYYY-MM"):
        report(settings, CUSTOMER, month, "pdf", tmp_path / "x.pdf")


def test_a_run_whose_slice_is_gone_still_says_its_checks_in_words(
    settings: Settings, tmp_path: Path
) -> None:
    """The words come from the run's slice of the snapshot's catalogue; without it, from
    the seeds that catalogue is built from."""
    import shutil

    from tests.ledgers.report_history import SLICE

    write_run(settings, CUSTOMER, "suppliers", [high(2, flags=["PHOENIX_PATTERN"])])
    shutil.rmtree(settings.ledgers_dir / CUSTOMER / SLICE)
    text = one_line("\n".join(pdf(settings, tmp_path)))
    assert "ABN status fails" in text and "deregistered within the past 36 months" in text
