-- Per ABN, a hash of everything its check outcomes are computed from on the as-of date:
-- its `entities` row, with the rule rows that row meets on the as-of date for the checks
-- that read it with the date (ABN status, GST); the facts every ABN reads (which checks have their
-- data loaded, whether a licence register covers the ABN's state); and its row of each
-- per-ABN evidence model the outcomes read (macros/verification/check_evidence.sql), whose
-- windows and ages are computed on the as-of date. Two builds with the same inputs for an
-- ABN give it the same outcomes, so `int_check_outcomes` recomputes only the ABNs whose
-- hash changed (docs/weekly-refresh.md, "The incremental week"). A new input of
-- int_check_outcomes that is not evidence by ABN joins the terms below; the test
-- tests/e2e/test_incremental_week.py fails when one is left out.

{{ config(materialized='table') }}

{%- set as_of = bvs.as_of_date() %}
{#- the checks whose rules read an entity's dates with the as-of date: the rule row met -#}
{%- set dated_rules = [
    bvs.abn_status_rules('entities', as_of),
    bvs.gst_rules('entities', as_of),
] %}

with

entities as (

    select
        entities.abn,
        hash(
            'entities',
            entities,
            check_data,
            licence_coverage.state is not null
            {%- for rules in dated_rules %},
            case
                {%- for condition, _ in rules %}
                when {{ condition }} then {{ loop.index }}
                {%- endfor %}
            end
            {%- endfor %}
        ) as row_hash
    from (
        select {{ bvs.input_columns(ref('entities')) }} from {{ ref('entities') }}
    ) as entities
    cross join {{ ref('int_check_evidence__loaded') }} as check_data
    left join {{ ref('int_check_evidence__licence_coverage') }} as licence_coverage
        on entities.state = licence_coverage.state

),

-- an ASX-listed ABN's campaign and squeeze score, found by its ticker
market as (

    select
        asx.abn,
        hash('market', viper_by_ticker, squeeze) as row_hash
    from {{ ref('int_check_evidence__asx') }} as asx
    left join (
        select {{ bvs.input_columns(ref('viper')) }} from {{ ref('viper') }}
    ) as viper_by_ticker on asx.asx_code = viper_by_ticker.ticker
    left join (
        select {{ bvs.input_columns(ref('squeeze_latest')) }} from {{ ref('squeeze_latest') }} where market = 'asx'
    ) as squeeze on asx.asx_code = squeeze.ticker

),

rows as (

    select abn, row_hash, true as is_entity from entities
    union all
    select abn, row_hash, false from market
    {%- for alias, model in bvs.check_evidence_by_abn() %}
    union all
    select abn, hash('{{ alias }}', {{ alias }}), false
    from (select {{ bvs.input_columns(ref(model)) }} from {{ ref(model) }}) as {{ alias }}
    {%- endfor %}

)

-- a sum, not an exclusive or: two equal rows must not cancel out. Evidence of an ABN that
-- is not an entity has no outcome row, so no hash.
select
    abn,
    hash(sum(row_hash)) as input_hash
from rows
group by abn
having bool_or(is_entity)
