-- Per ABN with an industry code: its ANZSIC code and, when the code maps to a licensed trade
-- (seed anzsic_trades: the longest matching prefix wins, so 3231 plumbing beats 32
-- building), the trade and the licence trades that cover it (docs/decisions/04-best-licence-decides.md).
--
-- A table: a week whose industry file and seed are unchanged leaves it out (docs/architecture.md,
-- "What a build rebuilds"); as a view, int_check_inputs cleaned and ranked every ABN's codes
-- again every week, and again inside the licences evidence.

{{ config(materialized='table') }}

with

industry as (

    select * from {{ ref('stg_industry__abn_industry') }}

),

trades as (

    select * from {{ ref('anzsic_trades') }}

),

mapped as (

    select
        industry.abn,
        industry.anzsic_code,
        industry.anzsic_description,
        coalesce(by_class.trade, by_division.trade) as trade,
        coalesce(by_class.licence_trades, by_division.licence_trades) as licence_trades
    from industry
    left join trades as by_class
        on substr(industry.anzsic_code, 1, 4) = cast(by_class.anzsic_prefix as {{ dbt.type_string() }})
    left join trades as by_division
        on substr(industry.anzsic_code, 1, 2) = cast(by_division.anzsic_prefix as {{ dbt.type_string() }})

),

-- An ABN listed with several codes: a licensed-trade code first (it carries the rule).
ranked as (

    select
        *,
        row_number() over (
            partition by abn
            order by case when trade is null then 1 else 0 end, anzsic_code
        ) as code_rank
    from mapped

),

final as (

    select
        abn,
        anzsic_code,
        anzsic_description,
        trade,
        licence_trades
    from ranked
    where code_rank = 1

)

select * from final
