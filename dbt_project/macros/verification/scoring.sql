{#
    The assurance score, the risk score and level, and WARN_CLUSTER's count, over the
    <check>_status columns of a row: written once, read by `verifications` (every ABN) and
    `ledger_verifications` (a ledger's suppliers, with the ledger rules applied). The rules
    are docs/verification.md, "Score and risk".

    weight_pattern: the SQL expression of a check's weight with `{check}` standing for its
    id, e.g. 'weights.{check}_weight'.
#}

{# docs/rules.md#assurance-score: PASS scores the full weight, WARN half, FAIL nothing; N/A counts on neither side. #}
{% macro assurance_points(weight_pattern) -%}
    (
        {%- for check_id in bvs.check_ids() %}
        {%- set weight = weight_pattern.replace('{check}', check_id) %}
        case {{ check_id }}_status
            when 'PASS' then {{ weight }}
            when 'WARN' then 0.5 * {{ weight }}
            else 0
        end{% if not loop.last %} +{% endif %}
        {%- endfor %}
    )
{%- endmacro %}

{% macro assurance_weight_counted(weight_pattern) -%}
    (
        {%- for check_id in bvs.check_ids() %}
        case when {{ check_id }}_status in ('PASS', 'WARN', 'FAIL') then {{ weight_pattern.replace('{check}', check_id) }} else 0 end
        {%- if not loop.last %} +{% endif %}
        {%- endfor %}
    )
{%- endmacro %}

{# 100 * points / weight counted, one decimal; null when every weighted tile is N/A. #}
{% macro assurance_score(points, weight_counted) -%}
    case when {{ weight_counted }} > 0 then round(cast(100.0 * {{ points }} / {{ weight_counted }} as numeric), 1) end
{%- endmacro %}

{# The risk bands of dbt_project.yml (var `risk_levels`), highest floor first. #}
{% macro risk_levels() -%}
    {{ return(var('risk_levels') | sort(attribute='risk_floor', reverse=true)) }}
{%- endmacro %}

{# The risk score floor of the most severe flag that fired (flag_definitions.severity_rank). #}
{% macro flag_floor(max_severity_rank) -%}
    case {{ max_severity_rank }}
        {%- for band in bvs.risk_levels() %}
        when {{ band.severity_rank }} then {{ band.risk_floor }}
        {%- endfor %}
        else 0
    end
{%- endmacro %}

{% macro flag_severity(max_severity_rank) -%}
    case {{ max_severity_rank }}
        {%- for band in bvs.risk_levels() %}
        when {{ band.severity_rank }} then '{{ band.severity }}'
        {%- endfor %}
    end
{%- endmacro %}

{#
    A decisive identity failure (docs/decisions/21-decisive-identity-failure.md): a FAIL on one of the rule's checks
    (var `identity_failures`) puts the risk score at least at the floor of its severity's
    band. Over a row's <check>_status columns.
#}
{% macro identity_failure_rule() -%}
    {{ return(var('identity_failures')) }}
{%- endmacro %}

{% macro identity_failure_floor_value() -%}
    {%- set severity = bvs.identity_failure_rule()['severity'] %}
    {%- set bands = bvs.risk_levels() | selectattr('severity', 'equalto', severity) | list %}
    {%- if bands | length != 1 %}
        {{ exceptions.raise_compiler_error("var identity_failures: severity " ~ severity ~ " has no band in var risk_levels") }}
    {%- endif %}
    {{- return(bands[0].risk_floor) }}
{%- endmacro %}

{% macro identity_floor() -%}
    case when
        {%- for check_id in bvs.identity_failure_rule()['checks'] %}
        {{ check_id }}_status = 'FAIL'{% if not loop.last %} or{% endif %}
        {%- endfor %}
    then {{ bvs.identity_failure_floor_value() }} else 0 end
{%- endmacro %}

{# The failing checks of the rule, in its order, as a JSON array of check ids ('[]' for none). #}
{% macro identity_failures() -%}
    '[' || concat_ws(','
        {%- for check_id in bvs.identity_failure_rule()['checks'] %},
        case when {{ check_id }}_status = 'FAIL' then '"{{ check_id }}"' end
        {%- endfor %}
    ) || ']'
{%- endmacro %}

{#
    100 minus the assurance score, raised to the floor of the most severe flag and to the
    identity-failure floor.
#}
{% macro risk_score(assurance_score, flag_floor, identity_floor='0') -%}
    greatest(coalesce(100 - {{ assurance_score }}, 0), {{ flag_floor }}, {{ identity_floor }})
{%- endmacro %}

{# The level whose band holds the risk score; the lowest band (floor 0) takes the rest. #}
{% macro risk_level(risk_score) -%}
    {%- set bands = bvs.risk_levels() -%}
    case
        {%- for band in bands[:-1] %}
        when {{ risk_score }} >= {{ band.risk_floor }} then '{{ band.level }}'
        {%- endfor %}
        else '{{ bands[-1].level }}'
    end
{%- endmacro %}

{#
    WARN_CLUSTER (docs/rules.md#risk-flags): four or more WARN tiles (var `warn_cluster`: min_warns) while the
    entity has no domain or no web presence. The domain-cascade filter (cascade_checks) comes first: with no domain, the web, WHOIS, e-mail,
    trust and street-view WARNs are not counted (they only echo the missing domain). No
    domain = the domain check ran and found none (N/A); no web presence = the web check ran
    and found no live site (N/A or FAIL). A live check that did not run ("Not run: ..."
    reasons) is unknown, not negative (docs/decisions/18-a-check-that-did-not-run-is-unknown.md): until the live checks run,
    WARN_CLUSTER does not fire. Three columns over a row's <check>_status and _reason columns.
#}

{% macro found_no_domain() -%}
    (domain_status = 'N/A' and coalesce(domain_reason, '') not like 'Not run%')
{%- endmacro %}

{% macro found_no_web_presence() -%}
    (web_presence_status in ('N/A', 'FAIL') and coalesce(web_presence_reason, '') not like 'Not run%')
{%- endmacro %}
{# The rule's parameters, as dbt_project.yml declares them (var `warn_cluster`). #}
{% macro warn_cluster_rule() -%}
    {{ return(var('warn_cluster')) }}
{%- endmacro %}

{% macro warn_cluster_cascade() -%}
    {{ return(bvs.warn_cluster_rule()['cascade_checks']) }}
{%- endmacro %}

{% macro warn_cluster_columns() -%}
    {%- set cascade_excluded = bvs.warn_cluster_cascade() %}
    {%- set warn_counted = bvs.check_ids() | reject('in', cascade_excluded) | list %}
    {{ bvs.found_no_domain() }} as has_no_domain,
    {{ bvs.found_no_web_presence() }} as has_no_web_presence,
    (
        {%- for check_id in warn_counted %}
        case when {{ check_id }}_status = 'WARN' then 1 else 0 end +
        {%- endfor %}
        case when {{ bvs.found_no_domain() }} then 0 else (
            {%- for check_id in cascade_excluded %}
            case when {{ check_id }}_status = 'WARN' then 1 else 0 end{% if not loop.last %} +{% endif %}
            {%- endfor %}
        ) end
    ) as warn_count
{%- endmacro %}

{% macro warn_cluster_fires() -%}
    (has_no_domain or has_no_web_presence) and warn_count >= {{ bvs.warn_cluster_rule()['min_warns'] | int }}
{%- endmacro %}

{% macro warn_cluster_evidence() -%}
    {{ bvs.json_object([
        ('warn_count', 'warn_count'),
        ('no_domain', 'has_no_domain'),
        ('no_web_presence', 'has_no_web_presence'),
    ]) }}
{%- endmacro %}
