-- Company officeholders (directors and secretaries) by ACN. Extracts accumulate in the
-- landing folder, so one appointment may appear in several files: the row from the latest
-- extract (extracted_date, then file and line) is kept. ceased_date is null while current.

with

source as (

    select * from {{ source('directors', 'officeholders') }}

),

renamed as (

    select
        {{ bvs.clean_identifier('acn') }} as acn,
        {{ bvs.clean_text('person_name') }} as person_name,
        {{ bvs.clean_code('role') }} as role,
        appointed_date,
        ceased_date,
        birth_date,
        extracted_date,
        source_file,
        source_line
    from source

),

latest as (

    select
        *,
        row_number() over (
            partition by acn, person_name, role, appointed_date
            order by extracted_date desc nulls last, source_file desc, source_line desc
        ) as extract_rank
    from renamed

),

final as (

    select * exclude (extract_rank) from latest
    where extract_rank = 1

)

select * from final
