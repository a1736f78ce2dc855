-- ASIC financial advisers register (docs/rules.md: "ABN plus name similarity at least 0.8"):
-- the adviser's ABN exact; an adviser whose listed ABN names no entity (or who lists none)
-- by the adviser's name at least 0.8 against entity names (a sole trader's own name;
-- docs/decisions/19-a-records-own-identifier.md). Directors who are advisers are matched by person name in
-- match_financial_advisers.

with

advisers as (

    select * from {{ ref('stg_asic__financial_advisers') }}

),

final as (

    select
        adviser_number,
        abn,
        cast(null as {{ dbt.type_string() }}) as acn,
        adviser_name as match_name,
        {{ bvs.normalise_name('adviser_name') }} as match_name_normalised,
        case when {{ bvs.listed_identifier_found('advisers', 'abn') }} then null else 0.8 end as name_threshold,
        true as name_threshold_inclusive
    from advisers

)

select * from final
