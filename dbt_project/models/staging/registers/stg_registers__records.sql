-- Other public registers, one row per (register, record_id). status is the register's
-- own status word (Current, Terminated, ...) and is kept as published, trimmed.

with

source as (

    select * from {{ source('registers', 'records') }}

),

renamed as (

    select
        {{ bvs.clean_code('register') }} as register,
        {{ bvs.clean_text('record_id') }} as record_id,
        {{ bvs.clean_identifier('abn') }} as abn,
        {{ bvs.clean_identifier('acn') }} as acn,
        {{ bvs.clean_text('entity_name') }} as entity_name,
        {{ bvs.clean_text('person_name') }} as person_name,
        {{ bvs.clean_text('status') }} as status,
        status_date,
        {{ bvs.clean_text('detail') }} as detail,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
