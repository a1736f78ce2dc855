-- The serving snapshot's rows this ledger run reads (source ledger_run.snapshot_insolvency_matches).

select * from {{ source('ledger_run', 'snapshot_insolvency_matches') }}
