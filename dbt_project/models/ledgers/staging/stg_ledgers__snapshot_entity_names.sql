-- The serving snapshot's rows this ledger run reads (source ledger_run.snapshot_entity_names).

select * from {{ source('ledger_run', 'snapshot_entity_names') }}
