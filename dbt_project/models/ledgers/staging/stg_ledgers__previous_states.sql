-- What the previous run of each ledger recorded, one row per compared fact (the
-- ledger_supplier_states of that run). Empty for a ledger's first run.

select
    customer,
    ledger,
    run_id,
    supplier_key,
    abn,
    kind,
    subject,
    value
from {{ source('ledger_run', 'previous_states') }}
