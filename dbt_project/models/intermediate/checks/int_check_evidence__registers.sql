-- Per ABN: the other registers' records it matches (ABN or ACN exact; TAX_DEBT name at least
-- 0.75, MODERN_SLAVERY at least 0.65, BCORP at least 0.7), one group of columns per register.

{%- set registers = {
    'TAX_PRACTITIONERS': 'tax_practitioners',
    'APRA_ENTITIES': 'prudential',
    'SUPER_FUNDS': 'super_fund',
    'TAX_DEBT': 'tax_debt',
    'RD_INCENTIVE': 'rd_incentive',
    'MODERN_SLAVERY': 'modern_slavery',
    'WGEA': 'workforce_gender',
    'GOV_CONTRACTS': 'government_contracts',
    'BCORP': 'bcorp',
} %}

with

matches as (

    select * from {{ ref('match_registers') }}

),

records as (

    select * from {{ ref('stg_registers__records') }}

),

joined as (

    select
        matches.abn,
        records.register,
        records.status,
        {{ bvs.json_object_noting([
            ('register', 'records.register'), ('record_id', 'records.record_id'),
            ('entity_name', 'records.entity_name'), ('status', 'records.status'),
            ('status_date', 'records.status_date'), ('detail', 'records.detail'),
            ('method', 'matches.method'), ('score', 'matches.score'),
            ('matched_name', 'matches.matched_name'),
        ], ('identifier_note', 'matches.identifier_note')) }} as record_json,
        records.record_id,
        records.status_date
    from matches
    inner join records
        on matches.register = records.register
        and matches.record_id = records.record_id

),

final as (

    select
        abn,
        {%- for register, check_id in registers.items() %}
        sum(case when register = '{{ register }}' then 1 else 0 end) as {{ check_id }}_count,
        {{ bvs.json_array_agg("case when register = '" ~ register ~ "' then record_json end",
            order_by='record_id') }} as {{ check_id }}_records,
        {%- endfor %}
        -- docs/rules.md government contracts "covers two financial years": the current one and
        -- the one before (from 1 July a year before the current one began), to the as-of date
        sum(case
            when register = 'GOV_CONTRACTS'
                and status_date >= {{ bvs.financial_year_start(bvs.as_of_date(), 1) }}
                and status_date <= {{ bvs.as_of_date() }} then 1 else 0
        end) as government_contracts_two_years_count,
        sum(case when register = 'TAX_PRACTITIONERS' and status = 'Current' then 1 else 0 end)
            as tax_practitioners_current_count,
        sum(case when register = 'TAX_PRACTITIONERS' and status in ('Terminated', 'Suspended') then 1 else 0 end)
            as tax_practitioners_terminated_suspended_count
    from joined
    group by abn

)

select * from final
