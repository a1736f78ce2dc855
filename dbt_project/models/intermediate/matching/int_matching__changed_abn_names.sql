-- The names, as matched, of the ABNs a week's match tables match again: those
-- int_matching__abn_inputs stamped since the oldest stamp a match table has seen
-- (meta.match_table_builds), with a row without a name for an ABN that has none (gone, or
-- nameless), so that every ABN stamped is here. A week's pass of a match table's other
-- records against its changed ABNs reads these few names instead of all of entity_names
-- (macros/materializations/match_table.sql, `match_abn_rows`): one scan of entity_names a
-- week instead of one per match table. A match table reads them only when this table was
-- built after entity_names and int_matching__abn_inputs (meta.model_versions, which the
-- post-hook writes) and holds every ABN the table matches again; else it reads entity_names.
-- Empty when no match table has been built yet (every match table is then built whole).

{{ config(
    materialized='table',
    post_hook="{{ bvs.record_match_input_build() }}",
) }}

with

stamped as (

    select abn
    from {{ ref('int_matching__abn_inputs') }}
    where changed_at > (select min(abns_seen) from meta.match_table_builds)

),

final as (

    select
        stamped.abn,
        entity_names.name,
        entity_names.name_normalised
    from stamped
    left join {{ ref('entity_names') }} as entity_names
        on stamped.abn = entity_names.abn

)

select * from final
