-- Per ABN: the state licences it matches (ABN or ACN exact, licensee name at least 0.8),
-- sorted into what the licence rules and flags ask (docs/rules.md licence status, 2.4). A
-- licence "of the correct class" covers the entity's trade (int_check_evidence__industry);
-- for an entity without a licensed-trade code every licence counts. In force = ACTIVE or
-- CONDITIONAL; "expired within 12 months" counts back from the as-of date.

with

matches as (

    select * from {{ ref('match_licences') }}

),

licences as (

    select * from {{ ref('stg_licences__licences') }}

),

industry as (

    select * from {{ ref('int_check_evidence__industry') }}

),

joined as (

    select
        matches.abn,
        matches.method,
        matches.score,
        matches.matched_name,
        matches.identifier_note,
        licences.register,
        licences.licence_number,
        licences.licence_class,
        licences.trade,
        licences.status,
        licences.granted_date,
        licences.expiry_date,
        industry.licence_trades is null
            or {{ dbt.position("' ' || licences.trade || ' '", "' ' || industry.licence_trades || ' '") }} > 0
            as is_correct_trade
    from matches
    inner join licences
        on matches.register = licences.register
        and matches.licence_number = licences.licence_number
    left join industry
        on matches.abn = industry.abn

),

final as (

    select
        abn,
        count(*) as licence_count,
        sum(case when is_correct_trade and status = 'ACTIVE' then 1 else 0 end)
            as active_correct_count,
        sum(case when is_correct_trade and status = 'CONDITIONAL' then 1 else 0 end)
            as conditional_correct_count,
        sum(case
            when is_correct_trade and status = 'EXPIRED'
                and expiry_date >= {{ bvs.months_before(bvs.as_of_date(), 12) }} then 1 else 0
        end) as expired_within_12_months_count,
        sum(case when status in ('SUSPENDED', 'CANCELLED') then 1 else 0 end)
            as suspended_cancelled_count,
        sum(case when is_correct_trade and status in ('SUSPENDED', 'CANCELLED') then 1 else 0 end)
            as suspended_cancelled_correct_count,
        sum(case when status in ('ACTIVE', 'CONDITIONAL') then 1 else 0 end) as in_force_count,
        sum(case when is_correct_trade and status in ('ACTIVE', 'CONDITIONAL') then 1 else 0 end)
            as in_force_correct_count,
        {{ bvs.json_array_agg(bvs.json_object_noting([
            ('register', 'register'), ('licence_number', 'licence_number'),
            ('licence_class', 'licence_class'), ('trade', 'trade'), ('status', 'status'),
            ('granted_date', 'granted_date'), ('expiry_date', 'expiry_date'),
            ('correct_trade', 'is_correct_trade'),
            ('method', 'method'), ('score', 'score'), ('matched_name', 'matched_name'),
        ], ('identifier_note', 'identifier_note')), order_by='register, licence_number') }} as licences
    from joined
    group by abn

)

select * from final
