-- Regulators' adverse records (ACCC, QBCC, NSW Fair Trading, VBA/BPC, QLD OFT, FWO, NDIS
-- Commission), one row per (regulator, record_id). Codes upper-cased; action_type kept as
-- published (free text for some regulators).

with

source as (

    select * from {{ source('adverse', 'records') }}

),

renamed as (

    select
        {{ bvs.clean_code('regulator') }} as regulator,
        {{ bvs.clean_text('record_id') }} as record_id,
        {{ bvs.clean_identifier('abn') }} as abn,
        {{ bvs.clean_text('entity_name') }} as entity_name,
        {{ bvs.clean_text('action_type') }} as action_type,
        {{ bvs.clean_code('severity') }} as severity,
        {{ bvs.clean_code('status') }} as status,
        action_date,
        resolved_date,
        {{ bvs.clean_text('summary') }} as summary,
        {{ bvs.clean_text('url') }} as url,
        source_file,
        source_line
    from source

),

final as (

    select * from renamed

)

select * from final
