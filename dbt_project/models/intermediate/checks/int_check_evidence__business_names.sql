-- Per ABN: business name registrations it matches (ABN exact; a registration without an ABN
-- by name at least 0.8). Active = status Registered; Cancelled and Deregistered are not.
-- Most registrations have no state number: it is compared null-safe.

with

matches as (

    select * from {{ ref('match_business_names') }}

),

business_names as (

    select * from {{ ref('stg_asic__business_names') }}

),

joined as (

    select
        matches.abn,
        matches.method,
        matches.score,
        business_names.business_name,
        business_names.state_number,
        business_names.bn_status,
        business_names.registration_date,
        business_names.cancellation_date
    from matches
    inner join business_names
        on matches.business_name = business_names.business_name
        and (
            matches.state_number = business_names.state_number
            or (matches.state_number is null and business_names.state_number is null)
        )
        -- a name is registered many times over: the registration under the matched ABN, or
        -- (a name match) the registration without an ABN
        and (
            (matches.method = 'abn' and business_names.abn = matches.abn)
            or (matches.method <> 'abn' and business_names.abn is null)
        )

),

final as (

    select
        abn,
        sum(case when bn_status = 'Registered' then 1 else 0 end) as active_count,
        sum(case when bn_status = 'Registered' then 0 else 1 end) as inactive_count,
        {{ bvs.json_array_agg(bvs.json_object([
            ('business_name', 'business_name'), ('status', 'bn_status'),
            ('registration_date', 'registration_date'), ('cancellation_date', 'cancellation_date'),
            ('method', 'method'), ('score', 'score'),
        ]), order_by='business_name, state_number') }} as business_names
    from joined
    group by abn

)

select * from final
