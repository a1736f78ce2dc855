"""Alerts of supplier-ledger runs (docs/decisions/16-changes-between-runs.md), in the state database.

Every change of a ledger run that is for the worse, and every director change, new adverse
record, insolvency notice or enforcement action, is one alert for the ledger's customer.
An alert is unique per (customer, ledger, run, supplier, kind, subject), so raising a run's
alerts again (a run re-tried after it was killed) adds nothing, while the same change in a
later run (bad, good, bad again) is a new alert. Clients poll with the last alert id they
saw, as for watch alerts.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pyarrow.parquet as pq
import sqlalchemy as sa

from pipelines.state.tables import ledger_alerts

_BATCH = 5_000


def raise_alerts(engine: sa.Engine, run: Any) -> int:
    """The alerts of one committed run (``pipelines.ledgers.store.Run``); returns how many
    were new."""
    path = run.file("changes.parquet")
    table = pq.read_table(
        path,
        columns=[
            "run_id", "run_date", "supplier_key", "supplier_ref", "abn", "kind", "subject",
            "before_value", "after_value", "is_alert",
        ],
    )  # fmt: skip
    rows = [r for r in table.to_pylist() if r["is_alert"]]
    if not rows:
        return 0
    with engine.begin() as conn:
        existing = {
            (r.supplier_key, r.kind, r.subject)
            for r in conn.execute(
                sa.select(
                    ledger_alerts.c.supplier_key, ledger_alerts.c.kind, ledger_alerts.c.subject
                ).where(
                    (ledger_alerts.c.customer == run.customer)
                    & (ledger_alerts.c.ledger == run.ledger)
                    & (ledger_alerts.c.run_id == run.run_id)
                )
            )
        }
        now = dt.datetime.now(dt.UTC)
        new = [
            {
                "customer": run.customer,
                "ledger": run.ledger,
                "run_id": r["run_id"],
                "run_date": r["run_date"],
                "supplier_key": r["supplier_key"],
                "supplier_ref": r["supplier_ref"],
                "abn": r["abn"],
                "kind": r["kind"],
                "subject": r["subject"],
                "before_value": r["before_value"],
                "after_value": r["after_value"],
                "created_at": now,
            }
            for r in rows
            if (r["supplier_key"], r["kind"], r["subject"]) not in existing
        ]
        for start in range(0, len(new), _BATCH):
            conn.execute(sa.insert(ledger_alerts), new[start : start + _BATCH])
    return len(new)


def list_ledger_alerts(
    engine: sa.Engine,
    customer: str | None = None,
    *,
    since_id: int = 0,
    ledger: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """Alerts after ``since_id``, oldest first."""
    query = (
        sa.select(ledger_alerts)
        .where(ledger_alerts.c.alert_id > since_id)
        .order_by(ledger_alerts.c.alert_id)
    )
    if customer is not None:
        query = query.where(ledger_alerts.c.customer == customer)
    if ledger is not None:
        query = query.where(ledger_alerts.c.ledger == ledger)
    if limit is not None:
        query = query.limit(limit)
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(query)]
