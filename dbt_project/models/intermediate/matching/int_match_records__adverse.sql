-- Adverse records of every regulator (docs/rules.md and docs/decisions/05-which-regulators-feed-which-check.md), matched by ABN
-- exact; a record whose listed ABN names no entity (or that lists none) by name trigram
-- similarity with the regulator's threshold (docs/decisions/19-a-records-own-identifier.md, docs/matching.md "A
-- record's own identifier"):
--   conduct regulators (ACCC, QBCC, NSW_FAIR_TRADING, VBA_BPC, QLD_OFT): above 0.55
--     (ACCC records also feed competition enforcement, "at least 0.6": the tile reads
--     the score);
--   NDIS_COMMISSION (disability-services commission): above 0.65;
--   FWO (workplace compliance): ABN exact only.

with

records as (

    select * from {{ ref('stg_adverse__records') }}

),

final as (

    select
        regulator,
        record_id,
        abn,
        cast(null as {{ dbt.type_string() }}) as acn,
        entity_name as match_name,
        {{ bvs.normalise_name('entity_name') }} as match_name_normalised,
        case
            when {{ bvs.listed_identifier_found('records', 'abn') }} then null
            when regulator = 'FWO' then null
            when regulator = 'NDIS_COMMISSION' then 0.65
            else 0.55
        end as name_threshold,
        false as name_threshold_inclusive
    from records

)

select * from final
