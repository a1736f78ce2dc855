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
    Checks that need a live lookup or an input the caller supplies: the warehouse never
    decides them, so every ABN gets N/A with this reason (SPEC 3.3; CONTRACT decision 2).
#}
{% macro live_check_reasons() -%}
    {{ return({
        'domain': 'needs a live WHOIS/RDAP and DNS lookup, not run by the warehouse',
        'email': 'needs a live MX, SPF and DMARC lookup, not run by the warehouse',
        'trust': 'needs live blocklist and scam-rating lookups, not run by the warehouse',
        'web_presence': 'needs a live web lookup, not run by the warehouse',
        'address': 'needs an invoice address to compare with the register (CONTRACT decision 2)',
        'phone': 'premium live check (AI voice call), not run by the warehouse',
        'street_view': 'premium live check, not run by the warehouse',
        'social': 'needs live social and registry lookups, not run by the warehouse',
        'customer_reviews': 'needs live review-platform lookups, not run by the warehouse',
    }) }}
{%- endmacro %}

{#
    The risk flag ids of CONTRACT.md (SPEC 2.4), in its order. The seed `flag_definitions`
    holds the same ids with severities (mart `flags`, published with every snapshot).
#}
{% macro flag_ids() -%}
    {{ return([
        'PHOENIX_PATTERN', 'ADVERSE_ACTIVE', 'FINANCIAL_ADVISER_BANNED', 'LIQUIDATOR_LINKED',
        'LICENCE_MISMATCH', 'WARN_CLUSTER', 'LICENCE_SUSPENDED_ACTIVE', 'ADVERSE_PATTERN',
        'COMPLIANCE_DUAL_FAILURE'
    ]) }}
{%- endmacro %}
