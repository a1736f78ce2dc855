"""The state database's tables, declared once on one ``metadata``.

The modules that work on them (``keys``, ``limits``, ``watches``, ``ledgers``) import them
from here, and ``db.create_state_engine`` creates them all from here: this module imports
nothing of the project's, so the state package has no import circle.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

# API keys (pipelines/state/keys.py)
api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("key_id", sa.String(12), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("plan", sa.String(20), nullable=False),
    sa.Column("secret_sha256", sa.String(64), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True)),
    # An Enterprise key may be bound to a customer: it then reads that customer's supplier
    # ledgers (/api/robot/ledgers), and only theirs.
    sa.Column("customer", sa.String(64)),
)

# rate-limit counters (pipelines/state/limits.py)
rate_counters = sa.Table(
    "rate_counters",
    metadata,
    sa.Column("key_id", sa.String(12), primary_key=True),
    sa.Column("counter", sa.String(40), primary_key=True),  # minute | hour | day | month:phone …
    sa.Column("window_start", sa.String(16), primary_key=True),  # Brisbane time, sortable
    sa.Column("count", sa.Integer, nullable=False),
)

# squeeze and activist watches and their alerts (pipelines/state/watches.py)
watches = sa.Table(
    "watches",
    metadata,
    sa.Column("watch_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),  # squeeze | activist
    sa.Column("ticker", sa.String(20)),
    sa.Column("company_name", sa.String(300)),
    sa.Column("threshold", sa.Float),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("removed_at", sa.DateTime(timezone=True)),
)

alerts = sa.Table(
    "alerts",
    metadata,
    sa.Column("alert_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("watch_id", sa.Integer, sa.ForeignKey("watches.watch_id"), nullable=False),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("trigger_key", sa.String(100), nullable=False),  # the day, or the campaign id
    sa.Column("ticker", sa.String(20)),
    sa.Column("triggered_on", sa.Date, nullable=False),
    sa.Column("detail", sa.Text, nullable=False),  # JSON: what triggered it
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("watch_id", "trigger_key", name="one_alert_per_trigger"),
)

# supplier-ledger alerts and the override audit heads (pipelines/state/ledgers.py)
ledger_alerts = sa.Table(
    "ledger_alerts",
    metadata,
    sa.Column("alert_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("customer", sa.String(64), nullable=False),
    sa.Column("ledger", sa.String(100), nullable=False),
    sa.Column("run_id", sa.String(20), nullable=False),
    sa.Column("run_date", sa.Date, nullable=False),
    sa.Column("supplier_key", sa.String(300), nullable=False),
    sa.Column("supplier_ref", sa.String(300)),
    sa.Column("abn", sa.String(11)),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("subject", sa.String(500), nullable=False),
    sa.Column("before_value", sa.String(500)),
    sa.Column("after_value", sa.String(500)),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint(
        "customer",
        "ledger",
        "run_id",
        "supplier_key",
        "kind",
        "subject",
        name="one_alert_per_change",
    ),
    sa.Index("ledger_alerts_by_customer", "customer", "alert_id"),
)

# The last entry of each customer's override audit trail (pipelines/ledgers/overrides.py):
# kept apart from the trail, so entries cut off its end show.
audit_heads = sa.Table(
    "ledger_audit_heads",
    metadata,
    sa.Column("customer", sa.String(64), primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("hash", sa.String(64), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)
