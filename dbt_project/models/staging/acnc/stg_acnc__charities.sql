-- ACNC Charity Register, one row per registered charity. Dates are not typed at ingest:
-- parsed here as DD/MM/YYYY (or ISO), null when neither.

with

source as (

    select * from {{ source('acnc', 'charities') }}

),

renamed as (

    select
        {{ bvs.clean_identifier('abn') }} as abn,
        {{ bvs.clean_text('charity_legal_name') }} as charity_legal_name,
        {{ bvs.clean_text('other_organisation_names') }} as other_organisation_names,
        {{ bvs.clean_text('address_type') }} as address_type,
        {{ bvs.clean_text('address_line_1') }} as address_line_1,
        {{ bvs.clean_text('address_line_2') }} as address_line_2,
        {{ bvs.clean_text('address_line_3') }} as address_line_3,
        {{ bvs.clean_text('town_city') }} as town_city,
        {{ bvs.clean_code('state') }} as state,
        {{ bvs.clean_text('postcode') }} as postcode,
        {{ bvs.clean_code('country') }} as country,
        {{ bvs.clean_text('charity_website') }} as website,
        coalesce({{ bvs.try_dmy_date('registration_date') }}, try_cast(trim(registration_date) as date)) as registration_date,
        coalesce({{ bvs.try_dmy_date('date_organisation_established') }}, try_cast(trim(date_organisation_established) as date)) as date_established,
        {{ bvs.clean_text('charity_size') }} as charity_size,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
