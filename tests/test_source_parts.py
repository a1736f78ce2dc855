"""Every declared source has the parts docs/adding-a-source.md lists (issue 37, item 4).

Every source (pipelines/ingest/sources.py) needs a staging model over each of its raw tables
and a generator that writes files it reads (`bvs sample`). A source that feeds a tile also
needs its `check_sources` rows, the match rule `int_match_records__<register>`, the match
table `match_<register>` and the evidence `int_check_evidence__<register>`, where
`<register>` is the source's name without its publisher's prefix (`asic_`, `acnc_`).

A source that lacks a part by design says so below, with the reason: nothing is skipped
silently. A new source fails here until it has its parts or its reasons.
"""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from pipelines.ingest.files import discover
from pipelines.ingest.sources import SOURCES

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "dbt_project" / "models"

# Sources that feed no tile, and what they feed instead.
NO_TILE = {
    "ppsr": "Shape B `ppsr.registrations` only (int_check_evidence__people), no check id",
    "asic_liquidators": "the LIQUIDATOR_LINKED flag only (match_liquidators, int_check_evidence__people)",
    "prices_crypto": "crypto Squeeze Scores only (squeeze_scores); the squeeze tile reads ASX",
    "prices_forex": "forex Squeeze Scores only (squeeze_scores); the squeeze tile reads ASX",
    "positioning": "crypto and forex short interest for the Squeeze Score only",
    "activist_amplification": "the viper pattern's amplification element only (int_activist__pattern_elements)",
}

# The register name a source's models carry, where it is not the source's name without its
# publisher's prefix.
REGISTER = {
    "asic_companies": "insolvency",  # the companies in external administration (EXAD, DISS)
}

# The evidence model a register's tile reads, where it is not int_check_evidence__<register>.
EVIDENCE = {
    "banned_persons": "banned_disqualified",  # one tile over persons and organisations
    "banned_organisations": "banned_disqualified",
    "afs_licensees": "financial_services_licences",  # one tile over AFS and credit licences
    "credit_licensees": "financial_services_licences",
}

# (source, part) -> why the source has no such part.
NOT_NEEDED: dict[tuple[str, str], str] = {
    ("abr", "match_rule"): "the ABR is the entities (marts.entities): registers are matched to it",
    ("abr", "match_table"): "the ABR is the entities (marts.entities): registers are matched to it",
    (
        "abr",
        "evidence",
    ): "ABN status and GST read marts.entities directly (abn_gst_address_rules.sql)",
    (
        "directors",
        "match_rule",
    ): "officeholders are keyed by ACN and person name in int_officeholders_keyed",
    (
        "directors",
        "match_table",
    ): "its match table is marts.phoenix_links (directors of deregistered companies)",
    (
        "industry",
        "match_rule",
    ): "ABN exact, no name rule: int_check_evidence__industry joins by ABN",
    (
        "industry",
        "match_table",
    ): "ABN exact, no name rule: int_check_evidence__industry joins by ABN",
    (
        "banned_persons",
        "match_rule",
    ): "people, not records: match_banned_persons matches person names itself",
    ("asx_listed", "evidence"): "the activist and squeeze tiles read match_asx_listed directly",
    (
        "activist_campaigns",
        "match_rule",
    ): "campaigns are matched by ticker or name in int_activist__campaigns_matched",
    ("activist_campaigns", "match_table"): "the viper mart (marts.viper) is its match table",
    ("activist_campaigns", "evidence"): "the activist tile reads marts.viper directly",
    (
        "asic_short_positions",
        "match_rule",
    ): "ticker exact through match_asx_listed, no rule of its own",
    (
        "asic_short_positions",
        "match_table",
    ): "ticker exact through match_asx_listed, no table of its own",
    ("asic_short_positions", "evidence"): "the squeeze tile reads marts.squeeze_latest",
    ("prices_asx", "match_rule"): "ticker exact through match_asx_listed, no rule of its own",
    ("prices_asx", "match_table"): "ticker exact through match_asx_listed, no table of its own",
    ("prices_asx", "evidence"): "the squeeze tile reads marts.squeeze_latest",
}

# Evidence models named after the check rather than the source's register.
EVIDENCE_OF = {"directors": "phoenix"}


def register_of(source: str) -> str:
    return REGISTER.get(source, re.sub(r"^(asic|acnc)_", "", source))


@cache
def check_sources() -> dict[str, set[str]]:
    rows = csv.DictReader((ROOT / "dbt_project" / "seeds" / "check_sources.csv").open())
    out: dict[str, set[str]] = {}
    for row in rows:
        out.setdefault(row["source"], set()).add(row["check_id"])
    return out


def model_exists(name: str) -> bool:
    return any(MODELS.rglob(f"{name}.sql")) or any(MODELS.rglob(f"{name}.py"))


@cache
def staging_reads() -> dict[str, list[str]]:
    """Raw table -> the staging models that select from it (`source(...)` in their SQL)."""
    declared: dict[tuple[str, str], str] = {}
    for path in (MODELS / "staging").rglob("_*__sources.yml"):
        for src in yaml.safe_load(path.read_text())["sources"]:
            for table in src["tables"]:
                declared[(src["name"], table["name"])] = table.get("identifier", table["name"])
    reads: dict[str, list[str]] = {}
    for path in (MODELS / "staging").rglob("stg_*.sql"):
        sql = path.read_text()
        for (src, table), raw in declared.items():
            literal = f"source('{src}', '{table}')" in sql
            looped = f"source('{src}', " in sql and f"'{table}'" in sql  # a loop over tables
            if literal or looped:
                reads.setdefault(raw, []).append(path.stem)
    return reads


def parts_missing(source: str, *, landing: Path | None = None) -> list[str]:
    """The parts `source` lacks that it needs, each with what was looked for."""
    declared = SOURCES[source]
    register = register_of(source)
    missing = [
        f"staging model over raw.{table.name}"
        for table in declared.tables.values()
        if not staging_reads().get(table.name)
    ]
    if landing is not None and not discover(
        landing / declared.folder, declared.patterns, declared.snapshot_key
    ):
        missing.append(f"generator: `bvs sample` writes no file of {declared.folder}/")
    if source in NO_TILE:
        return missing
    if source not in check_sources():
        missing.append("check_sources.csv row (or a NO_TILE reason)")
    evidence = EVIDENCE_OF.get(source, EVIDENCE.get(register, register))
    wanted = {
        "match_rule": f"int_match_records__{register}",
        "match_table": f"match_{register}",
        "evidence": f"int_check_evidence__{evidence}",
    }
    for part, model in wanted.items():
        reason = NOT_NEEDED.get((source, part), NOT_NEEDED.get((register, part)))
        if reason is None and not model_exists(model):
            missing.append(f"{part}: model {model}")
    return missing


@pytest.fixture(scope="module")
def landing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bvs_sample import write_sample

    root = tmp_path_factory.mktemp("landing")
    write_sample(root, scale=500, seed=1, workers=1)
    return root


def test_every_declared_source_has_every_part_it_needs(landing: Path) -> None:
    assert {s: m for s in SOURCES if (m := parts_missing(s, landing=landing))} == {}


def test_every_source_either_feeds_a_tile_or_says_what_it_feeds() -> None:
    feeds = check_sources()
    assert sorted(set(feeds) - set(SOURCES)) == []  # check_sources names declared sources
    assert sorted(set(NO_TILE) & set(feeds)) == []
    assert sorted(s for s in SOURCES if s not in feeds and s not in NO_TILE) == []


def test_every_exception_names_a_declared_source_and_a_part() -> None:
    registers = {register_of(s) for s in SOURCES}
    assert all(s in SOURCES for s in NO_TILE)
    assert all(s in SOURCES for s in REGISTER)
    for (name, part), reason in NOT_NEEDED.items():
        assert name in SOURCES or name in registers, name
        assert part in {"match_rule", "match_table", "evidence"} and reason
    # an exception that is no longer needed is stale: the part now exists
    stale = [
        (name, part)
        for (name, part), reason in NOT_NEEDED.items()
        if model_exists(
            {
                "match_rule": f"int_match_records__{register_of(name)}",
                "match_table": f"match_{register_of(name)}",
                "evidence": f"int_check_evidence__{register_of(name)}",
            }[part]
        )
    ]
    assert stale == []


def test_a_source_without_its_match_model_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    real = model_exists
    monkeypatch.setattr(
        f"{__name__}.model_exists", lambda name: name != "match_gazette" and real(name)
    )
    assert parts_missing("gazette") == ["match_table: model match_gazette"]
