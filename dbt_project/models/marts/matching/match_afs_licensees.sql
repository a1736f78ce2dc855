-- Every (afs licensees record, ABN) pair that meets the register's rule, with the method and
-- score: the rule is in int_match_records__afs_licensees.

{{ config(
    materialized=bvs.match_table_materialization(),
    match_record_inputs=['int_match_records__afs_licensees'],
) }}

{{ bvs.register_matches(ref('int_match_records__afs_licensees'), ['licence_number']) }}
