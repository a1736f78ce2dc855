-- Per ABN: the insolvency register records it matches (match_insolvency: ASIC companies with
-- status EXAD or DISS, by ABN, ACN or name above 0.75), for the insolvency tile.

with

matches as (

    select * from {{ ref('match_insolvency') }}

),

companies as (

    select * from {{ ref('stg_asic__companies') }}

),

joined as (

    select
        matches.abn,
        matches.acn,
        matches.method,
        matches.score,
        matches.matched_name,
        matches.identifier_note,
        companies.company_name,
        companies.company_status
    from matches
    inner join companies
        on matches.acn = companies.acn

),

final as (

    select
        abn,
        sum(case when company_status = 'EXAD' then 1 else 0 end) as exad_count,
        sum(case when company_status = 'DISS' then 1 else 0 end) as diss_count,
        {{ bvs.json_array_agg(bvs.json_object_noting([
            ('acn', 'acn'), ('company_name', 'company_name'), ('status', 'company_status'),
            ('method', 'method'), ('score', 'score'), ('matched_name', 'matched_name'),
        ], ('identifier_note', 'identifier_note')), order_by='acn') }} as records
    from joined
    group by abn

)

select * from final
