-- The serving snapshot's verification of each ABN of the run: every tile's status and rule
-- row, and what the verify response carries beside them. Not the tiles' evidence (their
-- detail JSON, most of the slice's bytes): the run's history reads that from the slice
-- itself, so it is written once (pipelines/ledgers/run.py).

select
    abn,
    entity,
    status,
    state,
    postcode,
    viper_attacked,
    ppsr_registrations,
    insolvency_found,
    {%- for check_id in bvs.check_ids() %}
    {{ check_id }}_status,
    {{ check_id }}_reason{% if not loop.last %},{% endif %}
    {%- endfor %}
from {{ source('ledger_run', 'snapshot_verifications') }}
