"""Short summaries for the screen: what a run left, in a few lines; ``bvs status`` and the
run's log hold the rest.

``status_lines`` condenses ``pipelines.status.collect_status``: one line for the sources
(a line more per source that failed, was never loaded or is stale), the headline marts,
the serving snapshot. ``ledger_line`` is one ``bvs ledger run`` summary (its JSON line) in
words. ``python -m pipelines.summary ledgers`` reads ``bvs ledger run``'s output on stdin
and prints a line per ledger (`make run`: the JSON goes to the log).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

# the marts a newcomer looks at first; `bvs status` lists every one
HEADLINE_MARTS = (
    "marts.entities",
    "marts.verifications",
    "marts.risk_flags",
    "marts.phoenix_links",
)


def status_lines(status: dict[str, Any], *, published: bool) -> list[str]:
    """The run's outcome in at most about a dozen lines (more only for sources in trouble)."""
    sources = status["sources"]
    loaded = [s for s in sources if s["status"] == "loaded"]
    extracts = sorted(str(s["extract_date"]) for s in loaded if s["extract_date"])
    span = f", extracts {extracts[0]} to {extracts[-1]}" if extracts else ""
    if extracts and extracts[0] == extracts[-1]:
        span = f", extracts of {extracts[0]}"
    quarantined = sum(s["quarantined"] for s in sources)
    lines = [
        f"warehouse: {status['warehouse']}",
        f"  sources: {len(loaded)} of {len(sources)} loaded{span};"
        f" {quarantined:,} rows quarantined (bvs status: each source)",
    ]
    for s in sources:
        if s["status"] != "loaded" or s["stale"]:
            why = s["status"] + (", STALE" if s["stale"] else "")
            lines.append(f"    {s['source']}: {why}")
    marts = status["marts"]
    if marts:
        matches = sum(n or 0 for t, n in marts.items() if t.startswith("marts.match_"))
        shown = [f"{t.removeprefix('marts.')} {marts[t]:,}" for t in HEADLINE_MARTS if marts.get(t) is not None]  # fmt: skip
        lines.append(f"  marts: {len(marts)} tables; " + ", ".join(shown))
        lines.append(f"  register matches: {matches:,} rows")
    snapshot = status["snapshot"]
    if snapshot:
        state = "published" if published else "current, not republished by this run"
        lines.append(f"serving snapshot ({state}): {snapshot['snapshot_id']}, as of {snapshot['as_of']}")  # fmt: skip
        lines.append(f"  {snapshot['path']}")
    else:
        lines.append("serving snapshot: none published yet")
    return lines


def ledger_line(summary: dict[str, Any]) -> str:
    """One ``bvs ledger run`` summary in words."""
    resolution = summary.get("by_resolution", {})
    risk = summary.get("by_risk_level", {})
    review = resolution.get("needs_review", 0)
    risks = ", ".join(f"{level} {n:,}" for level, n in risk.items())
    return (
        f"  {summary.get('customer')}/{summary.get('ledger')}: {summary.get('suppliers', 0):,} suppliers,"
        f" {resolution.get('verified', 0):,} verified, {review:,} to review; risk {risks or '-'};"
        f" {summary.get('changes', 0):,} changes, {summary.get('alerts', 0):,} alerts"
    )


def ledger_lines(lines: Iterable[str]) -> Iterable[str]:
    """``bvs ledger run``'s output with each JSON summary line put in words."""
    for line in lines:
        text = line.rstrip("\n")
        try:
            summary = json.loads(text)
        except ValueError:
            summary = None
        yield ledger_line(summary) if isinstance(summary, dict) and "suppliers" in summary else text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["ledgers"]:
        print("usage: python -m pipelines.summary ledgers < bvs-ledger-run-output", file=sys.stderr)
        return 2
    for line in ledger_lines(sys.stdin):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
