"""A week built incrementally equals the same week built whole.

The sample's first week is run (`bvs run`), then its realistic next week (`bvs sample
--next-week`: ABR and company records changed, new ABNs, new gazette notices and adverse
records) a week later, as the weekly schedule runs it: `stg_abr__abns` cleans again only the
ABNs whose ABR record changed (`stg_abr__abn_record_hashes`), `entities` and `entity_names`
recompute only the ABNs whose records, names or companies changed (`int_entity_inputs`),
`int_check_outcomes` only the ABNs whose inputs changed (`int_check_inputs`),
`verifications` those ABNs' rows, and the similarity join matches only the register and
entity names that changed (`int_matching__name_similarities`), the match tables only the
records and the ABNs that changed (`match_table`, `int_matching__abn_inputs`), the names' trigrams are
counted for the new names only (`int_search__name_trigram_counts`), the search index deletes
and appends only the names and postings that changed (`search_names`, `search_words`), the
verify lookup rewrites only the records that changed, and the snapshot is last week's file
with only what changed written into it. A copy of that warehouse then rebuilds the ABR's
staging, the entity marts, the similarity join, the trigram counts, `int_check_outcomes` and
everything downstream of them whole (`dbt run --full-refresh`), and every table of the two
warehouses must hold the same rows (the search tables' ids in the same order: a week places
its rows between the ids of their neighbours). Leave an input out of an input hash
(`int_check_inputs`, `int_entity_inputs`, `int_matching__abn_inputs`), or a match table's
pass for the changed records or ABNs, and the ABNs it changed keep last week's rows: this
test fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from pipelines.dbt import publish_keys
from pipelines.serving.search import ID_SPACING, search
from pipelines.settings import get_settings
from pipelines.warehouse.snapshot import current_snapshot
from tests.e2e.conftest import AS_OF, BVS
from tests.e2e.test_verify_lookup import _assert_same_records

NEXT_WEEK = "2026-11-27"
ROOT = Path(__file__).resolve().parents[2]
DBT_PROJECT = ROOT / "dbt_project"
DBT = str(Path(sys.executable).with_name("dbt"))
# bookkeeping, not results: when each incremental model was built, and from which code;
# what search_words' postings of each ABN were built from, which hashes the name ids a week
# places otherwise than a whole build numbers them (the tables themselves are compared); and
# the names of the ABNs changed since the match tables were built, which their passes read
NOT_COMPARED = {
    ("meta", "model_versions"),
    ("meta", "name_similarities__built"),
    ("meta", "search_words__abn_inputs"),
    ("meta", "match_table_builds"),
    ("intermediate", "int_matching__changed_abn_names"),
}
# compared on the rows a whole build writes: the ABN side of the match tables without the
# time each hash last changed (and an ABN gone keeps a row with a null hash); the keyed
# entity names without their ids
COMPARED_AS = {
    ("intermediate", "int_matching__abn_inputs"): (
        "(select abn, input_hash from {relation} where input_hash is not null)"
    ),
    # the same names; a week numbers its new names after the kept ones, a whole build in order
    (
        "intermediate",
        "int_matching__entity_names_keyed",
    ): "(select name_normalised from {relation})",
}
# the models a week builds again only for the ABNs whose inputs changed (sliced_table)
INCREMENTAL_BY_ABN = (
    "stg_abr__abns",
    "entities",
    "entity_names",
    "int_matching__sole_traders_keyed",
    "int_check_outcomes",
    "verifications",
)
# ids that follow a table's order, with room between them (docs/search.md): compared by
# their place in that order, and the other ids they hold left out
ORDERED_IDS = {
    ("marts", "search_names"): ("name_id", ()),
    ("marts", "search_words"): ("posting_id", ("name_id",)),
}


def _dbt(args: list[str], env: dict[str, str], work: Path) -> str:
    """dbt on the project, with its target and logs in ``work`` (a test's own)."""
    folders = ["--project-dir", str(DBT_PROJECT), "--profiles-dir", str(DBT_PROJECT)]
    folders += ["--target-path", str(work / "target"), "--log-path", str(work / "logs")]
    return _run([DBT, *args, *folders], env, cwd=work)


def _warehouse_copy(two_weeks: dict, name: str) -> tuple[Path, dict[str, str], Path]:
    """A copy of the next week's warehouse to build on (``warehouse-<name>.duckdb``), the
    environment that points dbt at it on the next week's date, and a work folder for dbt."""
    copy = two_weeks["data"] / f"warehouse-{name}.duckdb"
    shutil.copyfile(two_weeks["data"] / "warehouse.duckdb", copy)
    work = two_weeks["root"] / f"dbt-{name}"
    work.mkdir()
    env = {
        **two_weeks["env"],
        "BVS_WAREHOUSE": str(copy),
        "BVS_AS_OF": NEXT_WEEK,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    return copy, env, work


def _run(command: list[str], env: dict[str, str], cwd: Path | None = None) -> str:
    result = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=900, check=False
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return result.stdout


@pytest.fixture(scope="module")
def two_weeks(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> dict:
    """The sample's week and its next week, incrementally, in one data folder; the next
    week's landing files; the dbt log of the second week."""
    root = tmp_path_factory.mktemp("incremental")
    data = root / "data"
    env = {
        **os.environ,
        "BVS_DATA_DIR": str(data),
        "BVS_WAREHOUSE": str(data / "warehouse.duckdb"),
        "DAGSTER_HOME": str(root / "dagster_home"),
        # a 3,000-ABN week with 2 % of its records changed moves the gazette's row count
        # by more than the default drift bound (a blocking check)
        "BVS_MAX_ROW_DRIFT": "1",
        "CI": "true",
    }
    shutil.copytree(sample_dir, data / "landing")
    _run([BVS, "run", "--as-of", AS_OF], env)
    next_week = root / "next-week"
    _run(
        [
            BVS,
            "sample",
            "--next-week",
            str(sample_dir),
            "--out",
            str(next_week),
            "--change",
            "0.02",
        ],
        env,
    )
    shutil.rmtree(data / "landing")
    shutil.copytree(next_week, data / "landing")
    logs_before = set((data / "logs").glob("bvs-run-*.log"))
    _run([BVS, "run", "--as-of", NEXT_WEEK], env)
    (log,) = set((data / "logs").glob("bvs-run-*.log")) - logs_before
    return {"root": root, "data": data, "env": env, "log": log.read_text()}


def test_the_next_week_recomputes_only_the_abns_whose_inputs_changed(two_weeks: dict) -> None:
    recomputed = {}
    for model in INCREMENTAL_BY_ABN:
        found = re.search(rf"{model}: (\d+) of (\d+) rows to recompute", two_weeks["log"])
        assert found, f"the next week rebuilt {model} whole, not incrementally"
        recomputed[model] = (int(found.group(1)), int(found.group(2)))
    changed, rows = recomputed["int_check_outcomes"]
    # ABNs with changed records or evidence, new ABNs, and those whose dates crossed a
    # rule's boundary: about 2 % of records changed, so a few in a hundred
    assert 0 < changed < rows / 10
    assert recomputed["verifications"] == (changed, rows)
    # the ABNs whose ABR record, names or companies changed, and the new ones: the same
    # for both marts, and at least those whose ABR record changed
    assert recomputed["entities"] == recomputed["entity_names"]
    entities_changed, abns = recomputed["entities"]
    assert 0 < entities_changed < abns / 10 and abns == rows
    records_changed, records = recomputed["stg_abr__abns"]
    assert 0 < records_changed <= entities_changed and records == rows
    # the sole traders among the changed ABNs (and those no longer one) are keyed again
    traders_changed, traders = recomputed["int_matching__sole_traders_keyed"]
    assert 0 < traders_changed <= entities_changed and traders < abns


def test_the_next_weeks_match_tables_match_only_the_records_and_abns_that_changed(
    two_weeks: dict,
) -> None:
    lines = re.findall(
        r"(match_\w+): (\d+) of (\d+) records and (\d+) of (\d+) ABNs to match again"
        r"(?:, their rows read from (\w+))?",
        two_weeks["log"],
    )
    found = {model: tuple(int(n) for n in numbers) for model, *numbers, _ in lines}
    tables = sorted(p.stem for p in (DBT_PROJECT / "models/marts/matching").glob("match_*.sql"))
    assert sorted(found) == tables, "a match table was rebuilt whole, not incrementally"
    # the entity names of the changed ABNs: read from the week's few, not from all of them
    by_names = {
        p.stem for p in (DBT_PROJECT / "models/marts/matching").glob("match_*.sql")
        if "register_matches" in p.read_text()
    }
    assert {model: read for model, *_, read in lines} == {
        model: "int_matching__changed_abn_names" if model in by_names else "" for model in tables
    }
    for model, (records, all_records, abns, all_abns) in found.items():
        # the ABNs whose entity, names or people changed, and the new ones: the same for
        # every table, a few in a hundred
        assert (abns, all_abns) == found["match_gazette"][2:], model
        assert 0 < abns < all_abns / 10, model
        assert records < all_records / 2, model
    # the week brought new gazette notices and adverse records
    assert found["match_gazette"][0] > 0 and found["match_adverse"][0] > 0


def test_the_next_week_matches_only_the_names_that_changed(two_weeks: dict) -> None:
    con = duckdb.connect(str(two_weeks["data"] / "warehouse.duckdb"), read_only=True)
    mode, registers, entities = con.execute(
        "select mode, registers_matched, entities_matched from meta.name_similarities__built"
    ).fetchall()[0]
    (all_entities,) = con.execute(
        "select count(*) from intermediate.int_matching__entity_names_keyed"
    ).fetchall()[0]
    assert mode == "changes"
    assert 0 < entities < all_entities / 10  # new ABNs' names and changed names
    # the keyed names kept their ids and the week's new names were numbered after them: in
    # id order the names run in name order twice, the kept ones, then the new ones
    (descents,) = con.execute(
        """
        select count(*) filter (where name_normalised < previous)
        from (
            select name_normalised, lag(name_normalised) over (order by name_id) as previous
            from intermediate.int_matching__entity_names_keyed
        )
        """
    ).fetchall()[0]
    assert descents == 1


def test_the_next_weeks_search_index_appends_only_the_names_that_changed(
    two_weeks: dict,
) -> None:
    con = duckdb.connect(str(two_weeks["data"] / "warehouse.duckdb"), read_only=True)
    for table, column in (("search_names", "name_id"), ("search_words", "posting_id")):
        placed, rows = con.execute(
            f"select count(*) filter ({column} % {ID_SPACING} <> 0), count(*) from marts.{table}"
        ).fetchall()[0]
        # a whole build's ids are multiples of the spacing; a week's are between them
        assert 0 < placed < rows / 10, table
    # the words' counts take the week's deltas, not a count of every posting
    found = re.search(
        r"search_word_frequencies: (\d+) words whose postings changed counted again",
        two_weeks["log"],
    )
    assert found, "the next week counted every posting of search_word_frequencies again"
    (words,) = con.execute("select count(*) from marts.search_word_frequencies").fetchone()
    assert 0 < int(found.group(1)) < words


def test_the_next_weeks_verify_lookup_rewrites_only_the_records_that_changed(
    two_weeks: dict,
) -> None:
    info = current_snapshot(get_settings(data_dir=two_weeks["data"]))
    assert info is not None and info.as_of.isoformat() == NEXT_WEEK
    lookup = info.sidecars["verify"]
    with sqlite3.connect(lookup) as lite:
        meta = dict(lite.execute("select key, value from meta").fetchall())
    assert meta["built"] == "changes"
    assert 0 < int(meta["rewritten"]) < int(meta["rows"]) / 10
    assert _assert_same_records(info.path, lookup) == int(meta["rows"])


def test_the_next_weeks_snapshot_updates_the_rows_that_changed(two_weeks: dict) -> None:
    info = current_snapshot(get_settings(data_dir=two_weeks["data"]))
    assert info is not None and info.as_of.isoformat() == NEXT_WEEK
    con = duckdb.connect(str(two_weeks["data"] / "warehouse.duckdb"), read_only=True)
    con.execute(f"attach '{info.path}' as snap (read_only)")
    written = {
        name: (method, rows)
        for name, method, rows in con.execute(
            "select table_name, method, rows_written from snap.meta.snapshot_tables"
        ).fetchall()
    }
    assert set(written) == set(info.tables)
    for table in ("marts.verifications", "marts.entities", "marts.entity_names"):
        method, rows = written[table]
        assert method == "updated", (table, method)
        assert 0 < rows < info.tables[table] / 10
    # every table with a publish_key (the match tables, the flags, the officeholders) was
    # compared by its keys: updated, or copied for too many changed keys, never for want of one
    manifest = json.loads((DBT_PROJECT / "target" / "manifest.json").read_text())
    keyed = set(publish_keys(manifest))
    assert {"marts.match_gazette", "marts.risk_flags", "marts.network_officeholders"} <= keyed
    reasons = dict(
        con.execute("select table_name, reason from snap.meta.snapshot_tables").fetchall()
    )
    for table in keyed & set(written):
        assert "keys changed" in reasons[table], (table, reasons[table])
    # the tables whose builds record the keys they wrote: those keys' rows, no row hashed
    for table in ("entities", "entity_names", "verifications", "search_names", "search_words"):
        assert "found by the keys the builds wrote" in reasons[f"marts.{table}"], table
    assert sum(written[table][0] == "updated" for table in keyed) >= 10
    assert "kept" in {method for method, _ in written.values()}
    # the search index: the first week's copy in id order, then the week's rows as one run
    # in id order after it (sorted_rows: the rowid where that run begins)
    runs = dict(
        con.execute(
            "select table_name, sorted_rows from snap.meta.snapshot_tables"
            " where sorted_rows is not null"
        ).fetchall()
    )
    for table, column in (("search_names", "name_id"), ("search_words", "posting_id")):
        method, rows = written[f"marts.{table}"]
        assert method == "updated", table
        assert "more rows of the run after the sorted one" in reasons[f"marts.{table}"]
        descents, after = con.execute(
            f"select count(*) filter (where step <= 0), count(*) filter (where rowid >= ?)"
            f" from (select rowid, {column} - lag({column}) over (order by rowid) as step"
            f" from snap.marts.{table})",
            [runs[f"marts.{table}"]],
        ).fetchall()[0]
        assert descents <= 1, table  # where the week's run begins
        assert 0 < after <= rows < info.tables[f"marts.{table}"] / 10, table
    # every table holds the warehouse's rows, whichever way it was written
    for name in info.tables:
        relation = ".".join(f'"{part}"' for part in name.split("."))
        differing = con.execute(
            f"select count(*) from ((select * from {relation} except all "
            f"select * from snap.{relation}) union all (select * from snap.{relation} "
            f"except all select * from {relation}))"
        ).fetchall()[0][0]
        assert differing == 0, name


def _materialisations(dagster_home: Path) -> list[tuple[str, str]]:
    """The latest run's dbt outputs in the order Dagster recorded them: (unique id, status)."""
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        (run,) = instance.get_runs(limit=1)
        out = []
        for entry in instance.all_logs(
            run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION
        ):
            metadata = entry.asset_materialization.metadata
            if "unique_id" in metadata:
                status = metadata.get("status")
                out.append((metadata["unique_id"].value, status.value if status else ""))
        return out


def test_the_next_week_keeps_the_views_whose_definition_stands(two_weeks: dict) -> None:
    """A view whose parents' rows changed but not its statement is not created again (its
    tests run); one that writes the as-of date is. Dagster records each kept view after
    its parents and before what reads it, so nothing built from it looks stale."""
    order = _materialisations(two_weeks["root"] / "dagster_home")
    kept = {uid for uid, status in order if status.startswith("view kept")}
    assert "model.bvs.stg_adverse__records" in kept  # new adverse records: new rows
    assert "model.bvs.stg_ppsr__registrations" not in kept  # the as-of date is in its SQL
    assert "model.bvs.tiles" in kept  # no version (it reads the live checks): kept all the same
    for uid in kept:
        name = uid.rsplit(".", 1)[-1]
        assert f"view model staging.{name} " not in two_weeks["log"]
        assert f"view model intermediate.{name} " not in two_weeks["log"]
    assert re.search(r"PASS \w*stg_adverse__records\w*", two_weeks["log"])  # its tests ran
    manifest = json.loads((DBT_PROJECT / "target" / "manifest.json").read_text())
    position = {uid: i for i, (uid, _) in enumerate(order)}
    for uid in kept:
        parents = manifest["nodes"][uid]["depends_on"]["nodes"]
        children = manifest["child_map"][uid]
        assert all(position[p] < position[uid] for p in parents if p in position), uid
        assert all(position[uid] < position[c] for c in children if c in position), uid


def test_an_incremental_week_equals_a_whole_build_of_the_same_files(two_weeks: dict) -> None:
    incremental = two_weeks["data"] / "warehouse.duckdb"
    whole, env, work = _warehouse_copy(two_weeks, "whole")

    def dbt_run(*args: str) -> str:
        return _dbt(["run", *args], env, work)

    dbt_run(
        "--full-refresh",
        "--select",
        "stg_abr__abns+ int_matching__name_similarities+ int_search__name_trigram_counts+"
        " int_check_outcomes+",
    )
    built = "select mode, registers_matched, entities_matched from meta.name_similarities__built"
    with duckdb.connect(str(whole), read_only=True) as copy:
        assert copy.execute(built).fetchall()[0][0] == "whole"
    # and built again on the same files: nothing changed, nothing is recomputed
    again = dbt_run(
        "--select",
        "stg_abr__abns entities entity_names int_matching__sole_traders_keyed"
        " int_matching__name_similarities int_check_outcomes verifications",
    )
    for model in INCREMENTAL_BY_ABN:
        assert f"{model}: 0 of " in again, model
    with duckdb.connect(str(whole), read_only=True) as copy:
        assert copy.execute(built).fetchall() == [("changes", 0, 0)]
    con = duckdb.connect()
    con.execute(f"attach '{incremental}' as incremental (read_only)")
    con.execute(f"attach '{whole}' as whole (read_only)")
    tables = con.execute(
        "select schema_name, table_name from duckdb_tables() where database_name = 'whole'"
        " order by all"
    ).fetchall()
    assert ("intermediate", "int_check_outcomes") in tables
    differing = {}
    for schema, table in tables:
        # and what the builds wrote since their tests passed, or since the last publish
        # (the incremental week's passed run and its publish forgot it)
        if (schema, table) in NOT_COMPARED or table.endswith(
            ("__written_keys", "__unpublished_keys")
        ):
            continue
        name = f'"{schema}"."{table}"'
        rows = {side: f"{side}.{name}" for side in ("whole", "incremental")}
        if (schema, table) in COMPARED_AS:
            rows = {
                side: COMPARED_AS[schema, table].format(relation=relation)
                for side, relation in rows.items()
            }
        if (schema, table) in ORDERED_IDS:
            column, others = ORDERED_IDS[schema, table]
            left_out = ", ".join((column, *others))
            rows = {
                side: f"(select * exclude ({left_out}), row_number() over (order by {column})"
                f" as place from {relation})"
                for side, relation in rows.items()
            }
        only_whole, only_incremental = con.execute(
            f"""
            select
                (select count(*) from (select * from {rows["whole"]} except all select * from {rows["incremental"]})),
                (select count(*) from (select * from {rows["incremental"]} except all select * from {rows["whole"]}))
            """
        ).fetchone()
        if only_whole or only_incremental:
            differing[f"{schema}.{table}"] = (only_whole, only_incremental)
    assert not differing, f"rows only in the whole build, only in the incremental one: {differing}"
    con.close()

    # and the search answers alike, for the names the week placed between last week's ids
    answers = {}
    for side, path in (("incremental", incremental), ("whole", whole)):
        with duckdb.connect(str(path), read_only=True) as warehouse:
            if side == "incremental":
                keys = [
                    key
                    for (key,) in warehouse.execute(
                        f"select search_key from marts.search_names"
                        f" where name_id % {ID_SPACING} <> 0 order by name_id limit 15"
                    ).fetchall()
                ]
                assert len(keys) == 15
                queries = [*keys, *(k.split()[0] for k in keys), *(k[:-1] for k in keys)]
            answers[side] = [search(warehouse, query, limit=10) for query in queries]
    assert answers["incremental"] == answers["whole"]


def _numbered_whole(con: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    """The table's ids are those a whole build gives: its rows in order times the spacing."""
    placed, misplaced = con.execute(
        f"select count(*) filter ({column} % {ID_SPACING} <> 0),"
        f" count(*) filter ({column} <> {ID_SPACING} * row_number)"
        f" from (select {column}, row_number() over (order by {column}) as row_number"
        f" from marts.{table})"
    ).fetchall()[0]
    return (placed, misplaced) == (0, 0)


def test_the_search_index_is_rebuilt_whole_when_its_code_changed(two_weeks: dict) -> None:
    """A week keeps the index rows it does not rewrite, so rows another version of the code
    wrote would stay: when the code recorded for a search table (meta.model_versions)
    differs from the model's, or none is recorded (a table built before the record), the
    next build deletes every row and builds the table whole. The names' trigram counts
    likewise: a count another trigram macro wrote is counted again."""
    copy, env, work = _warehouse_copy(two_weeks, "recode")
    with duckdb.connect(str(copy)) as con:
        con.execute(
            "update meta.model_versions set code_hash = 'older' where model = 'search_names'"
        )
        con.execute("delete from meta.model_versions where model = 'search_words'")
        con.execute(
            "update meta.model_versions set code_hash = 'older'"
            " where model = 'int_search__name_trigram_counts'"
        )
        # what another trigram macro might have counted, for one name
        con.execute(
            "update intermediate.int_search__name_trigram_counts set trigram_count = -1"
            " where name_normalised = (select min(name_normalised)"
            " from intermediate.int_search__name_trigram_counts)"
        )
        before = con.execute("select count(*) from marts.search_words").fetchall()[0][0]
    _dbt(
        ["run", "--select", "int_search__name_trigram_counts search_names search_words"], env, work
    )
    with duckdb.connect(str(copy), read_only=True) as con:
        for table, column in (("search_names", "name_id"), ("search_words", "posting_id")):
            assert _numbered_whole(con, table, column), table
        assert con.execute("select count(*) from marts.search_words").fetchall()[0][0] == before
        wrong = "select count(*) from intermediate.int_search__name_trigram_counts where trigram_count < 0"
        assert con.execute(wrong).fetchall()[0][0] == 0
        recorded = con.execute(
            "select model, code_hash from meta.model_versions where model like '%search_%'"
        ).fetchall()
        assert {model for model, _ in recorded} == {
            "int_search__name_trigram_counts",
            "search_names",
            "search_word_frequencies",
            "search_words",
        }
        assert "older" not in {code for _, code in recorded}


def test_the_search_index_is_rebuilt_whole_when_what_it_reads_changed(two_weeks: dict) -> None:
    """A week of search_names rewrites the ABNs whose entity inputs changed, and
    search_words the ABNs whose names search_names wrote again: neither hash says anything of
    the code that made the rows. When the code recorded for the entity marts changed, both
    tables are built whole; when search_words has no record of what its postings were
    built from, it is built whole."""
    copy, env, work = _warehouse_copy(two_weeks, "upstream")
    with duckdb.connect(str(copy)) as con:
        assert not _numbered_whole(con, "search_names", "name_id")  # the week placed some
        con.execute("update meta.model_versions set code_hash = 'older' where model = 'entities'")
    _dbt(["run", "--select", "search_names search_words"], env, work)
    with duckdb.connect(str(copy)) as con:
        assert _numbered_whole(con, "search_names", "name_id")
        assert _numbered_whole(con, "search_words", "posting_id")
        # placed otherwise, then the record of the postings lost
        con.execute(f"update marts.search_words set posting_id = posting_id + {ID_SPACING // 2}")
        con.execute("drop table meta.search_words__abn_inputs")
    _dbt(["run", "--select", "search_words"], env, work)
    with duckdb.connect(str(copy), read_only=True) as con:
        assert _numbered_whole(con, "search_words", "posting_id")
        (recorded,) = con.execute("select count(*) from meta.search_words__abn_inputs").fetchone()
        (entities,) = con.execute("select count(*) from marts.entities").fetchone()
        assert recorded == entities


def test_the_word_counts_are_taken_again_when_the_weeks_deltas_are_not_known(
    two_weeks: dict,
) -> None:
    """search_word_frequencies adds the postings search_words deleted and appended since
    it last counted (meta.search_words__word_deltas). Without that record, or with the mark
    a whole build of search_words leaves in it, every posting is counted again: a count the
    deltas could not have corrected is corrected."""
    copy, env, work = _warehouse_copy(two_weeks, "word-deltas")
    recount = (
        "select word_code, word, count(*) as name_count,"
        " count(*) filter (where is_legal_name) as legal_name_count"
        " from marts.search_words group by all"
    )
    differing = f"select count(*) from (({recount}) except all (select * from marts.search_word_frequencies))"
    for lose_the_record in (
        "drop table meta.search_words__word_deltas",
        "insert into meta.search_words__word_deltas values (null, null, null, null)",
    ):
        with duckdb.connect(str(copy)) as con:
            assert con.execute(differing).fetchone() == (0,)
            con.execute("update marts.search_word_frequencies set name_count = name_count + 1")
            con.execute(lose_the_record)
        log = _dbt(["run", "--select", "search_word_frequencies"], env, work)
        assert "words whose postings changed counted again" not in log
        with duckdb.connect(str(copy), read_only=True) as con:
            assert con.execute(differing).fetchone() == (0,), lose_the_record
            assert con.execute(
                "select count(*) from meta.search_words__word_deltas"
            ).fetchone() == (0,)
    # with the record, the counts move by its deltas alone
    with duckdb.connect(str(copy)) as con:
        con.execute(
            "insert into meta.search_words__word_deltas"
            " select word_code, word, -name_count, -legal_name_count"
            " from marts.search_word_frequencies where word = (select min(word) from marts.search_word_frequencies)"
        )
        (words,) = con.execute("select count(*) from marts.search_word_frequencies").fetchone()
    log = _dbt(["run", "--select", "search_word_frequencies"], env, work)
    assert "search_word_frequencies: 1 words whose postings changed counted again" in log
    with duckdb.connect(str(copy), read_only=True) as con:
        # the word no name holds any more is gone
        assert con.execute("select count(*) from marts.search_word_frequencies").fetchone() == (
            words - 1,
        )


def test_a_match_table_is_built_whole_when_its_abn_side_may_be_behind(two_weeks: dict) -> None:
    """A week's match table takes the ABNs int_matching__abn_inputs stamped since the table
    was built. When a model that hashes was built after it (a build that left it out), or
    it was built whole since (every stamp new, the ABNs gone forgotten), the table cannot
    tell which ABNs changed and is built whole; once the ABN side is built again after them,
    a build matches again only what changed: nothing, on the same files."""
    _, env, work = _warehouse_copy(two_weeks, "abn-side")
    nothing = re.compile(r"match_gazette: 0 of \d+ records and 0 of \d+ ABNs to match again")

    def run(*args: str) -> str:
        return _dbt(["run", *args], env, work)

    run("--select", "match_gazette")  # whole: the copy's catalog name is in its compiled SQL
    assert nothing.search(run("--select", "match_gazette"))
    run("--select", "entities")
    behind = "match_gazette: int_matching__abn_inputs is older than what it hashes: a whole build"
    assert behind in run("--select", "match_gazette")
    assert nothing.search(run("--select", "int_matching__abn_inputs match_gazette"))
    run("--full-refresh", "--select", "int_matching__abn_inputs")
    rebuilt = "match_gazette: int_matching__abn_inputs was built whole since: a whole build"
    assert rebuilt in run("--select", "match_gazette")
    assert nothing.search(run("--select", "match_gazette"))


def test_a_match_table_reads_the_weeks_names_only_when_they_stand(two_weeks: dict) -> None:
    """A week's pass of a match table against its changed ABNs reads their names from
    int_matching__changed_abn_names (one scan of entity_names a week, not one per match
    table) only when that table was built after entity_names and int_matching__abn_inputs
    and holds every ABN the pass matches again; otherwise from entity_names."""
    copy, env, work = _warehouse_copy(two_weeks, "abn-names")

    def run(*args: str) -> str:
        return _dbt(["run", *args], env, work)

    def rename(rank: int) -> None:  # one ABN's names change: int_matching__abn_inputs stamps it
        with duckdb.connect(str(copy)) as con:
            con.execute(
                "update marts.entity_names set name = name || ' PTY'"
                " where abn = (select abn from (select distinct abn from marts.entity_names)"
                f" order by abn limit 1 offset {rank})"
            )

    one = re.compile(r"match_gazette: 0 of \d+ records and 1 of \d+ ABNs to match again")
    run("--select", "match_gazette")  # whole: the copy's catalog name is in its compiled SQL
    rename(0)
    run("--select", "int_matching__abn_inputs")
    log = run("--select", "match_gazette")
    assert "match_gazette: int_matching__changed_abn_names is older than what it is made of" in log
    assert one.search(log) and "their rows read from" not in log
    rename(1)
    run("--select", "int_matching__abn_inputs int_matching__changed_abn_names")
    log = run("--select", "match_gazette")
    assert one.search(log) and ", their rows read from int_matching__changed_abn_names" in log
    rename(2)
    run("--select", "int_matching__abn_inputs int_matching__changed_abn_names")
    with duckdb.connect(str(copy)) as con:
        con.execute(
            "delete from intermediate.int_matching__changed_abn_names where abn ="
            " (select abn from intermediate.int_matching__abn_inputs order by changed_at desc limit 1)"
        )
    log = run("--select", "match_gazette")
    assert "match_gazette: int_matching__changed_abn_names lacks 1 of the changed ABNs" in log
    assert one.search(log) and "their rows read from" not in log


def _dbt_test(tests: list[str], env: dict[str, str], work: Path) -> set[str]:
    """`dbt test` of ``tests``: the names of those that failed."""
    folders = ["--project-dir", str(DBT_PROJECT), "--profiles-dir", str(DBT_PROJECT)]
    folders += ["--target-path", str(work / "target"), "--log-path", str(work / "logs")]
    result = subprocess.run(
        [DBT, "test", "--select", " ".join(tests), *folders],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    failed = set(re.findall(r"FAIL \d+ (\w+)", result.stdout))
    assert result.returncode == (1 if failed else 0), result.stdout[-4000:] + result.stderr[-2000:]
    return failed


def test_a_weeks_tests_check_the_rows_it_wrote(two_weeks: dict) -> None:
    """The week's passed build forgot what its models wrote; a build that rewrites three
    ABNs records them, and a test of a model the run scopes (BVS_TESTS_SCOPED) checks their
    rows: a duplicate of a written row fails it, and so does a kept row that repeats a
    written row's id; a duplicate among kept rows alone is found only by a whole check."""
    with duckdb.connect(str(two_weeks["data"] / "warehouse.duckdb"), read_only=True) as con:
        records = con.execute(
            "select table_name from duckdb_tables()"
            " where schema_name = 'meta' and table_name like '%\\_\\_written\\_keys' escape '\\'"
        ).fetchall()
    assert records == []

    # a copy of the same file name: the compiled SQL names the catalog, and another name
    # would make the models' recorded code differ (a whole build)
    work = two_weeks["root"] / "dbt-tests"
    work.mkdir()
    copy = work / "warehouse.duckdb"
    shutil.copyfile(two_weeks["data"] / "warehouse.duckdb", copy)
    env = {**two_weeks["env"], "BVS_WAREHOUSE": str(copy), "BVS_AS_OF": NEXT_WEEK}
    with duckdb.connect(str(copy)) as con:
        abns = [
            abn
            for (abn,) in con.execute(
                "select distinct abn from marts.search_names order by abn limit 3"
            ).fetchall()
        ]
        kept = con.execute(
            "select abn from marts.search_names where abn not in (select unnest($abns))"
            " order by abn desc limit 1",
            {"abns": abns},
        ).fetchone()[0]
        # their inputs as if they had changed: the next build writes their rows again
        con.execute(
            "update marts.entity_names set input_hash = 0 where abn in (select unnest($a))",
            {"a": abns},
        )
        for table in ("search_names", "search_words"):
            con.execute(
                f"update meta.{table}__abn_inputs set input_hash = 0"
                " where abn in (select unnest($a))",
                {"a": abns},
            )
    _dbt(["run", "--select", "entity_names search_names search_words"], env, work)
    with duckdb.connect(str(copy)) as con:
        for table, key in (
            ("entity_names", "key"),
            ("search_names", "key"),
            ("search_words", "cast(key as varchar)"),
        ):
            written = {
                k
                for (k,) in con.execute(f"select {key} from meta.{table}__written_keys").fetchall()
            }
            assert written == set(abns), table
        # a kept ABN whose legal name differs between the marts
        odd = con.execute(
            "select abn from marts.entity_names where is_legal_name"
            " and abn not in (select unnest($a)) order by abn limit 1",
            {"a": abns},
        ).fetchone()[0]
        con.execute(
            "update marts.entity_names set name = name || ' X' where abn = $abn and is_legal_name",
            {"abn": odd},
        )
        con.execute("create table meta.entities__written_keys (key varchar)")
    # the legal-name check reads the ABNs either mart wrote: not the kept one, until the
    # entities' record holds it
    legal = ["assert_entities_have_exactly_one_legal_name"]
    both = {**env, "BVS_TESTS_SCOPED": "entities,entity_names"}
    assert _dbt_test(legal, both, work) == set()
    with duckdb.connect(str(copy)) as con:
        con.execute("insert into meta.entities__written_keys values ($abn)", {"abn": odd})
    assert _dbt_test(legal, both, work) == set(legal)
    with duckdb.connect(str(copy)) as con:
        con.execute(
            "update marts.entity_names set name = left(name, length(name) - 2)"
            " where abn = $abn and is_legal_name",
            {"abn": odd},
        )
        # a written ABN's entity name twice; a kept ABN's posting with a written posting's
        # id; a kept ABN's search name twice
        con.execute(
            "insert into marts.entity_names select * from marts.entity_names"
            " where abn = $abn limit 1",
            {"abn": abns[0]},
        )
        con.execute(
            "insert into marts.search_words select * replace (cast($kept as bigint) as abn_id)"
            " from marts.search_words where abn_id = cast($abn as bigint) limit 1",
            {"kept": kept, "abn": abns[1]},
        )
        con.execute(
            "insert into marts.search_names select * replace (name_id + 1 as name_id)"
            " from marts.search_names where abn = $kept limit 1",
            {"kept": kept},
        )
    tests = [
        "unique_combination_entity_names_abn__name",
        "unique_search_words_posting_id",
        "unique_combination_search_names_abn__name",
    ]
    scoped = {**env, "BVS_TESTS_SCOPED": "entity_names,search_names,search_words"}
    assert _dbt_test(tests, scoped, work) == set(tests[:2])
    assert _dbt_test(tests, {**env, "BVS_TESTS_SCOPED": ""}, work) == set(tests)
