"""A ledger's rows as suppliers: each one verified, resolved by name, or needing review.

* **verified**: the row has a usable ABN (11 digits, check digit right) and nothing else to
  review; it is verified by that ABN (an ABN the register does not hold is verified too:
  its ABN status FAILs as "not found").
* **resolved_by_name**: no ABN given, and exactly one registered business has a name at
  least 0.9 similar to the supplier name (``pipelines.ledgers.resolve``); verified by that
  ABN.
* **needs_review**: anything a finance person must look at, with the reasons: an ABN that
  cannot be used (check digit, not 11 digits, a spreadsheet's number, a cell the spreadsheet
  broke, an ACN: its company's ABN is offered as a candidate), no ABN and no name,
  a name that matches several businesses or none (with the closest candidates), a
  duplicate supplier_ref, the same ABN twice, an unknown state, an unreadable amount or
  yes/no, any other cell the spreadsheet broke. A row whose ABN is still usable (a duplicate, an unknown state) is verified all the
  same, so its tiles are there when it is reviewed.

``supplier_key`` follows a supplier from run to run: its supplier_ref, or for a row without
one (or a repeated one) ``#line<n>``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import polars as pl

from pipelines.ledgers.intake import LEDGER_ROW_FIELDS, UNUSABLE_ABN, ParsedLedger
from pipelines.ledgers.resolve import NameResolution

RESOLUTIONS = ("verified", "resolved_by_name", "needs_review")
NO_SNAPSHOT_REASON = (
    "no ABN, and no serving snapshot is published yet to find the supplier by name"
    " (it is looked up at the next run)"
)


def names_to_resolve(parsed: ParsedLedger) -> list[str]:
    """Supplier names of rows without a usable ABN (found by name, or offered as
    candidates beside an ABN that cannot be used)."""
    rows = parsed.rows.filter(pl.col("abn").is_null() & pl.col("supplier_name").is_not_null())
    return list(dict.fromkeys(rows["supplier_name"].to_list()))


def acns_to_resolve(parsed: ParsedLedger) -> list[str]:
    """ACNs given in the ABN column: their companies are offered as candidates."""
    return sorted(set(parsed.rows["acn"].drop_nulls().to_list()))


def _acn_reason(acn: str, found: list[dict[str, Any]]) -> str:
    if not found:
        return f"no company in the register has the ACN {acn}"
    if len(found) == 1:
        return (
            f"the company with the ACN {acn} has the ABN {found[0]['abn']}: if it is this"
            " supplier, put that ABN in the file"
        )
    abns = ", ".join(c["abn"] for c in found)
    return f"{len(found)} entities have the ACN {acn} (ABNs {abns}): choose one"


def _with_acn_candidates(
    rows: pl.DataFrame, acn_matches: Mapping[str, list[dict[str, Any]]]
) -> pl.DataFrame:
    """Rows with an ACN for an ABN: its company first among the candidates, and what was
    found in the reasons."""
    positions, reasons, candidates = [], [], []
    for row in rows.filter(pl.col("acn").is_not_null()).iter_rows(named=True):
        if row["acn"] not in acn_matches:
            continue
        found = acn_matches[row["acn"]]
        by_name = json.loads(row["candidates"]) if row["candidates"] else []
        seen = {c["abn"] for c in found}
        merged = [*found, *(c for c in by_name if c.get("abn") not in seen)]
        positions.append(row["position"])
        reasons.append([*row["reasons"], _acn_reason(row["acn"], found)])
        candidates.append(json.dumps(merged) if merged else None)
    if not positions:
        return rows
    update = pl.DataFrame(
        {"position": positions, "acn_reasons": reasons, "acn_candidates": candidates},
        schema={"position": pl.UInt32, "acn_reasons": pl.List(pl.String),
                "acn_candidates": pl.String},
    )  # fmt: skip
    joined = rows.join(update, on="position", how="left")
    touched = pl.col("acn_reasons").is_not_null()
    return joined.with_columns(
        reasons=pl.when(touched).then(pl.col("acn_reasons")).otherwise(pl.col("reasons")),
        candidates=pl.when(touched).then(pl.col("acn_candidates")).otherwise(pl.col("candidates")),
    ).drop("acn_reasons", "acn_candidates")


def supplier_rows(
    parsed: ParsedLedger,
    resolutions: Mapping[str, NameResolution] | None,
    acn_matches: Mapping[str, list[dict[str, Any]]] | None = None,
) -> pl.DataFrame:
    """The suppliers of one parsed ledger (see the module notes). ``resolutions`` maps a
    supplier name to what the search found; None when no snapshot could be searched.
    ``acn_matches`` maps an ACN given for an ABN to the entities that have it."""
    found = [
        {
            "supplier_name": name,
            "found_abn": res.abn,
            "found_reason": res.reason,
            "found_candidates": json.dumps(res.candidates) if res.candidates else None,
        }
        for name, res in (resolutions or {}).items()
    ]
    lookup = pl.DataFrame(
        found,
        schema={
            "supplier_name": pl.String,
            "found_abn": pl.String,
            "found_reason": pl.String,
            "found_candidates": pl.String,
        },
    )
    rows = parsed.rows.with_row_index("position").join(
        lookup, on="supplier_name", how="left", maintain_order="left"
    )
    unusable = pl.col("issues").list.eval(pl.element().is_in(UNUSABLE_ABN)).list.any()
    needs_name = pl.col("abn").is_null() & ~unusable & pl.col("supplier_name").is_not_null()
    searched = pl.lit(resolutions is not None)
    name_reason = (
        pl.when(needs_name & ~searched)
        .then(pl.lit(NO_SNAPSHOT_REASON))
        .when(needs_name)
        .then(pl.col("found_reason"))
    )
    resolved = needs_name & pl.col("found_abn").is_not_null()
    rows = rows.with_columns(
        abn=pl.when(resolved).then(pl.col("found_abn")).otherwise(pl.col("abn")),
        reasons=pl.concat_list(
            pl.col("issue_text"),
            pl.when(name_reason.is_not_null())
            .then(pl.concat_list(name_reason))
            .otherwise(pl.lit([], dtype=pl.List(pl.String))),
        ),
        candidates=pl.when(pl.col("abn").is_null()).then(pl.col("found_candidates")),
        is_resolved=resolved,
    )
    if acn_matches:
        rows = _with_acn_candidates(rows, acn_matches)
    first_ref = pl.col("supplier_ref").is_not_null() & ~pl.col("issues").list.contains(
        "duplicate_ref"
    )
    rows = rows.with_columns(
        resolution=pl.when(pl.col("reasons").list.len() > 0)
        .then(pl.lit("needs_review"))
        .when(pl.col("is_resolved"))
        .then(pl.lit("resolved_by_name"))
        .otherwise(pl.lit("verified")),
        supplier_key=pl.when(first_ref)
        .then(pl.col("supplier_ref"))
        .otherwise(pl.format("{}#line{}", pl.col("supplier_ref").fill_null(""), pl.col("line"))),
        review_reason=pl.when(pl.col("reasons").list.len() > 0).then(
            pl.col("reasons").list.join("; ")
        ),
    )
    return rows.select(
        "line",
        "supplier_key",
        "supplier_ref",
        "abn",
        "abn_given",
        "supplier_name",
        *LEDGER_ROW_FIELDS,
        "resolution",
        "review_reason",
        "candidates",
    )


def intake_summary(
    customer: str, ledger: str, parsed: ParsedLedger, rows: pl.DataFrame
) -> dict[str, Any]:
    """What ``bvs ledger import`` prints (CONTRACT.md, Ledgers), plus what it ignored."""
    counts = dict(rows.group_by("resolution").len().iter_rows())
    review = rows.filter(pl.col("resolution") == "needs_review").sort("line")
    return {
        "customer": customer,
        "ledger": ledger,
        "rows": rows.height,
        "verified": int(counts.get("verified", 0)),
        "resolved_by_name": int(counts.get("resolved_by_name", 0)),
        "needs_review": [
            {
                "line": r["line"],
                "supplier_ref": r["supplier_ref"],
                "reason": r["review_reason"],
                "candidates": json.loads(r["candidates"]) if r["candidates"] else [],
            }
            for r in review.iter_rows(named=True)
        ],
        "ignored": parsed.ignored,
        "columns": parsed.columns,
        "blank_lines": parsed.blank_lines,
        "encoding": parsed.encoding,
        "sha256": parsed.sha256,
    }
