-- The serving snapshot's rows this ledger run reads (source ledger_run.snapshot_verifications).

select * from {{ source('ledger_run', 'snapshot_verifications') }}
