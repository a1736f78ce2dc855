-- Per ABN: AFS and credit licences it matches (ABN or ACN exact, name at least 0.8). The AFS
-- licensee dataset lists current licensees only; a credit licence is current when its
-- status is Current and it has not ended, suspended or cancelled by its status.

with

afs_matches as (

    select * from {{ ref('match_afs_licensees') }}

),

afs as (

    select * from {{ ref('stg_asic__afs_licensees') }}

),

credit_matches as (

    select * from {{ ref('match_credit_licensees') }}

),

credit as (

    select * from {{ ref('stg_asic__credit_licensees') }}

),

licences as (

    select
        afs_matches.abn,
        'AFS' as licence_kind,
        afs.licence_number,
        afs.licensee_name,
        'Current' as status,
        afs.start_date,
        cast(null as date) as end_date,
        afs_matches.method,
        afs_matches.score,
        afs_matches.matched_name,
        afs_matches.identifier_note
    from afs_matches
    inner join afs
        on afs_matches.licence_number = afs.licence_number

    union all

    select
        credit_matches.abn,
        'credit' as licence_kind,
        credit.licence_number,
        credit.licensee_name,
        credit.status,
        credit.start_date,
        credit.end_date,
        credit_matches.method,
        credit_matches.score,
        credit_matches.matched_name,
        credit_matches.identifier_note
    from credit_matches
    inner join credit
        on credit_matches.licence_number = credit.licence_number

),

classified as (

    select
        *,
        status = 'Current' and (end_date is null or end_date >= {{ bvs.as_of_date() }}) as is_current,
        status in ('Suspended', 'Cancelled') as is_suspended_cancelled
    from licences

),

final as (

    select
        abn,
        sum(case when is_current then 1 else 0 end) as current_count,
        sum(case when is_suspended_cancelled then 1 else 0 end) as suspended_cancelled_count,
        {{ bvs.json_array_agg(bvs.json_object_noting([
            ('kind', 'licence_kind'), ('licence_number', 'licence_number'),
            ('licensee_name', 'licensee_name'), ('status', 'status'),
            ('start_date', 'start_date'), ('end_date', 'end_date'),
            ('method', 'method'), ('score', 'score'), ('matched_name', 'matched_name'),
        ], ('identifier_note', 'identifier_note')), order_by='licence_kind, licence_number') }} as licences
    from classified
    group by abn

)

select * from final
