"""Supplier ledgers: intake, name resolution, nightly re-verification runs and their history.

Plain Python, no Dagster: ``intake`` reads a finance team's file, ``resolve`` finds an ABN by
name, ``suppliers`` decides each row's resolution, ``run`` prepares and records a night's run
(the rules are dbt models, ``dbt_project/models/ledgers``), ``store`` is the run history and
``commands`` what ``bvs ledger`` does. docs/ledgers.md tells the whole story.
"""
