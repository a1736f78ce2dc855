{#
    The check ids of CONTRACT.md, in its order: one tile per id and ABN. The seed
    `check_weights` holds the same ids with their weights (test
    assert_check_weights_cover_every_check keeps the two equal).
#}
{% macro check_ids() -%}
    {{ return([
        'abn_status', 'gst', 'domain', 'email', 'trust', 'web_presence', 'address', 'phone',
        'street_view', 'social', 'licence', 'conduct', 'phoenix', 'disability_register',
        'insolvency', 'charities', 'tax_practitioners', 'prudential', 'super_fund',
        'company_status', 'business_names', 'financial_advisers', 'banned_disqualified',
        'financial_services_licence', 'gazette', 'tax_debt', 'workplace_compliance',
        'customer_reviews', 'rd_incentive', 'modern_slavery', 'workforce_gender',
        'government_contracts', 'competition_enforcement', 'bcorp', 'activist',
        'squeeze_signal'
    ]) }}
{%- endmacro %}

{#
    Checks that need a live lookup (pipelines/live, run by the asset live/tiles for ledger
    suppliers and ABNs with a known domain) or an input the caller supplies: an ABN they
    did not run for is N/A with this reason (docs/rules.md; decisions 2 and 18 in docs/decisions/).
#}
{% macro live_check_reasons() -%}
    {%- set not_checked = 'not checked live: the pipeline checks ledger suppliers and ABNs with a known domain (bvs verify --live checks any ABN)' -%}
    {{ return({
        'domain': 'WHOIS/RDAP and DNS ' ~ not_checked,
        'email': 'MX, SPF and DMARC ' ~ not_checked,
        'trust': 'blocklists and scam rating ' ~ not_checked,
        'web_presence': 'web presence ' ~ not_checked,
        'address': 'needs an invoice address to compare with the register (CONTRACT decision 2)',
        'phone': 'premium live check (AI voice call) ' ~ not_checked,
        'street_view': 'premium live check ' ~ not_checked,
        'social': 'social and registry ' ~ not_checked,
        'customer_reviews': 'review platforms ' ~ not_checked,
    }) }}
{%- endmacro %}

{#
    One live check's tile: the live checks' row for the ABN (int_check_evidence__live,
    joined as `live`), else N/A "Not run" with the reason above. Three columns, as
    check_rule gives.
#}
{% macro live_tile(check_id) -%}
    coalesce(live.{{ check_id }}_status, 'N/A') as {{ check_id }}_status,
    coalesce(live.{{ check_id }}_reason, '{{ "Not run: " ~ bvs.live_check_reasons()[check_id] ~ " => N/A" }}') as {{ check_id }}_reason,
    live.{{ check_id }}_detail as {{ check_id }}_detail
{%- endmacro %}

{#
    The risk flag ids of CONTRACT.md (docs/rules.md#risk-flags), in its order. The seed `flag_definitions`
    holds the same ids with severities (mart `flags`, published with every snapshot).
#}
{% macro flag_ids() -%}
    {{ return([
        'PHOENIX_PATTERN', 'ADVERSE_ACTIVE', 'FINANCIAL_ADVISER_BANNED', 'LIQUIDATOR_LINKED',
        'LICENCE_MISMATCH', 'WARN_CLUSTER', 'LICENCE_SUSPENDED_ACTIVE', 'ADVERSE_PATTERN',
        'COMPLIANCE_DUAL_FAILURE'
    ]) }}
{%- endmacro %}
