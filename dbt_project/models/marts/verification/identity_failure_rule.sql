-- The decisive identity failures, one row, as dbt_project.yml declares them (var
-- `identity_failures`, docs/decisions/21-decisive-identity-failure.md): a FAIL on any of these checks puts the risk
-- score at least at the floor of the severity's band. The scoring macros compile from the
-- same declaration; the API reads this table from the snapshot to recompute the risk of a
-- narrowed or refreshed response (pipelines/serving/verify.py).

{%- set rule = bvs.identity_failure_rule() %}
select
    cast('{{ rule.checks | join(",") }}' as varchar) as checks,
    cast('{{ rule.severity }}' as varchar) as severity,
    cast({{ bvs.identity_failure_floor_value() }} as double) as risk_floor
