-- Every (business names record, ABN) pair that meets the register's rule, with the method and
-- score: the rule is in int_match_records__business_names.

{{ config(
    materialized=bvs.match_table_materialization(),
    match_record_inputs=['int_match_records__business_names'],
) }}

{{ bvs.register_matches(ref('int_match_records__business_names'), ['business_name', 'state_number']) }}
