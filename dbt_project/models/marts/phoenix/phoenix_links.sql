-- Phoenix links (docs/rules.md#risk-flags PHOENIX_PATTERN): one row per (entity ABN, one of its current
-- directors, a different company deregistered within the 36 months before the as-of date
-- that the same person is or was an officeholder of).
--
--   * the entity has an ACN (entities.acn);
--   * the director: an officeholder row of that ACN with role DIRECTOR, appointed on or
--     before the as-of date (an unknown appointed date counts as appointed), not ceased on
--     or before it (ceased_date null or after the as-of date);
--   * the deregistered company: deregistration date from the as-of date minus 36 calendar
--     months (inclusive: exactly 36 months before still counts) to the as-of date
--     (docs/decisions/09-ages.md), from the history that outlives the ASIC extract;
--   * its officeholder, any role, current or ceased, is the same person: same surname and
--     compatible given names (macros/persons.sql, the rule of pipelines/matching/persons.py)
--     and birth dates that do not contradict (equal when both are known);
--   * not the entity's own company.
-- Candidate pairs are found by joining on (surname, first initial), which every match
-- shares, plus the birth date where both sides know it (see same_person_pairs), so the
-- cost follows the size of the name blocks, not the product of the inputs.
-- When one director matches several officeholder rows of the same company (two roles, two
-- appointments, two spellings), the row kept is a DIRECTOR one, then the latest appointed.

{%- set window_months = 36 %}

with

entities as (

    select * from {{ ref('entities') }}

),

officeholders as (

    select * from {{ ref('int_officeholders_keyed') }}

),

deregistered_companies as (

    select * from {{ ref('int_companies_deregistered') }}

),

entities_with_acn as (

    select
        abn,
        acn
    from entities
    where acn is not null

),

current_directors as (

    select
        entities_with_acn.abn,
        officeholders.*
    from entities_with_acn
    inner join officeholders
        on entities_with_acn.acn = officeholders.acn
    where {{ bvs.is_current_director('officeholders') }}
        and officeholders.first_initial is not null

),

companies_deregistered_in_window as (

    select
        acn,
        company_name,
        deregistration_date
    from deregistered_companies
    where deregistration_date <= {{ bvs.as_of_date() }}
        and deregistration_date >= {{ bvs.months_before(bvs.as_of_date(), window_months) }}

),

officeholders_of_deregistered_companies as (

    select
        officeholders.*,
        companies_deregistered_in_window.company_name,
        companies_deregistered_in_window.deregistration_date
    from companies_deregistered_in_window
    inner join officeholders
        on companies_deregistered_in_window.acn = officeholders.acn
    where officeholders.first_initial is not null

),

{#-
    Candidate pairs share (surname, first initial). Where both birth dates are known they
    must be equal, so those pairs also share the birth date, and the join uses it as a
    third blocking column: the candidates are then mostly true matches instead of every
    JOHN SMITH against every J SMITH. Pairs with an unknown birth date on either side are
    joined on (surname, first initial) alone. The three parts are disjoint.
-#}
{%- set pair_blocks = [
    ("directors.birth_date is not null and former.birth_date is not null",
     "and directors.birth_date = former.birth_date"),
    ("directors.birth_date is null", ""),
    ("directors.birth_date is not null and former.birth_date is null", ""),
] %}

same_person_pairs as (
{% for where, also_on in pair_blocks %}
    select
        directors.abn,
        directors.acn,
        directors.person_name,
        directors.birth_date,
        former.acn as deregistered_acn,
        former.company_name as deregistered_company_name,
        former.deregistration_date,
        former.role as officeholder_role,
        former.person_name as officeholder_person_name,
        former.birth_date as officeholder_birth_date,
        former.appointed_date as officeholder_appointed_date
    from current_directors as directors
    inner join officeholders_of_deregistered_companies as former
        on directors.person_surname = former.person_surname
        and directors.first_initial = former.first_initial
        {{ also_on }}
    where {{ where }}
        and directors.acn <> former.acn
        and {{ bvs.person_birth_dates_agree('directors.birth_date', 'former.birth_date') }}
        and {{ bvs.person_given_names_match('directors', 'former') }}
    {% if not loop.last %}
    union all
    {% endif %}
{%- endfor %}
),

same_person_pairs_ranked as (

    select
        *,
        row_number() over (
            partition by abn, person_name, birth_date, deregistered_acn
            order by
                case when officeholder_role = 'DIRECTOR' then 0 else 1 end,
                officeholder_appointed_date desc nulls last,
                officeholder_person_name,
                officeholder_birth_date nulls last
        ) as pair_rank
    from same_person_pairs

),

final as (

    select
        abn,
        acn,
        person_name,
        birth_date,
        deregistered_acn,
        deregistered_company_name,
        deregistration_date,
        officeholder_role,
        officeholder_person_name,
        officeholder_birth_date,
        cast(
            {{ bvs.full_months_between('deregistration_date', bvs.as_of_date()) }}
            as {{ dbt.type_int() }}
        ) as months_before_as_of,
        {{ bvs.as_of_date() }} as as_of_date
    from same_person_pairs_ranked
    where pair_rank = 1

)

select * from final
