-- Per ABN with phoenix links: the linked directors and the deregistered companies, newest
-- deregistration first (the phoenix tile "lists the deregistered company", docs/rules.md#risk-flags).

with

links as (

    select * from {{ ref('phoenix_links') }}

),

final as (

    select
        abn,
        {{ bvs.json_array_agg(bvs.json_object([
            ('director', 'person_name'), ('deregistered_acn', 'deregistered_acn'),
            ('deregistered_company_name', 'deregistered_company_name'),
            ('deregistration_date', 'deregistration_date'),
            ('officeholder_role', 'officeholder_role'),
            ('months_before_as_of', 'months_before_as_of'),
        ]), order_by='deregistration_date desc, deregistered_acn, person_name') }} as links
    from links
    group by abn

)

select * from final
