{#
    The combination of columns is unique in the model (nulls compare equal, as in a key).
    Returns one row per duplicated combination. Usage:

        data_tests:
          - unique_combination:
              arguments:
                combination_of_columns: [abn, name]
                written_key: abn        # optional, an incremental table's key column
                probe: name_id          # optional, the first column by default

    With `written_key`, a weekly build checks the combinations of the rows its builds wrote
    since the test last passed (macros/materializations/written_keys.sql): every row whose
    `probe` value is that of a written row (the written rows themselves when the probe is
    the key), so a written row that repeats a kept one is found too. A combination that includes the key (abn, name), or whose `probe` belongs to
    one key (a name id), has all its rows there. Any other run checks every row.
#}
{% test unique_combination(model, combination_of_columns, written_key=none, probe=none) %}

{%- set written = bvs.written_rows(model, written_key) if written_key else none %}
{%- set probe = probe or combination_of_columns[0] %}

with

rows_to_check as (

    select * from {{ model }}
    {%- if written and probe == written_key %}
    where {{ written }}
    {%- elif written %}
    where {{ probe }} in (select {{ probe }} from {{ model }} where {{ written }})
    {%- endif %}

),

combinations as (

    select
        {{ combination_of_columns | join(', ') }},
        count(*) as row_count
    from rows_to_check
    group by {{ combination_of_columns | join(', ') }}

),

final as (

    select * from combinations
    where row_count > 1

)

select * from final

{% endtest %}
