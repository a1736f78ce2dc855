"""The weekly refresh end to end at a given scale: every source's load, dbt's build, the
publish; wall time, CPU time and peak memory of each stage, then the disk it left.

    python tests/benchmarks/bench_full.py --scale 2000000        (make bench-full SCALE=...)

1. Landing files for every source from the sample generator (``bvs sample --scale``), cached
   under ``.bench/full-<scale>/landing`` between runs.
2. A new data folder (``.bench/full-<scale>/run``, the landing files linked in), then the
   pipeline as the weekly schedule runs it (``bvs_everything``: every source, the dbt build,
   the publish), one stage a ``bvs run --select ...`` process so that each is measured on
   its own: each source's load (``key:raw/<table>``: its tables load together), the dbt
   build (every model, snapshot and test; per layer and the slowest models from dbt's
   line for each node in the run's log), the publish (the snapshot with its verify lookup, then the
   alerts).
3. Per stage: wall seconds, CPU seconds (user + system of the stage's process and every
   process it started and waited for: parse workers, dbt) and the peak resident memory of
   the largest of those processes (``wait4``'s rusage); the machine's load average beside
   each, since the machine is shared.
4. At the end: the disk used by ``warehouse.duckdb``, the raw layer (``data/raw``, Parquet)
   and the kept snapshots (``data/serving``).
5. The next week (unless ``--no-next-week``, ``--second-run`` or ``--second-only``): the
   following week's landing files written from the first week's (``bvs sample --next-week
   --change``, default one record in two hundred: the ABR and company extracts republished
   with that share changed, new ABNs and companies, new gazette notices and adverse
   records; docs/sample-generator.md), cached under ``.bench/full-<scale>/next-<change>``,
   the data folder's links moved to them, and the same stages again at the next as-of date,
   labelled ``next week:``. ``--weeks N`` runs N weeks in a row, each the next week of the
   one before (``week 3:``, ...), with the disk after each week. ``--one-run`` runs each
   week as the schedule does instead: one ``bvs run`` process for every load, the dbt build
   and the publish, which pays the start-up once (the stages are then not apart).
6. ``--second-run``: the same pipeline again after only one source's files changed
   (``--changed-source``, default the gazette: its file with its last row gone), to show
   what a weekly run with one changed source costs, a week later (the as-of date moves):
   the dbt build leaves out what that source does not feed and what does not read the date
   (docs/architecture.md, "What a build rebuilds").

Prints one JSON line per stage and a Markdown table at the end (``--out`` writes it to a file).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BENCH = ROOT / ".bench"
BVS = str(Path(sys.executable).with_name("bvs"))
AS_OF = "2026-11-20"
NEXT_WEEK = "2026-11-27"  # the second run's: a week later, as the schedule's next run


def landing_files(scale: int) -> Path:
    landing = BENCH / f"full-{scale}" / "landing"
    marker = landing / ".complete"
    if not marker.exists():
        shutil.rmtree(landing, ignore_errors=True)
        started = time.perf_counter()
        subprocess.run(
            [BVS, "sample", "--out", str(landing), "--scale", str(scale)],
            check=True,
            env={**os.environ, "CI": "true"},
        )
        print(f"generated the landing files at {scale:,} in {time.perf_counter() - started:.0f} s")
        marker.touch()
    return landing


def next_week_files(scale: int, landing: Path, change: float, week: int = 2) -> Path:
    """Week ``week``'s files, the week after ``landing``'s (``bvs sample --next-week``),
    cached like it."""
    out = BENCH / f"full-{scale}" / (f"next-{change:g}" + ("" if week == 2 else f"-week{week}"))
    marker = out / ".complete"
    if not marker.exists():
        shutil.rmtree(out, ignore_errors=True)
        started = time.perf_counter()
        subprocess.run(
            [
                BVS,
                "sample",
                "--next-week",
                str(landing),
                "--out",
                str(out),
                "--change",
                str(change),
            ],
            check=True,
            env={**os.environ, "CI": "true"},
        )
        print(f"wrote week {week} at {scale:,} in {time.perf_counter() - started:.0f} s")
        marker.touch()
    return out


def link_landing(data: Path, landing: Path) -> None:
    """``data/landing/<source>`` as links to ``landing``'s folders (replacing older links)."""
    (data / "landing").mkdir(parents=True, exist_ok=True)
    for folder in landing.iterdir():
        if folder.is_dir() and not folder.name.startswith("_"):
            link = data / "landing" / folder.name
            if link.is_symlink():
                link.unlink()
            link.symlink_to(folder)


def _env(data: Path) -> dict[str, str]:
    return {
        **os.environ,
        "BVS_DATA_DIR": str(data),
        "BVS_WAREHOUSE_PATH": str(data / "warehouse.duckdb"),
        "DAGSTER_HOME": str(data.parent / "dagster_home"),
        "CI": "true",
    }


def measured(
    name: str, command: list[str], env: dict[str, str], log: Path, ok: tuple[int, ...] = (0,)
) -> dict:
    """Run ``command``; its wall and CPU time and the peak memory of its largest process."""
    started = time.perf_counter()
    with log.open("a") as out:
        out.write(f"\n### {name}: {' '.join(command)}\n")
        out.flush()
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if process.returncode not in ok:
        raise SystemExit(f"{name} failed ({process.returncode}): see {log}")
    return {
        "stage": name,
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "load": round(os.getloadavg()[0], 1),
    }


# dbt's line for each node it ran, in the run's log: "12 of 328 OK created sql table model
# marts.verifications .... [OK in 41.20s]" ("PASS <test>", "OK loaded seed file ...", a unit
# test as "PASS <model>::<test>"). The dbt resource passes --no-write-json, so there is no
# run_results.json to read.
_NODE_LINE = re.compile(
    r"^\d+ of \d+ (?P<status>[A-Z]+)\S* (?P<what>.*?) \.*\s*\[.*? in (?P<seconds>[\d.]+)s\]"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def dbt_breakdown(project: Path, logs: Path, since: float) -> dict:
    """Seconds by kind and layer and the slowest nodes, from dbt's lines in the logs of the
    runs that started since ``since`` (``bvs run`` writes its whole output there)."""
    layers: dict[str, float] = {}
    nodes: list[tuple[float, str]] = []
    found = [p for p in logs.glob("bvs-run-*.log") if p.stat().st_mtime >= since]
    for path in found:
        for raw in path.read_text(errors="replace").splitlines():
            match = _NODE_LINE.match(_ANSI.sub("", raw).strip())
            if match is None:
                continue
            what, seconds = match["what"], float(match["seconds"])
            name = what.rsplit(" ", 1)[-1]
            if " model " in f" {what} ":
                name = name.rsplit(".", 1)[-1]
                layer = f"models: {_layer_of(project, f'model.bvs.{name}') or 'other'}"
            elif "seed" in what:
                layer = "seeds"
            elif "snapshot" in what:
                layer = "snapshots"
            elif "::" in what:
                layer = "unit tests"
            else:
                layer = "tests"
            layers[layer] = layers.get(layer, 0.0) + seconds
            nodes.append((seconds, name))
    nodes.sort(reverse=True)
    return {
        "seconds_by_layer": {k: round(v, 1) for k, v in sorted(layers.items())},
        "slowest": [{"node": n, "seconds": round(s, 1)} for s, n in nodes[:10]],
    }


def dagster_steps(home: Path) -> dict:
    """The latest run's seconds by step, from Dagster's own event log in ``home``: the ABR's
    load, the dbt build, the publish (snapshot and alerts), the rest of the run's span (the
    other loads and Dagster's time between steps); and the publish's stages, from the
    serving snapshot's ``seconds`` metadata."""
    import dagster as dg

    with dg.DagsterInstance.from_config(str(home)) as instance:
        records = instance.get_run_records(limit=1)
        if not records:
            return {}
        entries = instance.all_logs(records[0].dagster_run.run_id)
    started: dict[str, float] = {}
    seconds: dict[str, float] = {}
    publish: dict[str, float] = {}
    for entry in entries:
        event = entry.dagster_event
        if event is None:
            continue
        kind, step = event.event_type_value, event.step_key
        if kind == "STEP_START" and step:
            started[step] = entry.timestamp
        elif kind in ("STEP_SUCCESS", "STEP_FAILURE") and step in started:
            seconds[step] = entry.timestamp - started[step]
        elif kind == "ASSET_MATERIALIZATION" and step == "serving__snapshot":
            value = event.step_materialization_data.materialization.metadata.get("seconds")
            publish = dict(value.value) if value is not None else {}
    if not entries:
        return {}
    span = entries[-1].timestamp - entries[0].timestamp
    abr = seconds.get("ingest_abr", 0.0)
    dbt = seconds.get("dbt_models", 0.0)
    published = seconds.get("serving__snapshot", 0.0) + seconds.get("serving__alerts", 0.0)
    return {
        "the ABR's load": round(abr, 1),
        "the other loads and steps": round(span - abr - dbt - published, 1),
        "the dbt build": round(dbt, 1),
        "the publish": round(published, 1),
        "the publish's stages": {k: round(float(v), 1) for k, v in publish.items()},
    }


_MANIFEST: dict[str, str] = {}


def _layer_of(project: Path, unique_id: str) -> str | None:
    if not _MANIFEST:
        manifest = json.loads((project / "target" / "manifest.json").read_text())
        for node_id, node in manifest.get("nodes", {}).items():
            fqn = node.get("fqn", [])
            if len(fqn) > 1:
                _MANIFEST[node_id] = fqn[1]
    return _MANIFEST.get(unique_id)


def disk(path: Path) -> int:
    """Bytes the files under ``path`` take on disk (a file linked twice counted once)."""
    if path.is_file():
        return path.stat().st_size
    seen: set[tuple[int, int]] = set()
    total = 0
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            st = p.stat()
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_size
    return total


def disk_now(data: Path) -> dict[str, int]:
    return {
        "warehouse.duckdb": disk(data / "warehouse.duckdb"),
        "raw layer (data/raw)": disk(data / "raw"),
        "kept snapshots (data/serving)": disk(data / "serving"),
    }


def week_label(week: int) -> str:
    return "" if week == 1 else "next week: " if week == 2 else f"week {week}: "


def weekly_run(
    data: Path, log: Path, label: str, as_of: str = AS_OF, *, one_run: bool = False
) -> list[dict]:
    from pipelines.ingest.sources import SOURCES

    env = _env(data)
    # what every `bvs run` costs before its first step (Dagster's definitions, the dbt
    # manifest): a selection that matches nothing (exit 2). Each stage below pays it once;
    # the weekly schedule pays it once for all.
    stages = [
        measured(
            f"{label}bvs run start-up alone",
            [BVS, "run", "--as-of", as_of, "--select", "key:raw/no_such_table"],
            env,
            log,
            ok=(2,),
        )
    ]
    print(json.dumps(stages[0]), flush=True)
    project = ROOT / "dbt_project"
    if one_run:
        # the week as the schedule runs it: every load, the dbt build and the publish in
        # one process, which pays the start-up once
        since = time.time()
        week = measured(f"{label}the week as one run", [BVS, "run", "--as-of", as_of], env, log)
        week["dbt"] = dbt_breakdown(project, data / "logs", since)
        week["steps"] = dagster_steps(data.parent / "dagster_home")
        print(json.dumps(week), flush=True)
        return [*stages, week]
    for source in SOURCES.values():
        if not (data / "landing" / source.folder).exists():
            continue
        table = next(iter(source.tables.values())).name
        stage = measured(
            f"{label}load {source.name}",
            [BVS, "run", "--as-of", as_of, "--select", f"key:raw/{table}"],
            env,
            log,
        )
        print(json.dumps(stage), flush=True)
        stages.append(stage)
    since = time.time()
    build = measured(
        f"{label}dbt build",
        [BVS, "run", "--as-of", as_of, "--select", "not group:ingest and not group:publish"],
        env,
        log,
    )
    build["dbt"] = dbt_breakdown(project, data / "logs", since)
    print(json.dumps(build), flush=True)
    stages.append(build)
    publish = measured(
        f"{label}publish",
        [BVS, "run", "--as-of", as_of, "--select", "group:publish"],
        env,
        log,
    )
    print(json.dumps(publish), flush=True)
    stages.append(publish)
    return stages


def table(
    scale: int, stages: list[dict], sizes: dict[str, int], weekly: list[dict[str, int]] = ()
) -> str:
    lines = [
        f"Weekly refresh at {scale:,} ABNs (`python tests/benchmarks/bench_full.py --scale {scale}`)",
        "",
        "| stage | wall s | CPU s | peak RSS MB | load avg |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for s in stages:
        lines.append(
            f"| {s['stage']} | {s['wall_s']} | {s['cpu_s']} | {s['peak_rss_mb']} | {s['load']} |"
        )
    later = tuple(p for p in (*(week_label(w) for w in range(2, 10)), "second: "))
    totals = [("first run", ""), ("second run", "second: ")]
    totals += [(week_label(w).rstrip(": "), week_label(w)) for w in range(2, 10)]
    for label, prefix in totals:
        runs = [
            s
            for s in stages
            if s["stage"].startswith(prefix)
            and (prefix or not s["stage"].startswith(later))
            and not s["stage"].endswith("start-up alone")
        ]
        if runs:
            lines.append(
                f"| **{label}, total** | {sum(s['wall_s'] for s in runs):.0f} |"
                f" {sum(s['cpu_s'] for s in runs):.0f} | {max(s['peak_rss_mb'] for s in runs)} | |"
            )
    for s in stages:
        if s.get("steps"):
            steps = dict(s["steps"])
            inside = steps.pop("the publish's stages", {})
            lines += ["", f"{s['stage']}, Dagster's step seconds:", ""]
            lines += [f"* {k}: {v}" for k, v in steps.items()]
            if inside:
                lines.append(
                    "* the publish's stages: " + ", ".join(f"{k} {v}" for k, v in inside.items())
                )
        if "dbt" in s:
            lines += ["", f"{s['stage']}, dbt seconds by kind and layer (summed over threads):", ""]
            lines += [f"* {k}: {v}" for k, v in s["dbt"]["seconds_by_layer"].items()]
            lines += ["", "slowest nodes:", ""]
            lines += [f"* {n['node']}: {n['seconds']} s" for n in s["dbt"]["slowest"]]
    lines += ["", "Disk after the run:", ""]
    lines += [f"* {k}: {v / 1e9:.2f} GB" for k, v in sizes.items()]
    if len(weekly) > 1:
        first = weekly[0]["warehouse.duckdb"]
        lines += [
            "",
            "Disk after each week (GB; warehouse / its size after week 1):",
            "",
            "| week | " + " | ".join(weekly[0]) + " | warehouse / week 1 |",
            "| --- |" + " ---: |" * (len(weekly[0]) + 1),
        ]
        for week, sizes_then in enumerate(weekly, 1):
            cells = " | ".join(f"{v / 1e9:.3f}" for v in sizes_then.values())
            lines.append(f"| {week} | {cells} | {sizes_then['warehouse.duckdb'] / first:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=int(os.environ.get("SCALE", 2_000_000)))
    parser.add_argument("--second-run", action="store_true", help="then one changed source")
    parser.add_argument(
        "--changed-source",
        default="gazette",
        help="the landing folder whose CSV files lose their last row for the second run",
    )
    parser.add_argument(
        "--second-only",
        action="store_true",
        help="only the second run, on the data folder the last run of this scale left",
    )
    parser.add_argument(
        "--change",
        type=float,
        default=0.005,
        help="the next week's share of ABR and company records changed (default 0.005)",
    )
    parser.add_argument(
        "--no-next-week", action="store_true", help="the first week only, no realistic next week"
    )
    parser.add_argument(
        "--weeks",
        type=int,
        default=2,
        help="weeks in a row, each the realistic next week of the one before (default 2)",
    )
    parser.add_argument(
        "--one-run",
        action="store_true",
        help="each week as one `bvs run` (the schedule's process), not a process per stage",
    )
    parser.add_argument("--out", type=Path, help="write the Markdown table here too")
    args = parser.parse_args()
    landing = landing_files(args.scale)
    root = BENCH / f"full-{args.scale}"
    data = root / "run"
    log = root / "bench_full.log"
    stages: list[dict] = []
    weekly: list[dict[str, int]] = []
    if not args.second_only:
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(root / "dagster_home", ignore_errors=True)
        link_landing(data, landing)
        log.write_text("")
        stages = weekly_run(data, log, "", one_run=args.one_run)
        weekly.append(disk_now(data))
        weeks = 1 if (args.no_next_week or args.second_run) else args.weeks
        previous = landing
        for week in range(2, weeks + 1):
            previous = next_week_files(args.scale, previous, args.change, week)
            link_landing(data, previous)
            as_of = (date.fromisoformat(AS_OF) + timedelta(days=7 * (week - 1))).isoformat()
            stages += weekly_run(data, log, week_label(week), as_of, one_run=args.one_run)
            weekly.append(disk_now(data))
            print(json.dumps({"week": week, "disk": weekly[-1]}), flush=True)
    elif not (data / "serving" / "CURRENT").exists():
        raise SystemExit(f"--second-only: no published first run in {data}")
    if args.second_run or args.second_only:
        changed = data / "landing" / args.changed_source
        if changed.is_symlink():  # a copy of that one source, its last row gone
            changed.unlink()
            shutil.copytree(landing / args.changed_source, changed)
            for csv in changed.glob("*.csv"):
                lines = csv.read_bytes().rstrip(b"\n").split(b"\n")
                csv.write_bytes(b"\n".join(lines[:-1]) + b"\n")
        stages += weekly_run(data, log, "second: ", NEXT_WEEK)
    sizes = disk_now(data)
    text = table(args.scale, stages, sizes, weekly)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
