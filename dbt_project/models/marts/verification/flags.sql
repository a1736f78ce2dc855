-- The risk flag catalogue (docs/rules.md#risk-flags): one row per flag id with its severity, the rank the
-- risk score's floor reads (CRITICAL 4 ... LOW 1) and its trigger. Published with the
-- snapshot, so whatever reads a snapshot (the supplier-ledger runs, API clients) knows
-- every flag, not only those that fired.

with

flag_definitions as (

    select * from {{ ref('flag_definitions') }}

),

final as (

    select
        flag_id,
        severity,
        cast(severity_rank as integer) as severity_rank,
        trigger
    from flag_definitions

)

select * from final
