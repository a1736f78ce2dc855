-- The phoenix tile and the PHOENIX_PATTERN flag, one row per ABN in `entities`
-- (docs/decisions/06-phoenix.md). One `when` per rule, first match wins:
--
--   no_acn            N/A   "Sole traders and partnerships without an ACN are not assessed."
--   no_director_data  N/A   "If director data is not yet loaded the tile shows N/A, never
--                            PASS": no officeholder row has ever been loaded (the history
--                            snapshot is empty: the raw table was never filled)
--   no_officeholders  N/A   the entity's company has no officeholder row in that history
--   linked            FAIL  at least one row in phoenix_links: "one of its directors is also
--                            an officeholder of a company deregistered within the past 36
--                            months"
--   clear             PASS  otherwise
--
-- The most recent deregistered company (latest deregistration date, then the lowest ACN)
-- is the one the tile lists first.

with

entities as (

    select * from {{ ref('entities') }}

),

officeholders as (

    select * from {{ ref('int_officeholders_keyed') }}

),

phoenix_links as (

    select * from {{ ref('phoenix_links') }}

),

director_data as (

    select count(*) as officeholder_rows from officeholders

),

companies_with_officeholders as (

    select distinct acn from officeholders

),

link_counts as (

    select
        abn,
        count(*) as link_count,
        count(distinct deregistered_acn) as deregistered_company_count
    from phoenix_links
    group by abn

),

links_ranked as (

    select
        abn,
        deregistered_acn,
        deregistered_company_name,
        deregistration_date,
        person_name,
        row_number() over (
            partition by abn
            order by deregistration_date desc, deregistered_acn, person_name
        ) as link_rank
    from phoenix_links

),

latest_links as (

    select * from links_ranked
    where link_rank = 1

),

assessed as (

    select
        entities.abn,
        entities.acn,
        case
            when entities.acn is null then 'no_acn'
            when director_data.officeholder_rows = 0 then 'no_director_data'
            when companies_with_officeholders.acn is null then 'no_officeholders'
            when link_counts.abn is not null then 'linked'
            else 'clear'
        end as phoenix_status,
        coalesce(link_counts.link_count, 0) as link_count,
        coalesce(link_counts.deregistered_company_count, 0) as deregistered_company_count,
        latest_links.deregistered_acn as latest_deregistered_acn,
        latest_links.deregistered_company_name as latest_deregistered_company_name,
        latest_links.deregistration_date as latest_deregistration_date,
        latest_links.person_name as latest_linked_director
    from entities
    cross join director_data
    left join companies_with_officeholders
        on entities.acn = companies_with_officeholders.acn
    left join link_counts
        on entities.abn = link_counts.abn
    left join latest_links
        on entities.abn = latest_links.abn

),

final as (

    select
        abn,
        acn,
        phoenix_status,
        case phoenix_status
            when 'linked' then 'FAIL'
            when 'clear' then 'PASS'
            else 'N/A'
        end as tile_status,
        phoenix_status = 'linked' as phoenix_pattern,
        cast(link_count as {{ dbt.type_int() }}) as link_count,
        cast(deregistered_company_count as {{ dbt.type_int() }}) as deregistered_company_count,
        latest_deregistered_acn,
        latest_deregistered_company_name,
        latest_deregistration_date,
        latest_linked_director,
        {{ bvs.as_of_date() }} as as_of_date
    from assessed

)

select * from final
