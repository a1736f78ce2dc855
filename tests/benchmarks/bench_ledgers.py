"""Benchmark: nightly supplier-ledger re-verification against a big serving snapshot.

1. A base: the sample (20,000 ABNs) through the whole pipeline (bench_api's, cached under
   ``.bench/api-base``).
2. A serving snapshot of ``--abns`` ABNs (cached under ``.bench/ledgers-<abns>``): every
   mart a ledger run reads (verifications, entities, entity names, risk flags,
   officeholders, register matches) replicated from the base with new valid ABNs, the check
   and flag catalogues as they are, and the ``CURRENT`` pointer.
   The snapshot's name index (``marts.search_names``, what names without an ABN are
   resolved against) is bench_search's at the same size (the pipeline's own search models
   over names drawn from 20 million generated ones, cached under ``.bench/search-<abns>``).
3. Ledgers of ``--suppliers`` rows, ABNs drawn from the snapshot without repeats within a
   ledger (2 % of them valid ABNs the register does not hold: their ABN status FAILs), names
   as registered (5 % with a word added), states and postcodes, spends and GST flags: one customer with
   one ledger, one with ``--ledgers`` ledgers. A share ``--without-abn`` of the rows has no
   ABN and a name of the name index instead (5 % of them with a word added): import and the
   first run resolve those by name.
4. ``bvs ledger import`` of the first customer's ledger, timed as a whole process.
5. A warm dbt (``bvs dbt-server``, as ``make dev`` starts), then for each customer a first
   ``bvs ledger run`` and ``--repeat`` nightly re-runs on the following days (each compared
   with the night before). For each run: wall time, CPU seconds of every process involved
   (this command and the dbt the warm server forked), and the peak memory of them all.

    python tests/benchmarks/bench_ledgers.py --abns 20000000 --suppliers 100000 --ledgers 10 \
        --without-abn 0.2
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_api  # noqa: E402  (this folder)
import bench_search  # noqa: E402  (this folder)

BENCH = ROOT / ".bench"
BVS = str(Path(sys.executable).with_name("bvs"))
AS_OF = bench_api.AS_OF
REPLICATED = (
    "verifications",
    "entities",
    "entity_names",
    "risk_flags",
    "network_officeholders",
    "match_adverse",
    "match_gazette",
    "match_insolvency",
)
AS_IS = ("checks", "flags")
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _abn_sql(n: str) -> str:
    """A valid ABN from a number (SQL): nine body digits, two check digits in front."""
    body = f"lpad(cast({n} as varchar), 9, '0')"
    weights = (3, 5, 7, 9, 11, 13, 15, 17, 19)
    total = " + ".join(
        f"cast(substr({body}, {i + 1}, 1) as integer) * {w}" for i, w in enumerate(weights)
    )
    return f"cast(10 + ((89 - (({total}) % 89)) % 89) as varchar) || {body}"


def big_snapshot(base: Path, abns: int, search: Path) -> Path:
    """A data folder whose serving snapshot has ``abns`` ABNs and the name index of
    ``search`` (bench_search's snapshot at the same size) (cached)."""
    from pipelines.settings import get_settings
    from pipelines.warehouse.snapshot import current_snapshot

    data = BENCH / f"ledgers-{abns}"
    if (data / "serving" / "CURRENT").exists():
        return data
    shutil.rmtree(data, ignore_errors=True)
    (data / "serving" / "snapshots").mkdir(parents=True)
    info = current_snapshot(get_settings(data_dir=base))
    assert info is not None
    snapshot_id = "20261120T000000000Z-be00"
    path = data / "serving" / "snapshots" / f"{snapshot_id}.duckdb"
    started = time.perf_counter()
    con = duckdb.connect(str(path))
    con.execute("set enable_progress_bar = false")
    con.execute("attach ? as base (read_only)", [str(info.path)])
    base_abns = con.execute("select count(*) from base.marts.verifications").fetchone()[0]
    copies = -(-abns // base_abns)
    # every base ABN, copy c -> a new ABN (body 100,000,000 + c * base + rank: no clash with
    # the sample's own ABNs, whose bodies are drawn below that)
    con.execute(
        f"""
        create temp table abn_map as
        with ranked as (
            select abn, row_number() over (order by abn) - 1 as r from base.marts.verifications
        )
        select ranked.abn as base_abn, copy.range as copy,
            {_abn_sql(f"100000000 + copy.range * {base_abns} + ranked.r")} as abn
        from ranked cross join range({copies}) as copy
        where copy.range * {base_abns} + ranked.r < {abns}
        """
    )
    con.execute("create schema marts")
    con.execute("create schema meta")
    counts = {}
    for table in REPLICATED:
        columns = [
            r[0]
            for r in con.execute(
                "select column_name from information_schema.columns where table_catalog = 'base'"
                " and table_schema = 'marts' and table_name = ? order by ordinal_position",
                [table],
            ).fetchall()
        ]
        select = ", ".join("m.abn as abn" if c == "abn" else f"t.{c}" for c in columns)
        con.execute(
            f"create table marts.{table} as select {select} from base.marts.{table} t"
            " join abn_map m on t.abn = m.base_abn"
        )
        counts[f"marts.{table}"] = con.execute(f"select count(*) from marts.{table}").fetchone()[0]
    for table in AS_IS:
        con.execute(f"create table marts.{table} as select * from base.marts.{table}")
        counts[f"marts.{table}"] = con.execute(f"select count(*) from marts.{table}").fetchone()[0]
    con.execute("attach ? as search (read_only)", [str(search)])
    con.execute("create table marts.search_names as select * from search.marts.search_names")
    counts["marts.search_names"] = con.execute(
        "select count(*) from marts.search_names"
    ).fetchone()[0]
    con.execute(
        "create table meta.snapshot as select ? as snapshot_id, now() as built_at,"
        " cast(? as date) as as_of, ? as row_counts",
        [snapshot_id, AS_OF, json.dumps(counts)],
    )
    con.execute("checkpoint")
    con.close()
    (data / "serving" / "CURRENT").write_text(
        json.dumps(
            {
                "snapshot_id": snapshot_id,
                "file": f"snapshots/{snapshot_id}.duckdb",
                "built_at": dt.datetime.now(dt.UTC).isoformat(),
                "as_of": AS_OF,
                "tables": counts,
                "sidecars": {},
            }
        )
    )
    print(
        f"snapshot of {abns:,} ABNs built in {time.perf_counter() - started:.0f} s: {path}",
        flush=True,
    )
    return data


def write_ledgers(
    folder: Path, data: Path, ledgers: int, suppliers: int, seed: int, without_abn: float
) -> None:
    """``ledgers`` ledger files of ``suppliers`` rows each in ``folder`` (cached)."""
    marker = folder / f".written-{ledgers}-{suppliers}-{without_abn}"
    if marker.exists():
        return
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    pointer = json.loads((data / "serving" / "CURRENT").read_text())
    con = duckdb.connect(str(data / "serving" / pointer["file"]), read_only=True)
    try:
        total = con.execute("select count(*) from marts.entities").fetchone()[0]
        for i in range(ledgers):
            con.execute(f"select setseed({(seed * 1000 + i) / 1e6})").fetchall()
            frame = con.sql(
                f"""
                with unresolved as (
                    select name, row_number() over () as n
                    from (
                        select name from marts.search_names
                        using sample {max(int(suppliers * without_abn), 1)} rows (reservoir, {seed * 100 + i})
                    )
                ),
                picked as (
                    select * from marts.entities using sample {suppliers} rows (reservoir, {seed * 100 + i})
                ),
                numbered as (
                    select *, row_number() over (order by abn) as n, random() as u from picked
                )
                select
                    'S' || lpad(cast(numbered.n as varchar), 7, '0') as supplier_ref,
                    case
                        when numbered.n <= {int(suppliers * without_abn)} then ''
                        when u < 0.02 then {_abn_sql("900000000 + numbered.n")}  -- a valid ABN the register does not hold
                        when u < 0.32 then substr(abn, 1, 2) || ' ' || substr(abn, 3, 3) || ' ' || substr(abn, 6, 3) || ' ' || substr(abn, 9)
                        else abn
                    end as abn,
                    case when u > 0.95 then coalesce(unresolved.name, legal_name) || ' SERVICES'
                        else coalesce(unresolved.name, legal_name) end as supplier_name,
                    '' as domain, '' as email, '' as phone,
                    coalesce(state, '') as state,
                    case when u > 0.9 and postcode is not null then lpad(cast((cast(postcode as integer) + 3) % 10000 as varchar), 4, '0') else coalesce(postcode, '') end as postcode,
                    '$' || format('{{:,.2f}}', round(exp(9.5 + 1.4 * (random() + random() + random() - 1.5)), 2)) as annual_spend_aud,
                    case when u < 0.6 then 'Y' else 'N' end as gst_charged
                from numbered
                left join unresolved
                    on numbered.n = unresolved.n and numbered.n <= {int(suppliers * without_abn)}
                order by numbered.n
                """
            ).pl()
            frame.write_csv(folder / f"ledger-{i + 1:02d}.csv")
        assert total >= suppliers
    finally:
        con.close()
    marker.touch()


class TreeSampler:
    """Peak total RSS of this process's descendants and of the dbt server's tree, and the CPU
    of the server's descendants (the dbt commands it forks).

    The server ignores SIGCHLD, so the kernel reaps its children and their CPU never reaches
    its own ``cutime``: it is read from each descendant's /proc/<pid>/stat while it runs
    (the last sample of each, at most 0.1 s before it ends)."""

    def __init__(self, roots: list[int], server: int) -> None:
        self.roots = roots
        self.server = server
        self.peak = 0
        self.server_children_cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _children() -> dict[int, list[int]]:
        tree: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                tree.setdefault(ppid, []).append(int(entry))
        return tree

    def _server_children(self, tree: dict[int, list[int]]) -> None:
        stack = list(tree.get(self.server, []))
        while stack:
            pid = stack.pop()
            stack.extend(tree.get(pid, []))
            with contextlib.suppress(OSError):
                self.server_children_cpu[pid] = _cpu_of(pid, own=True)

    def _rss(self) -> int:
        tree = self._children()
        self._server_children(tree)
        seen, stack, total = set(), list(self.roots), 0
        while stack:
            pid = stack.pop()
            if pid in seen:
                continue
            seen.add(pid)
            stack.extend(tree.get(pid, []))
            if pid == os.getpid():
                continue
            with contextlib.suppress(OSError):
                total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._rss())
            time.sleep(0.1)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _cpu_of(pid: int, *, own: bool = False) -> float:
    """User + system seconds of a process and its waited-for children (``own``: of the
    process alone)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11 : 13 if own else 15]) / TICK


def timed_run(env: dict[str, str], server: int, customer: str, day: str) -> dict[str, float]:
    cpu_before = _cpu_of(server)
    children_before = os.times()
    started = time.perf_counter()
    with TreeSampler([os.getpid(), server], server) as sampler:
        result = subprocess.run(
            [BVS, "ledger", "run", "--customer", customer, "--as-of", day],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
    wall = time.perf_counter() - started
    children_after = os.times()
    if result.returncode != 0:
        raise SystemExit(f"bvs ledger run failed:\n{result.stdout}\n{result.stderr[-5000:]}")
    summaries = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(s["recorded"] for s in summaries), summaries
    cpu = (
        (children_after.children_user - children_before.children_user)
        + (children_after.children_system - children_before.children_system)
        + (_cpu_of(server) - cpu_before)
        + sum(sampler.server_children_cpu.values())
    )
    return {
        "wall": wall,
        "cpu": cpu,
        "peak_gb": sampler.peak / 1e9,
        "suppliers": sum(s["suppliers"] for s in summaries),
        "changes": sum(s["changes"] for s in summaries),
    }


def timed_import(env: dict[str, str], file: Path, customer: str) -> dict[str, float]:
    """``bvs ledger import`` of ``file`` as a whole process: wall, CPU, peak memory."""
    children_before = os.times()
    started = time.perf_counter()
    with TreeSampler([os.getpid()], os.getpid()) as sampler:
        result = subprocess.run(
            [BVS, "ledger", "import", str(file), "--customer", customer, "--name", file.stem],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
    wall = time.perf_counter() - started
    children_after = os.times()
    if result.returncode != 0:
        raise SystemExit(f"bvs ledger import failed:\n{result.stdout}\n{result.stderr[-5000:]}")
    summary = json.loads(result.stdout.splitlines()[-1])
    return {
        "wall": wall,
        "cpu": (children_after.children_user - children_before.children_user)
        + (children_after.children_system - children_before.children_system),
        "peak_gb": sampler.peak / 1e9,
        "resolved_by_name": summary.get("resolved_by_name", 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--abns", type=int, default=20_000_000)
    parser.add_argument("--suppliers", type=int, default=100_000)
    parser.add_argument(
        "--ledgers",
        type=int,
        default=10,
        help="the second customer's ledgers (0: one customer only)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="nightly re-runs after the first")
    parser.add_argument(
        "--without-abn", type=float, default=0.2,
        help="the share of each ledger's rows with no ABN, resolved by name",
    )  # fmt: skip
    args = parser.parse_args()

    base = bench_api.base_snapshot()
    data = big_snapshot(base, args.abns, bench_search.build(args.abns))
    work = BENCH / f"ledgers-run-{args.abns}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    customers = {"bench-one": 1, "bench-ten": args.ledgers}
    if not args.ledgers:
        del customers["bench-ten"]
    files = BENCH / f"ledger-files-{args.abns}"
    for customer, count in customers.items():
        write_ledgers(
            files / customer, data, count, args.suppliers,
            seed=7 if customer == "bench-one" else 11, without_abn=args.without_abn,
        )  # fmt: skip
    landing = data / "landing" / "ledgers"
    shutil.rmtree(landing, ignore_errors=True)
    if "bench-ten" in customers:
        shutil.copytree(
            files / "bench-ten", landing / "bench-ten", ignore=shutil.ignore_patterns(".*")
        )
    env = {
        **os.environ,
        "BVS_DATA_DIR": str(data),
        "BVS_WAREHOUSE_PATH": str(work / "warehouse.duckdb"),
        "BVS_LEDGER_DIR": str(work / "history"),
        "BVS_STATE_URL": f"sqlite:///{work / 'state.sqlite'}",
        "DAGSTER_HOME": str(work / "dagster_home"),
        "CI": "true",
    }
    socket = work / "dbt.sock"
    server = subprocess.Popen(
        [BVS, "dbt-server", "--socket", str(socket)], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdout is not None and server.stdout.readline().startswith("dbt server")
    env["BVS_DBT_SERVER"] = str(socket)
    log = BENCH / "bench_ledgers.log"
    lines = []
    try:
        imported = timed_import(env, files / "bench-one" / "ledger-01.csv", "bench-one")
        line = (
            f"bench-one  import of {args.suppliers:,} rows"
            f" ({int(args.suppliers * args.without_abn):,} without an ABN)"
            f" wall {imported['wall']:6.1f} s  cpu {imported['cpu']:6.1f} s"
            f"  peak {imported['peak_gb']:5.2f} GB  resolved by name {imported['resolved_by_name']:,}"
        )
        print(line, flush=True)
        lines.append(line)
        for customer, count in customers.items():
            first = dt.date.fromisoformat(AS_OF)
            results = []
            for n in range(args.repeat + 1):
                day = (first + dt.timedelta(days=n)).isoformat()
                r = timed_run(env, server.pid, customer, day)
                kind = "first run" if n == 0 else "nightly re-run"
                line = (
                    f"{customer:<10} {count:>2} ledger(s) {r['suppliers']:>9,} suppliers {day} {kind:<14}"
                    f" wall {r['wall']:6.1f} s  cpu {r['cpu']:6.1f} s  peak {r['peak_gb']:5.2f} GB"
                    f"  changes {r['changes']:,}"
                )
                print(line, flush=True)
                lines.append(line)
                results.append(r)
            nightly = results[1:] or results
            summary = (
                f"{customer}: {results[0]['suppliers']:,} suppliers against {args.abns:,} ABNs:"
                f" nightly re-run median wall {statistics.median(r['wall'] for r in nightly):.1f} s,"
                f" cpu {statistics.median(r['cpu'] for r in nightly):.1f} s,"
                f" peak {max(r['peak_gb'] for r in results):.2f} GB"
                f" (first run {results[0]['wall']:.1f} s)"
            )
            print(summary, flush=True)
            lines.append(summary)
    finally:
        server.terminate()
        server.communicate(timeout=60)
        log.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
