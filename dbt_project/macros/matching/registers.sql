{#
    The registers matched to ABNs, one `int_match_records__<register>` model and one
    `match_<register>` mart each. Those in `matching_registers()` have rows with a name
    threshold and feed the trigram matching (int_matching__register_names).
#}
{% macro matching_registers() -%}
    {{ return([
        'insolvency', 'adverse', 'gazette', 'licences', 'business_names',
        'financial_advisers', 'banned_organisations', 'afs_licensees', 'credit_licensees',
        'registers', 'asx_listed'
    ]) }}
{%- endmacro %}

{#
    A record's own identifier (docs/decisions/19-a-records-own-identifier.md): true when the ABN or ACN the record
    lists names an entity of the warehouse (the record is then matched by it alone), false
    when it lists one that names no entity (it fails its check digit, or no ABR record has
    it: "listed ABN not found", and the record is matched by its register's name rule), null
    when it lists none (the name rule too). `abn`, `acn`: the record's columns ('null': the
    register lists no such identifier); `records`: the relation the record is selected from.
    The entities are looked up for the identifiers `records` lists only: a lookup in every
    entity's identifier (a hash table of 2 M ABNs at 2 M) cost about 0.4 s per register
    and per model reading it.
#}
{% macro listed_identifier_found(records, abn='null', acn='null') -%}
    (case
        when {{ abn }} is null and {{ acn }} is null then null
        when {{ abn }} in (
            select abn from {{ ref('entities') }}
            where abn in (select {{ abn }} from {{ records }})
        ) then true
        when {{ acn }} in (
            select acn from {{ ref('entities') }}
            where acn in (select {{ acn }} from {{ records }})
        ) then true
        else false
    end)
{%- endmacro %}

{#
    The match table of one register: every (record, ABN) pair that meets the register's
    rule, one row per pair, by the strongest method that finds it: `abn` (the record's ABN
    is the entity's), then `acn` (the record's ACN is the entity's ACN), then `name` (pg_trgm
    similarity of normalised names meets the record's threshold; score = the similarity,
    matched_name = the entity's name that reached it).

    `records` is an int_match_records__* model: the key columns, abn, acn, match_name,
    match_name_normalised, name_threshold, name_threshold_inclusive; several rows per record
    when a record has several names. A record whose listed identifier names an entity has no
    name threshold (listed_identifier_found): a name match of a record that lists an ABN or
    ACN says so in identifier_note ("listed ABN ... not found").

    The records and the ABNs' rows are read through the markers of the `match_table`
    materialisation (macros/materializations/match_table.sql), which a week replaces with
    the changed records and ABNs.
#}
{% macro register_matches(records, key_columns) -%}
-- the ABNs whose rows changed, for a week's build: {{ ref('int_matching__abn_inputs') }}
with

records as (

    select * from {{ records }} as records
    where {{ bvs.match_records('records', key_columns) }}

),

-- the records the name rule applies to, apart: only their names are normalised (read
-- through `records`, every record's name would be, as DuckDB computes a CTE read twice once)
name_records as (

    select * from {{ records }} as records
    where name_threshold is not null
        and {{ bvs.match_records('records', key_columns) }}

),

entities as (

    select abn, acn from {{ ref('entities') }} as entities
    where {{ bvs.match_abns('entities.abn') }}

),

entity_names as (

    select abn, name, name_normalised
    from {{ bvs.match_abn_rows(ref('entity_names'), ref('int_matching__changed_abn_names')) }} as entity_names
    where {{ bvs.match_abns('entity_names.abn') }}

),

name_similarities as (

    select * from {{ ref('int_matching__name_similarities') }}

),

{% for identifier in ['abn', 'acn'] %}
by_{{ identifier }} as (

    select
        {% for key in key_columns %}records.{{ key }},{% endfor %}
        entities.abn,
        '{{ identifier }}' as method,
        cast(1.0 as double) as score,
        cast(null as {{ dbt.type_string() }}) as matched_name,
        cast(null as {{ dbt.type_string() }}) as compared_name,
        cast(null as {{ dbt.type_string() }}) as identifier_note
    from records
    inner join entities
        on records.{{ identifier }} = entities.{{ identifier }}

),

{% endfor %}
by_name as (

    select
        {% for key in key_columns %}records.{{ key }},{% endfor %}
        entity_names.abn,
        'name' as method,
        cast(name_similarities.similarity as double) as score,
        entity_names.name as matched_name,
        records.match_name as compared_name,
        -- only a record whose listed identifier named no entity reaches the name rule with one
        case
            when records.abn is not null then 'listed ABN ' || records.abn || ' not found'
            when records.acn is not null then 'listed ACN ' || records.acn || ' not found'
        end as identifier_note
    from name_records as records
    inner join name_similarities
        on records.match_name_normalised = name_similarities.register_name
    inner join entity_names
        on name_similarities.entity_name = entity_names.name_normalised
    where {{ bvs.similarity_meets(
            'name_similarities.similarity',
            'records.name_threshold',
            'records.name_threshold_inclusive'
        ) }}

),

unioned as (

    select * from by_abn
    union all
    select * from by_acn
    union all
    select * from by_name

),

final as (

    {{ bvs.best_match_per_pair('unioned', key_columns, extra_columns=['identifier_note']) }}

)

select * from final
{%- endmacro %}

{#
    Matches of a person register (banned persons, liquidators, financial advisers) to ABNs
    through people (int_matching__people_keyed): `person_name` — the ABN is a sole trader
    whose own name matches; `director_name` — a current director (at the as-of date) of the
    ABN's company matches.

    `rule`:
      'similarity'  pg_trgm similarity of the normalised names at least `threshold`
                    (banned persons: docs/rules.md "person name similarity at least 0.75");
      'compatible'  the person-name rule of macros/persons.sql (same surname, compatible
                    given names; liquidators, advisers).
    Both join on the surname and the first initial first (people are blocked by them: every
    register spells the surname in full, and a person's first name starts with the same
    letter in every register); score is the similarity either way. The records (`records`,
    keyed by `key_columns`) and the people are read through the markers of the
    `match_table` materialisation, as in register_matches.
#}
{% macro person_matches(records, key_columns, name_column, rule, threshold=none) -%}
-- the ABNs whose rows changed, for a week's build: {{ ref('int_matching__abn_inputs') }}
with

register_people as (

    {{ bvs.select_person_keys(
        '(select * from ' ~ records ~ ' as records where ' ~ bvs.match_records('records', key_columns) ~ ')',
        name_column
    ) }}

),

people as (

    select * from {{ ref('int_matching__people_keyed') }} as people
    where {{ bvs.match_abns('people.abn') }}

),

candidates as (

    select
        {% for key in key_columns %}register_people.{{ key }},{% endfor %}
        people.abn,
        people.method,
        people.method_rank,
        people.person_name as matched_name,
        register_people.{{ name_column }} as compared_name
    from register_people
    inner join people
        on register_people.person_surname = people.person_surname
        and register_people.first_initial = people.first_initial
    {%- if rule == 'compatible' %}
    where {{ bvs.person_given_names_match('register_people', 'people') }}
    {%- endif %}

),

{#- Each distinct name normalised and split into trigrams once, not once per pair: a
    common name meets hundreds of register entries, and the normalisation is most of
    the cost. #}
matched_names as (

    select
        matched_name,
        {{ bvs.trigram_array(bvs.normalise_name('matched_name')) }} as trigrams
    from (select distinct matched_name from candidates) as names

),

compared_names as (

    select
        compared_name,
        {{ bvs.trigram_array(bvs.normalise_name('compared_name')) }} as trigrams
    from (select distinct compared_name from candidates) as names

),

pairs as (

    select
        {% for key in key_columns %}candidates.{{ key }},{% endfor %}
        candidates.abn,
        candidates.method,
        candidates.method_rank,
        {{ bvs.trigram_array_similarity('matched_names.trigrams', 'compared_names.trigrams') }} as score,
        candidates.matched_name,
        candidates.compared_name
    from candidates
    inner join matched_names
        on candidates.matched_name = matched_names.matched_name
    inner join compared_names
        on candidates.compared_name = compared_names.compared_name

)

select
    {% for key in key_columns %}{{ key }},{% endfor %}
    abn,
    method,
    cast(score as double) as score,
    matched_name,
    compared_name
from pairs
{%- if rule == 'similarity' %}
where round(score, 6) >= {{ threshold }}
{%- endif %}
{%- endmacro %}

{#
    Keep one row per (record, ABN): the strongest method (abn, acn, name, person_name,
    director_name), then the best score, then the first matched name and `extra_columns`
    (two registrations of one business name without a state number, each listing another
    ABN no entity has, are one record: its note names the first such ABN, on every build).
    `unioned` is a relation with the key columns, abn, method, score, matched_name,
    compared_name.
#}
{% macro best_match_per_pair(unioned, key_columns, extra_columns=[]) -%}
    select
        {{ key_columns | join(', ') }},
        abn,
        method,
        score,
        matched_name,
        compared_name
        {%- for column in extra_columns %},
        {{ column }}
        {%- endfor %}
    from (
        select
            *,
            row_number() over (
                partition by {{ key_columns | join(', ') }}, abn
                order by
                    case method
                        when 'abn' then 1
                        when 'acn' then 2
                        when 'name' then 3
                        when 'person_name' then 4
                        else 5
                    end,
                    score desc,
                    matched_name
                    {%- for column in extra_columns %},
                    {{ column }}
                    {%- endfor %}
            ) as match_rank
        from {{ unioned }}
    ) as ranked
    where match_rank = 1
{%- endmacro %}
