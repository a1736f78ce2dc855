-- Every (insolvency record, ABN) pair that meets the register's rule, with the method and
-- score: the rule is in int_match_records__insolvency.

{{ config(
    materialized=bvs.match_table_materialization(),
    match_record_inputs=['int_match_records__insolvency'],
) }}

{{ bvs.register_matches(ref('int_match_records__insolvency'), ['acn']) }}
