{#
    The combination of columns is unique in the model (nulls compare equal, as in a key).
    Returns one row per duplicated combination. Usage:

        data_tests:
          - unique_combination:
              arguments:
                combination_of_columns: [abn, name]
#}
{% test unique_combination(model, combination_of_columns) %}

with

combinations as (

    select
        {{ combination_of_columns | join(', ') }},
        count(*) as row_count
    from {{ model }}
    group by {{ combination_of_columns | join(', ') }}

),

final as (

    select * from combinations
    where row_count > 1

)

select * from final

{% endtest %}
