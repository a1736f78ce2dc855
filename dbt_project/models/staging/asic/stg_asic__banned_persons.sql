-- ASIC Banned and Disqualified Persons, one row per banning or disqualification. Names are
-- `SURNAME, GIVEN NAMES`; an empty end date means the banning is permanent.

with

source as (

    select * from {{ source('asic', 'banned_persons') }}

),

renamed as (

    select
        {{ bvs.clean_text('bd_per_name') }} as person_name,
        {{ bvs.clean_text('bd_per_type') }} as banning_type,
        {{ bvs.clean_text('bd_per_doc_num') }} as document_number,
        bd_per_start_dt as start_date,
        bd_per_end_dt as end_date,
        bd_per_end_dt is null as is_permanent,
        {{ bvs.clean_text('bd_per_add_local') }} as locality,
        {{ bvs.clean_code('bd_per_add_state') }} as state,
        {{ bvs.clean_text('bd_per_add_pcode') }} as postcode,
        {{ bvs.clean_code('bd_per_add_country') }} as country,
        {{ bvs.clean_long_text('bd_per_comments') }} as comments,
        {{ bvs.clean_text('register_name') }} as register_name,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
