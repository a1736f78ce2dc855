-- Per ABN: business name registrations it matches (ABN exact; a registration whose listed
-- ABN names no entity, or that lists none, by name at least 0.8: docs/decisions/19-a-records-own-identifier.md). Active = status Registered; Cancelled and Deregistered are not.
-- Most registrations have no state number: it is compared null-safe.

with

matches as (

    select * from {{ ref('match_business_names') }}

),

business_names as (

    select
        *,
        {{ bvs.listed_identifier_found(ref('stg_asic__business_names'), 'abn') }} as is_listed_abn_found
    from {{ ref('stg_asic__business_names') }}

),

joined as (

    select
        matches.abn,
        matches.method,
        matches.score,
        case
            when matches.method <> 'abn' and business_names.abn is not null
                then 'listed ABN ' || business_names.abn || ' not found'
        end as identifier_note,
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
        -- (a name match) a registration without an ABN or whose ABN names no entity
        and (
            (matches.method = 'abn' and business_names.abn = matches.abn)
            or (matches.method <> 'abn' and business_names.is_listed_abn_found is not true)
        )

),

final as (

    select
        abn,
        sum(case when bn_status = 'Registered' then 1 else 0 end) as active_count,
        sum(case when bn_status = 'Registered' then 0 else 1 end) as inactive_count,
        {{ bvs.json_array_agg(bvs.json_object_noting([
            ('business_name', 'business_name'), ('status', 'bn_status'),
            ('registration_date', 'registration_date'), ('cancellation_date', 'cancellation_date'),
            ('method', 'method'), ('score', 'score'),
        ], ('identifier_note', 'identifier_note')), order_by='business_name, state_number') }} as business_names
    from joined
    group by abn

)

select * from final
