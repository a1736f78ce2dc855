-- WARN_CLUSTER's parameters, one row, as dbt_project.yml declares them (var `warn_cluster`):
-- the least count of WARN tiles and the domain-cascade checks whose WARNs are not counted
-- when the entity has no domain. The scoring macros compile from the same declaration;
-- `bvs verify --live` and the API's cache=false read this table from the snapshot to
-- recompute the flag over the tiles they refreshed (pipelines/live/tiles.py:warn_cluster).

{%- set rule = bvs.warn_cluster_rule() %}
select
    cast({{ rule.min_warns | int }} as integer) as min_warns,
    cast('{{ rule.cascade_checks | join(",") }}' as varchar) as cascade_checks
