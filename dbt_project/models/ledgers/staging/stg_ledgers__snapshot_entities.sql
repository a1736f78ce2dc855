-- The serving snapshot's rows this ledger run reads (source ledger_run.snapshot_entities).

select * from {{ source('ledger_run', 'snapshot_entities') }}
