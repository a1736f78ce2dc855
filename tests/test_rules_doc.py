"""docs/rules.md and docs/decisions/ say what the code does (issue 37, item 1).

The rule rows are read from where they are implemented: every `check_rule` call of
int_check_outcomes.sql, the ledger rule macros (ABN status, GST, address) and the live
checks' tile functions (pipelines/live/tiles.py). Each rule row must be quoted in its
check's section of docs/rules.md, with the check's weight (seed check_weights.csv) and its
sources (seed check_sources.csv); every risk flag has its section; every path and test the
rules and the decision records cite exists. A rule row changed in the code without the doc
fails here.
"""

from __future__ import annotations

import ast
import csv
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DBT = ROOT / "dbt_project"
RULES = ROOT / "docs" / "rules.md"
DECISIONS = ROOT / "docs" / "decisions"

OUTCOMES = DBT / "models" / "intermediate" / "checks" / "int_check_outcomes.sql"
LEDGER_RULES = DBT / "macros" / "verification" / "abn_gst_address_rules.sql"
CHECKS_MACRO = DBT / "macros" / "verification" / "checks.sql"
TILES = ROOT / "pipelines" / "live" / "tiles.py"

# the live checks' tile functions, by check id
LIVE_FUNCTIONS = {
    "domain": "domain_tile",
    "email": "email_tile",
    "trust": "trust_tile",
    "web_presence": "web_presence_tile",
    "customer_reviews": "customer_reviews_tile",
    "social": "social_tile",
}
LEDGER_MACROS = {"abn_status": "abn_status_rules", "gst": "gst_rules", "address": "address_rules"}
ROW = re.compile(r'"([^"\n]*=> (?:PASS|WARN|FAIL|N/A|HIGH|MED|LOW)[^"\n]*)"')


def check_ids() -> list[str]:
    text = CHECKS_MACRO.read_text()
    block = text.split("macro check_ids()", 1)[1].split("endmacro", 1)[0]
    return re.findall(r"'([a-z_]+)'", block)


def flag_ids() -> list[str]:
    text = CHECKS_MACRO.read_text()
    block = text.split("macro flag_ids()", 1)[1].split("endmacro", 1)[0]
    return re.findall(r"'([A-Z_]+)'", block)


def outcome_conditions() -> dict[str, list[tuple[str, str]]]:
    """Check id -> its (SQL condition, rule row) pairs in int_check_outcomes.sql, in order."""
    text = OUTCOMES.read_text()
    pair = re.compile(r'\(\s*"([^"]*)",\s*"([^"\n]*=>[^"\n]*)"\s*\)')
    return {
        m.group(1): pair.findall(m.group(2))
        for m in re.finditer(r"check_rule\('([a-z_]+)', \[(.*?)\n\s*\]", text, re.S)
    }


def _outcome_rows() -> dict[str, list[str]]:
    return {check_id: [row for _, row in pairs] for check_id, pairs in outcome_conditions().items()}


def _ledger_rows() -> dict[str, list[str]]:
    text = LEDGER_RULES.read_text()
    out: dict[str, list[str]] = {}
    for check_id, macro in LEDGER_MACROS.items():
        body = text.split(f"macro {macro}(", 1)[1].split("endmacro", 1)[0]
        out[check_id] = ROW.findall(body)
    return out


def _live_rows() -> dict[str, list[str]]:
    tree = ast.parse(TILES.read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}

    def rows(node: ast.AST) -> list[str]:
        found: list[tuple[int, str]] = []
        for call in ast.walk(node):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "tile"
                and call.args
                and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[0].value, str)
            ):
                found.append((call.lineno, call.args[0].value))
        return [row for _, row in sorted(found)]

    out = {check_id: rows(functions[name]) for check_id, name in LIVE_FUNCTIONS.items()}
    premium = functions["premium_tile"]
    phone = next(
        n for n in ast.walk(premium) if isinstance(n, ast.If) and "phone" in ast.unparse(n.test)
    )
    out["phone"] = rows(phone)
    out["street_view"] = [r for r in rows(premium) if r not in out["phone"]]
    return out


@cache
def rows_in_order() -> dict[str, list[str]]:
    """Check id -> its rule rows in the order the code tries them (a row may recur)."""
    rows = {**_outcome_rows(), **_ledger_rows(), **_live_rows()}
    return {
        check_id: [r for r in rows.get(check_id, []) if r.split("=>")[0].strip()]
        for check_id in check_ids()
    }


@cache
def implemented_rows() -> dict[str, list[str]]:
    """Check id -> its rule rows as the code writes them, each once, in the code's order."""
    rows = rows_in_order()
    return {check_id: list(dict.fromkeys(rows.get(check_id, []))) for check_id in check_ids()}


def sections(text: str, level: str = "### ") -> dict[str, str]:
    """Heading (the first word, backticks dropped) -> the section's text."""
    out: dict[str, str] = {}
    parts = re.split(rf"^{level}", text, flags=re.M)
    for part in parts[1:]:
        heading = part.split("\n", 1)[0].split()[0].strip("`")
        out[heading] = part
    return out


def seed(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader((DBT / "seeds" / f"{name}.csv").open()))


def test_the_rule_rows_are_read_from_the_code() -> None:
    rows = implemented_rows()
    assert len(rows) == 36
    assert "Found with status EXAD => FAIL" in rows["insolvency"]
    assert "Registered, age under 3 months => WARN" in rows["gst"]
    assert "Age under 3 months => FAIL" in rows["domain"]
    assert "Number not connected => FAIL (decided)" in rows["phone"]
    assert "No building at the address => FAIL (decided)" in rows["street_view"]
    assert all(rows.values())


def test_every_check_has_its_section_with_every_rule_row_as_implemented() -> None:
    doc = sections(RULES.read_text())
    assert [c for c in check_ids() if c not in doc] == []
    missing = {
        check_id: [row for row in rows if f"`{row}`" not in doc[check_id]]
        for check_id, rows in implemented_rows().items()
    }
    assert {c: rows for c, rows in missing.items() if rows} == {}


def test_the_conditions_are_documented_in_the_order_the_code_tries_them() -> None:
    doc = sections(RULES.read_text())
    wrong = []
    for check_id, pairs in outcome_conditions().items():
        for n, (condition, row) in enumerate(pairs, 1):
            line = "| {} | `{}` | {} | `{}` |".format(
                n, row, row.split("=>")[1].split()[0], " ".join(condition.split())
            )
            if line not in doc[check_id]:
                wrong.append(f"{check_id}: {line}")
    assert wrong == [], "docs/rules.md should have these lines:\n" + "\n".join(wrong)


def test_every_check_states_its_weight_and_its_sources() -> None:
    doc = sections(RULES.read_text())
    wrong = [
        row["check_id"]
        for row in seed("check_weights")
        if f"* Weight: {row['weight']} ({row['weight_basis']})" not in doc[row["check_id"]]
    ]
    assert wrong == []
    unnamed = [
        (row["check_id"], row["source"], row["register"])
        for row in seed("check_sources")
        if "`{}`{}".format(row["source"], f" / `{row['register']}`" if row["register"] else "")
        not in doc[row["check_id"]].split("* Sources:", 1)[1].split("\n", 1)[0]
    ]
    assert unnamed == []


def test_every_risk_flag_has_its_section_with_its_severity() -> None:
    doc = sections(RULES.read_text())
    wrong = [
        row["flag_id"]
        for row in seed("flag_definitions")
        if row["flag_id"] not in doc or f"Severity {row['severity']}" not in doc[row["flag_id"]]
    ]
    assert wrong == [] and set(flag_ids()) <= set(doc)


def test_every_source_is_listed_with_when_it_is_stale() -> None:
    from pipelines.ingest.sources import SOURCES

    text = RULES.read_text()
    wrong = [
        name
        for name, source in SOURCES.items()
        if f"| `{name}` | `{source.folder}/` | {source.refresh_days} |" not in text
    ]
    assert wrong == []


def cited_paths(text: str) -> list[str]:
    """Repository paths in backticks or links: `tests/x.py::test_y`, `dbt_project/...`."""
    found = re.findall(r"`((?:tests|pipelines|dbt_project|bvs_sample|docs)/[^`\s]+)`", text)
    found += re.findall(r"\b(tests/[\w/]+\.py(?:::\w+)?)", text)
    return sorted(set(found))


def path_exists(cited: str) -> bool:
    path, _, test = cited.partition("::")
    target = ROOT / path
    if "<" in path:
        return any(ROOT.glob(re.sub(r"<[^>]+>", "*", path)))
    if not target.exists():
        return False
    return not test or re.search(rf"def {re.escape(test)}\b", target.read_text()) is not None


def test_every_path_and_test_the_rules_and_decisions_cite_exists() -> None:
    docs = [RULES, *sorted(DECISIONS.glob("*.md")), ROOT / "docs" / "adding-a-source.md"]
    missing = [(d.name, p) for d in docs for p in cited_paths(d.read_text()) if not path_exists(p)]
    assert missing == []


def test_every_link_between_the_docs_resolves() -> None:
    broken = []
    for doc in (ROOT / "docs").rglob("*.md"):
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text()):
            if "://" not in target and not (doc.parent / target).exists():
                broken.append((str(doc.relative_to(ROOT)), target))
    assert broken == []


def test_every_decision_record_has_its_parts_and_is_listed() -> None:
    index = (DECISIONS / "README.md").read_text()
    records = sorted(p for p in DECISIONS.glob("[0-9][0-9]-*.md"))
    assert len(records) >= 21
    for record in records:
        text = record.read_text()
        parts = ["## Question", "## Decision", "## Why", "## Held by"]
        assert all(p in text for p in parts), record.name
        assert f"({record.name})" in index, record.name
    numbers = [int(p.name[:2]) for p in records]
    assert numbers == list(range(1, len(records) + 1))


# Citations of the spec's sections or the contract's decisions that stay, with why: the spec
# is the origin a decision record or a stated weight names, or the text is data a user sees.
CITATIONS_KEPT = {
    "docs/decisions/": "a decision record names the spec's section it settles",
    "dbt_project/seeds/check_weights.csv": "the basis of a stated weight, published in marts.checks",
    "dbt_project/macros/verification/checks.sql": "a tile's reason text, shown to users",
    "bvs_sample/cases/asic.py": "planted cases' descriptions",
    "bvs_sample/ledgers.py": "planted cases' descriptions",
    "tests/live/test_warn_cluster.py": "a case label",
}


def test_code_and_docs_cite_the_repositorys_rules_not_the_spec() -> None:
    """Issue 37 item 1: SPEC sections and CONTRACT decisions are cited through docs/rules.md
    and docs/decisions/."""
    spec, contract = "SPEC", "CONTRACT"  # not written together here, or this file cites
    cite = re.compile(rf"\b{spec}( sections?)?\s+\d|\b{contract}\s+decisions?\s+\d")
    found = []
    for folder in ("pipelines", "dbt_project", "docs", "tests", "bvs_sample"):
        for path in (ROOT / folder).rglob("*"):
            rel = path.relative_to(ROOT).as_posix()
            if (
                not path.is_file()
                or path.suffix not in {".py", ".sql", ".yml", ".md", ".csv"}
                or "/target/" in rel
                or any(rel.startswith(k) for k in CITATIONS_KEPT)
            ):
                continue
            text = path.read_text(errors="replace")
            found += [f"{rel}: {m.group(0)}" for m in cite.finditer(text)]
    assert found == []
