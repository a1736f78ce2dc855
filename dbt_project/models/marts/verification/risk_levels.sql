-- The risk bands, one row per flag severity, as dbt_project.yml declares them (var
-- `risk_levels`): the floor each severity puts under the risk score and the level whose band
-- begins there. The scoring macros compile from the same declaration; the API reads this
-- table from the snapshot to recompute the risk of a narrowed or refreshed response.

{%- for band in bvs.risk_levels() %}
select
    cast('{{ band.severity }}' as varchar) as severity,
    cast({{ band.severity_rank }} as integer) as severity_rank,
    cast({{ band.risk_floor }} as double) as risk_floor,
    cast('{{ band.level }}' as varchar) as level
{% if not loop.last %}union all{% endif %}
{%- endfor %}
