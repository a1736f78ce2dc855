-- Network analysis (docs/network.md): one row per (entity ABN, officeholder row of its company) for
-- every ABN with an ACN, so a request for up to 20 ABNs reads their officeholders with
-- point lookups (`where abn = ?`, one per ABN) and matches people among them at read time
-- (pipelines/serving/network.py).
--
--   * officeholders: every officeholder row the warehouse has ever loaded, current or ceased
--     (int_officeholders_keyed: the current version of each appointment in the
--     directors__officeholders snapshot), the same history the phoenix links read, so a
--     past officeholder the latest extract no longer lists still connects two companies;
--   * the person: person_key is the normalised name `SURNAME, GIVEN NAMES` of
--     macros/persons.sql (upper case, accents folded, apostrophes and hyphens dropped, the
--     `Given Surname` form turned round); null when the name has no surname or no given
--     name (such a row matches nobody, as in phoenix_links). Two rows are the same person
--     when their names match by the rule of pipelines/matching/persons.py (equal surname,
--     compatible given names) and their birth dates do not contradict: decided at read
--     time among the requested entities' rows only;
--   * is_current: holds the office at the as-of date (appointed on or before it or on an
--     unknown date, not ceased by it), whatever the role; is_current_director is the
--     macro the phoenix links use (the same, and the role is DIRECTOR).
--
-- Ordered by abn (then the appointment), so the table's row groups cover narrow ABN ranges
-- and DuckDB's zone maps skip all but one of them on a point lookup; the serving snapshot
-- copies tables in insertion order.

with

entities as (

    select * from {{ ref('entities') }}

),

officeholders as (

    select * from {{ ref('int_officeholders_keyed') }}

),

entities_with_acn as (

    select
        abn,
        acn
    from entities
    where acn is not null

),

officeholders_of_entities as (

    select
        entities_with_acn.abn,
        officeholders.*
    from entities_with_acn
    inner join officeholders
        on entities_with_acn.acn = officeholders.acn

),

final as (

    select
        abn,
        acn,
        case
            when person_surname is not null and person_given_names is not null
                then person_surname || ', ' || person_given_names
        end as person_key,
        person_name,
        birth_date,
        role,
        appointed_date,
        ceased_date,
        {{ bvs.holds_office_at_as_of('officeholders_of_entities') }} as is_current,
        {{ bvs.is_current_director('officeholders_of_entities') }} as is_current_director,
        {{ bvs.as_of_date() }} as as_of_date
    from officeholders_of_entities

)

select * from final
order by abn, person_key, person_name, role, appointed_date
