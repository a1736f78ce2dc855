"""The tables in `meta` that say how a table was built (its record of inputs, of written keys,
of a week's deltas) are looked up in the database, not in dbt's relation cache
(macros/meta_table_exists.sql): the cache marks `meta` listed as it adds the first of its
relations, and a lookup on the other thread in that moment misses one that exists."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
from test_dbt_build import run_dbt

from pipelines.settings import DBT_PROJECT_DIR

# meta listed as far as its first relation: what a lookup sees while the other thread lists it
PARTLY_LISTED = (
    "{% do adapter.cache_added(api.Relation.create("
    "database='warehouse', schema='meta', identifier='listed_first')) %}"
)


def test_a_meta_table_is_found_while_the_cache_has_listed_only_part_of_meta(
    tmp_path: Path,
) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(warehouse)) as con:
        con.execute("create schema meta")
        con.execute("create table meta.listed_first (x integer)")
        con.execute("create table meta.search_names__abn_inputs (abn varchar, input_hash ubigint)")
    inline = (
        f"{PARTLY_LISTED}"
        " select {{ bvs.meta_table_exists('search_names__abn_inputs') }} as found,"
        " {{ bvs.meta_table_exists('no_such_record') }} as missing,"
        " {{ adapter.get_relation(database='warehouse', schema='meta',"
        " identifier='search_names__abn_inputs') is not none }} as in_the_cache"
    )
    result = run_dbt("compile", warehouse, tmp_path, "--inline", inline)
    assert result.returncode == 0, result.stdout + result.stderr
    compiled = result.stdout[result.stdout.rindex("select") :]
    # the cache, partly listed, misses the record; the database has it
    assert "True as found" in compiled
    assert "False as missing" in compiled
    assert "False as in_the_cache" in compiled


def test_no_macro_looks_a_meta_table_up_in_the_relation_cache() -> None:
    """The records a build reads to choose its path are found by `meta_table_exists`; a
    lookup through dbt's cache (`adapter.get_relation`, `load_relation`,
    `load_cached_relation`) of one of them can choose a whole build on one thread's view
    and an incremental one on the next."""
    lookups = re.compile(
        r"(adapter\.get_relation|load_relation|load_cached_relation)\((.{0,200})", re.S
    )
    meta = re.compile(
        r"'meta'|\"meta\"|_state\(|written_keys_relation|unpublished_keys_relation|__abn_inputs"
        r"|__record_inputs|__written_keys|__unpublished_keys|__word_deltas|\bstate\."
    )
    found = []
    for path in sorted((DBT_PROJECT_DIR / "macros").rglob("*.sql")) + sorted(
        (DBT_PROJECT_DIR / "models").rglob("*.sql")
    ):
        for match in lookups.finditer(path.read_text()):
            call = match.group(2).split(")")[0]
            if meta.search(call):
                found.append(f"{path.relative_to(DBT_PROJECT_DIR)}: {match.group(1)}({call})")
    assert not found, found
