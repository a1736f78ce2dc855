"""Would rapidfuzz serve the invoice-name review? (docs/matching.md, "rapidfuzz")

The review (docs/decisions/13-invoice-name.md, docs/ledgers.md) scores an invoice name against every
current name of its ABN with pg_trgm similarity after normalisation (docs/decisions/08-similarity.md)
and bands the best: below 0.5 FAIL, 0.5 to 0.9 WARN, 0.9 and up PASS. This compares, on the
sample's supplier ledgers against the built warehouse, the band pg_trgm gives with the band
each of rapidfuzz's scorers gives (score / 100, same thresholds), and times both scorers.

    .tools/bin/uv run --with rapidfuzz==3.14.6 python tests/benchmarks/compare_rapidfuzz.py

rapidfuzz is not a dependency of the project: this script is the measured reason.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import duckdb
import polars as pl

from pipelines.ledgers.intake import read_ledger
from pipelines.matching import normalise_name, trigram_similarity
from pipelines.settings import get_settings


def band(score: float) -> str:
    return "FAIL" if score < 0.5 else ("PASS" if score >= 0.9 else "WARN")


def main() -> int:
    try:
        from rapidfuzz import fuzz
    except ImportError:
        print(__doc__)
        return 2
    settings = get_settings()
    frames = [
        read_ledger(path).rows.select("abn", pl.col("supplier_name").alias("name"))
        for path in sorted((settings.landing_dir / "ledgers").rglob("*"))
        if path.suffix in {".csv", ".xlsx"} and "replaced" not in path.parts
    ]
    rows = pl.concat(frames).drop_nulls().to_dicts()
    with duckdb.connect(str(settings.warehouse), read_only=True) as con:
        names: dict[str, list[str]] = {}
        for abn, name in con.execute(
            "select abn, name from marts.entity_names where name_kind in"
            " ('legal', 'trading', 'business_name') and name_normalised is not null"
        ).fetchall():
            names.setdefault(abn, []).append(normalise_name(name) or "")
    pairs = [(normalise_name(r["name"]) or "", names[r["abn"]]) for r in rows if r["abn"] in names]
    scorers = {
        "pg_trgm (the contract's)": lambda a, b: trigram_similarity(a, b),
        "rapidfuzz ratio": lambda a, b: fuzz.ratio(a, b) / 100,
        "rapidfuzz token_sort_ratio": lambda a, b: fuzz.token_sort_ratio(a, b) / 100,
        "rapidfuzz token_set_ratio": lambda a, b: fuzz.token_set_ratio(a, b) / 100,
        "rapidfuzz partial_ratio": lambda a, b: fuzz.partial_ratio(a, b) / 100,
    }
    bands = {}
    print(
        f"{len(pairs)} ledger rows with an ABN in the warehouse, {sum(map(len, (p[1] for p in pairs)))} name pairs"
    )
    for label, scorer in scorers.items():
        start = time.perf_counter()
        for _ in range(20):
            best = [max(scorer(invoice, n) for n in candidates) for invoice, candidates in pairs]
        seconds = (time.perf_counter() - start) / 20
        bands[label] = [band(s) for s in best]
        print(
            f"  {label:<30} {seconds * 1e6 / len(pairs):7.1f} us a row  bands {dict(Counter(bands[label]))}"
        )
    reference = bands["pg_trgm (the contract's)"]
    for label, got in bands.items():
        moved = Counter((a, b) for a, b in zip(reference, got, strict=True) if a != b)
        share = sum(moved.values()) / len(reference)
        print(f"  {label:<30} differs from pg_trgm on {share:6.1%} of rows {dict(moved)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    raise SystemExit(main())
