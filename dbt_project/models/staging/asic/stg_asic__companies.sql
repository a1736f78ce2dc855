-- One row per ACN from the ASIC Company Dataset: the current-name row. Some ACNs have only
-- former-name rows; for those the most recent one (latest current_name_start_date) stands
-- in, named by its `current_name` column, which holds the company's name today.
-- Built on stg_asic__company_names so the value cleaning is written once.

with

company_names as (

    select * from {{ ref('stg_asic__company_names') }}

),

name_rows_ranked as (

    select
        *,
        row_number() over (
            partition by acn
            order by
                case when is_current_name then 0 else 1 end,
                current_name_start_date desc nulls last,
                source_file desc,
                source_line desc
        ) as name_row_rank
    from company_names
    where acn is not null

),

final as (

    select
        acn,
        case
            when is_current_name then company_name
            else coalesce(current_name, company_name)
        end as company_name,
        is_current_name as has_current_name_row,
        abn,
        company_type,
        company_class,
        company_sub_class,
        company_status,
        registration_date,
        deregistration_date,
        previous_state_of_registration,
        state_registration_number,
        modified_since_last_report,
        source_file,
        source_line
    from name_rows_ranked
    where name_row_rank = 1

)

select * from final
