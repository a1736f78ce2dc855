-- The risk flags of every verified supplier, one row per (supplier_id, flag): the snapshot's
-- flags of its ABN, but WARN_CLUSTER counted again over the supplier's own tiles (the
-- ledger rows can add or remove a WARN; the rule is macros/verification/scoring.sql).

-- Ephemeral, as int_ledger_tiles which it reads: both are inlined into ledger_verifications,
-- their only reader, in one statement (docs/ledgers.md, "Speed").
{{ config(materialized='ephemeral') }}

with

tiles as (

    select * from {{ ref('int_ledger_tiles') }}
    where abn is not null

),

snapshot_flags as (

    select * from {{ ref('stg_ledgers__snapshot_risk_flags') }}
    where flag_id <> 'WARN_CLUSTER'

),

warn_cluster as (

    select * from {{ ref('stg_ledgers__snapshot_flags') }}
    where flag_id = 'WARN_CLUSTER'

),

warn_counts as (

    select
        supplier_id,
        {{ bvs.warn_cluster_columns() }}
    from tiles

),

final as (

    select
        tiles.supplier_id,
        snapshot_flags.flag_id,
        snapshot_flags.severity,
        snapshot_flags.severity_rank,
        snapshot_flags.evidence
    from tiles
    inner join snapshot_flags
        on tiles.abn = snapshot_flags.abn

    union all

    select
        warn_counts.supplier_id,
        warn_cluster.flag_id,
        warn_cluster.severity,
        warn_cluster.severity_rank,
        {{ bvs.warn_cluster_evidence() }}
    from warn_counts
    cross join warn_cluster
    where {{ bvs.warn_cluster_fires() }}

)

select * from final
