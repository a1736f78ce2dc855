{#
    Person names in SQL: the key and the tolerant match of pipelines/matching/persons.py
    (`person_name_key`, `person_names_match`), so officeholders can be matched across
    companies inside the warehouse. tests/dbt/test_person_macros.py holds the two equal on a
    table of cases.

    A name is `SURNAME, GIVEN NAMES` (ASIC officeholders) or `Given Middle Surname`. Both
    reduce to (surname, given names):
      * upper case (ß -> SS), accents folded, apostrophes and hyphens dropped
        (O'BRIEN -> OBRIEN, SMITH-JONES -> SMITHJONES), every other run of characters that
        are not letters or digits (or a comma) -> one space;
      * with a comma: the surname is what comes before the first comma, the given names what
        comes after it (further commas are spaces);
      * without one: the surname is the last word with the particles before it (DE LA CRUZ),
        as long as one given name is left.

    Two names match when the surnames are equal, the first given names are equal or one is
    the initial of the other, and the middle names of the side with fewer of them appear, in
    order, among the other side's (initials allowed). A name without given names matches
    nothing.

    Usage: `select_person_keys(relation, name_column)` adds the key columns; join two keyed
    relations on (person_surname, first_initial), the blocking key every match shares, and
    keep the pairs where `person_given_names_match('a', 'b')` holds.

    Only the first `person_middle_name_slots()` middle names are compared (Python compares
    them all); people with more than four middle names are vanishingly rare in the
    registers, and a fixed number of columns keeps the SQL portable (no arrays or lambdas).
#}

{% macro person_middle_name_slots() -%}
    {{ return(4) }}
{%- endmacro %}

{# Same list as persons.SURNAME_PARTICLES. #}
{% macro person_surname_particles() -%}
    {{ return(['DA', 'DE', 'DEL', 'DELLA', 'DEN', 'DER', 'DI', 'DOS', 'DU', 'LA', 'LE', 'VAN', 'VON']) }}
{%- endmacro %}

{#
    Step 1: the comparable text of a name, trimmed and single-spaced (null when empty):
    upper case, accents folded, apostrophes and hyphens dropped, other punctuation a space.
#}
{% macro person_name_folded(expr) -%}
    {%- set s = "replace(replace(upper(" ~ expr ~ "), 'ß', 'SS'), 'ẞ', 'SS')" -%}
    {%- set s = bvs.fold_accents(s) -%}
    {%- set s = bvs.regexp_replace(s, "['’‘`-]", '') -%}
    {%- set s = bvs.regexp_replace(s, '[^\\p{L}\\p{N},]+', ' ') -%}
    {{ bvs._person_tidy(s) }}
{%- endmacro %}

{# Runs of spaces -> one, trimmed; '' -> null. #}
{% macro _person_tidy(expr) -%}
    nullif(trim({{ bvs.regexp_replace(expr, ' {2,}', ' ') }}), '')
{%- endmacro %}

{#
    The given names of the `Given Surname` form: everything before the last word and the
    particles in front of it. The regex needs a space before what it removes, so the first
    word always stays a given name (`DE LA CRUZ` -> given `DE`, as in Python).
#}
{% macro _person_given_of_uncommaed(folded) -%}
    {%- set particles = bvs.person_surname_particles() | join('|') -%}
    case
        when {{ dbt.position("' '", folded) }} > 0
            then {{ bvs.regexp_replace(folded, ' ((' ~ particles ~ ') )*[^ ]+$', '') }}
        else ''
    end
{%- endmacro %}

{# Step 2a: the surname of a folded name (person_name_folded); null when there is none. #}
{% macro person_surname(folded) -%}
    case
        when {{ dbt.position("','", folded) }} > 0
            then {{ bvs._person_tidy(dbt.split_part(folded, "','", 1)) }}
        else {{ bvs._person_tidy(
            "substr(" ~ folded ~ ", length(" ~ bvs._person_given_of_uncommaed(folded) ~ ") + 1)"
        ) }}
    end
{%- endmacro %}

{# Step 2b: the given names of a folded name, single-spaced (`JOHN PAUL`); null when none. #}
{% macro person_given_names(folded) -%}
    case
        when {{ dbt.position("','", folded) }} > 0
            then {{ bvs._person_tidy(
                "replace(substr(" ~ folded ~ ", " ~ dbt.position("','", folded) ~ " + 1), ',', ' ')"
            ) }}
        else {{ bvs._person_tidy(bvs._person_given_of_uncommaed(folded)) }}
    end
{%- endmacro %}

{#
    Step 3: the columns the match reads, from the given names (step 2b) of a name whose
    surname (step 2a) is `surname`:
      first_given_name, first_initial (null without a surname or a given name, so such rows
      never join), middle_name_1 .. middle_name_4 (null when absent), middle_name_count
      (capped at 4).
#}
{% macro person_given_name_columns(surname, given) -%}
    {%- set slots = bvs.person_middle_name_slots() -%}
    {{ dbt.split_part(given, "' '", 1) }} as first_given_name,
    case when {{ surname }} is not null then substr({{ given }}, 1, 1) end as first_initial,
    {%- for i in range(1, slots + 1) %}
    nullif({{ dbt.split_part(given, "' '", i + 1) }}, '') as middle_name_{{ i }},
    {%- endfor %}
    least(
        coalesce(length({{ given }}) - length(replace({{ given }}, ' ', '')), 0),
        {{ slots }}
    ) as middle_name_count
{%- endmacro %}

{#
    The three steps in one select over `relation` (a CTE name or a ref), every column of it
    kept, plus person_surname, person_given_names and the step 3 columns. Nested selects
    rather than one expression: each step reads the previous step's column, so the folding
    regexes run once per row.
#}
{% macro select_person_keys(relation, name_column) -%}
    select
        *,
        {{ bvs.person_given_name_columns('person_surname', 'person_given_names') }}
    from (
        select
            *,
            {{ bvs.person_surname('person_name_folded') }} as person_surname,
            {{ bvs.person_given_names('person_name_folded') }} as person_given_names
        from (
            select
                *,
                {{ bvs.person_name_folded(name_column) }} as person_name_folded
            from {{ relation }}
        ) as folded
    ) as split
{%- endmacro %}

{# One given name matches another: equal, or one is the initial of the other. #}
{% macro person_name_compatible(a, b) -%}
    coalesce(
        {{ a }} = {{ b }}
        or (length({{ a }}) = 1 and substr({{ b }}, 1, 1) = {{ a }})
        or (length({{ b }}) = 1 and substr({{ a }}, 1, 1) = {{ b }}),
        false
    )
{%- endmacro %}

{#
    The middle names of `short` (exactly middle_name_count of them) appear in order among
    those of `long`: some increasing choice of long's slots matches them one by one. The
    choices are enumerated here (2^slots of them), which is what the Python greedy scan
    decides; a slot long does not fill is null and matches nothing.
#}
{% macro _person_middles_within(short, long) -%}
    {%- set slots = bvs.person_middle_name_slots() -%}
    {%- set ns = namespace(choices=[[]]) -%}
    {#- every subset of long's slots, as an increasing list -#}
    {%- for slot in range(1, slots + 1) -%}
        {%- set grown = [] -%}
        {%- for choice in ns.choices -%}
            {%- do grown.append(choice) -%}
            {%- do grown.append(choice + [slot]) -%}
        {%- endfor -%}
        {%- set ns.choices = grown -%}
    {%- endfor -%}
    (
    {%- for count in range(0, slots + 1) %}
        {% if not loop.first %}or {% endif %}({{ short }}.middle_name_count = {{ count }}
        {%- if count > 0 %} and (
            {%- for choice in ns.choices if choice | length == count %}
            {% if not loop.first %}or {% endif %}(
                {%- for slot in choice -%}
                {% if not loop.first %} and {% endif %}{{ bvs.person_name_compatible(short ~ '.middle_name_' ~ loop.index, long ~ '.middle_name_' ~ slot) }}
                {%- endfor -%}
            )
            {%- endfor %}
        )
        {%- endif %})
    {%- endfor %}
    )
{%- endmacro %}

{#
    Given names compatible (persons.person_names_match without the surname, which the join
    compares): `a` and `b` are aliases of relations with the person_key_columns. Use it
    after joining on (person_surname, first_initial).
#}
{% macro person_given_names_match(a, b) -%}
    (
        {{ bvs.person_name_compatible(a ~ '.first_given_name', b ~ '.first_given_name') }}
        and case
            when {{ a }}.middle_name_count <= {{ b }}.middle_name_count
                then {{ bvs._person_middles_within(a, b) }}
            else {{ bvs._person_middles_within(b, a) }}
        end
    )
{%- endmacro %}

{# Birth dates do not contradict: equal when both are known. #}
{% macro person_birth_dates_agree(a, b) -%}
    ({{ a }} is null or {{ b }} is null or {{ a }} = {{ b }})
{%- endmacro %}

{#
    An officeholder row (`alias`) holds its office at the as-of date, whatever the role:
    appointed on or before it (an unknown appointment date counts as appointed), not ceased
    by it. The network's `is_current` reads this.
#}
{% macro holds_office_at_as_of(alias) -%}
    (({{ alias }}.appointed_date is null or {{ alias }}.appointed_date <= {{ bvs.as_of_date() }})
        and ({{ alias }}.ceased_date is null or {{ alias }}.ceased_date > {{ bvs.as_of_date() }}))
{%- endmacro %}

{#
    An officeholder row (`alias`) is a current director at the as-of date: role DIRECTOR and
    holding the office then. Phoenix links and the person-register match tables read
    directors through this.
#}
{% macro is_current_director(alias) -%}
    ({{ alias }}.role = 'DIRECTOR' and {{ bvs.holds_office_at_as_of(alias) }})
{%- endmacro %}
