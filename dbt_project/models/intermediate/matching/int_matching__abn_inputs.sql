-- Per ABN, a hash of every row the match tables read of it, and when that hash last
-- changed: what a week's match tables recompute for the ABN side (`match_table`,
-- macros/materializations/match_table.sql). The rows hashed are the ones the matching
-- reads, not their inputs: the entity's ABN and ACN (`entities`), its names as matched
-- (`entity_names`), and its people with their person-name keys (`int_matching__people_keyed`:
-- a sole trader's own name, the directors current on the as-of date). So a change of code
-- upstream that changes those rows changes the hash too.
--
-- Incremental: a build writes again only the ABNs whose hash changed, came or went (an ABN
-- gone keeps a row with a null hash, so the match tables built before it went drop its
-- rows), stamped `changed_at` with the build's time, after every earlier stamp. A match
-- table records the latest stamp it has seen and recomputes the ABNs stamped since.

{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key='abn',
    on_schema_change='fail',
    post_hook="{{ bvs.record_match_input_build() }}",
) }}

with

entity_rows as (

    select
        abn,
        hash('entity', abn, acn) as row_hash
    from {{ ref('entities') }}

),

name_rows as (

    select
        abn,
        hash('name', name, name_normalised) as row_hash
    from {{ ref('entity_names') }}

),

people_rows as (

    select
        abn,
        hash('person', people) as row_hash
    from {{ ref('int_matching__people_keyed') }} as people

),

-- the hash of a sum of the row hashes, not of an exclusive or: two equal rows do not cancel
-- out (and 8 bytes an ABN, not the sum's 16)
inputs as (

    select
        abn,
        hash(sum(row_hash)) as input_hash
    from (
        select * from entity_rows
        union all
        select * from name_rows
        union all
        select * from people_rows
    ) as rows_read
    group by abn

),

{% if is_incremental() %}

changed as (

    select
        coalesce(inputs.abn, built.abn) as abn,
        inputs.input_hash
    from inputs
    full outer join {{ this }} as built
        on inputs.abn = built.abn
    where inputs.input_hash is distinct from built.input_hash

),

final as (

    select
        abn,
        input_hash,
        -- after every earlier stamp, whatever the clock did
        (
            select greatest(now()::timestamp, max(changed_at) + interval 1 microsecond)
            from {{ this }}
        ) as changed_at
    from changed

)

{% else %}

final as (

    select
        abn,
        input_hash,
        now()::timestamp as changed_at
    from inputs

)

{% endif %}

select * from final
