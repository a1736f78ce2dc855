-- ASIC Banned and Disqualified Organisations, one row per banning. BD_ORG_END_DT may be free
-- text (`Permanent banning`): end_date_text keeps it, end_date is null unless it is a date.
-- Names may hold a no-break space: clean_text makes it a plain space (raw keeps it).

with

source as (

    select * from {{ source('asic', 'banned_organisations') }}

),

renamed as (

    select
        {{ bvs.clean_text('bd_org_name') }} as organisation_name,
        {{ bvs.clean_identifier('bd_org_acn') }} as acn,
        {{ bvs.clean_text('bd_org_type') }} as banning_type,
        bd_org_start_dt as start_date,
        {{ bvs.clean_text('bd_org_end_dt') }} as end_date_text,
        {{ bvs.try_dmy_date('bd_org_end_dt') }} as end_date,
        {{ bvs.clean_long_text('bd_org_comment') }} as comment,
        {{ bvs.clean_text('register_name') }} as register_name,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
