-- Every (adverse record, ABN) pair that meets the register's rule, with the method and
-- score: the rule is in int_match_records__adverse.

{{ config(
    materialized=bvs.match_table_materialization(),
    match_record_inputs=['int_match_records__adverse'],
) }}

{{ bvs.register_matches(ref('int_match_records__adverse'), ['regulator', 'record_id']) }}
