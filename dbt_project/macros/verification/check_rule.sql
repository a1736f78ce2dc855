{#
    One check's outcome rules as data: an ordered list of (SQL condition, rule row). The
    first condition that holds decides; the rule row is the docs/rules.md row it implements,
    written "condition => STATUS", and the status is read from it (the word after "=>").
    Gives three columns: <check_id>_status, <check_id>_reason (the rule row that decided)
    and <check_id>_detail (the evidence, JSON text).

    A check whose data has not been loaded (int_check_sources) is N/A whatever its rules
    say, with the missing sources as the reason: a verification never shows PASS, WARN or
    FAIL on data it does not have.

        {{ bvs.check_rule('insolvency', [
            ('insolvency.exad_count > 0', 'Found with status EXAD => FAIL'),
            ('true',                      'Not found => PASS'),
        ], detail='insolvency.records') }}
#}
{% macro check_rule(check_id, rules, detail=none) -%}
    {%- set detail = detail if detail is not none else 'cast(null as ' ~ dbt.type_string() ~ ')' -%}
    {%- set loaded = 'check_data.' ~ check_id ~ '_is_loaded' -%}
    case
        when not {{ loaded }} then 'N/A'
        {%- for condition, row in rules %}
        when {{ condition }} then '{{ bvs.rule_status(row) }}'
        {%- endfor %}
    end as {{ check_id }}_status,
    case
        when not {{ loaded }}
            then 'Data not loaded => N/A (' || check_data.{{ check_id }}_missing || ')'
        {%- for condition, row in rules %}
        when {{ condition }} then '{{ row | replace("'", "''") }}'
        {%- endfor %}
    end as {{ check_id }}_reason,
    case when {{ loaded }} then {{ detail }} end as {{ check_id }}_detail
{%- endmacro %}

{% macro rule_status(row) -%}
    {%- set parts = row.split('=>') -%}
    {%- if parts | length != 2 -%}
        {{ exceptions.raise_compiler_error("rule row must read 'condition => STATUS': " ~ row) }}
    {%- endif -%}
    {%- set status = parts[1].strip().split(' ')[0] -%}
    {%- if status not in ['PASS', 'WARN', 'FAIL', 'N/A', 'HIGH', 'MED', 'LOW'] -%}
        {{ exceptions.raise_compiler_error("unknown status '" ~ status ~ "' in rule row: " ~ row) }}
    {%- endif -%}
    {{ status }}
{%- endmacro %}
