{#
    The rule rows of the checks that compare the register with what a caller supplies: ABN
    status (the invoice name), GST registration (billing) and address (docs/rules.md; decisions 2 and 13-15 in docs/decisions/). Each macro returns the (condition, rule row) list that
    `check_rule` takes, so int_check_outcomes (ABN alone) and the supplier-ledger models
    (ABN plus a ledger row) decide these tiles with the same rows, and a rule row that
    needs the caller's input is present only when that input is given.

    `e` is the alias of a relation with the columns of marts.entities; the other arguments
    are SQL expressions of the ledger row (none: verified by ABN alone).
#}

{#
    ABN status. invoice_similarity: the best pg_trgm similarity of the invoice name with
    every current name of the ABN (null when the row has no supplier name). docs/decisions/13-invoice-name.md: at least 0.9 the name matches; below 0.5 it differs materially (FAIL); in between
    ABN status is WARN.
#}
{% macro abn_status_rules(e, as_of, invoice_similarity=none) -%}
    {%- set rules = [
        (e ~ ".abn_status <> 'ACT'", "ABN cancelled, suspended or not found => FAIL"),
        (e ~ ".asic_company_status = 'DRGD'", "Corporate-register company status deregistered => FAIL"),
    ] -%}
    {%- if invoice_similarity is not none -%}
        {%- set has_name = invoice_similarity ~ " is not null" -%}
        {%- set matches = bvs.similarity_meets(invoice_similarity, 0.9, 'true') -%}
        {%- set differs = 'not ' ~ bvs.similarity_meets(invoice_similarity, 0.5, 'true') -%}
        {%- do rules.extend([
            (has_name ~ " and " ~ differs, "Registered name differs materially from invoice name => FAIL"),
            (e ~ ".abn_status_from_date is null", "ABN active, status date unknown => WARN (decided)"),
            (has_name ~ " and " ~ matches ~ " and " ~ e ~ ".abn_status_from_date <= " ~ bvs.months_before(as_of, 6),
                "ABN active, age at least 6 months, name match at least 90% => PASS"),
            (has_name ~ " and not " ~ matches, "ABN active, name differs from the invoice name (match 50% to 90%) => WARN (decided)"),
        ]) -%}
    {%- else -%}
        {%- do rules.append((e ~ ".abn_status_from_date is null", "ABN active, status date unknown => WARN (decided)")) -%}
    {%- endif -%}
    {%- do rules.extend([
        (e ~ ".abn_status_from_date <= " ~ bvs.months_before(as_of, 6), "ABN active, age at least 6 months => PASS"),
        (e ~ ".abn_status_from_date <= " ~ bvs.months_before(as_of, 1), "ABN active, age 1 to 6 months => WARN"),
        ("true", "ABN active, age under 1 month => WARN (weight of concern rises with recency)"),
    ]) -%}
    {{ return(rules) }}
{%- endmacro %}

{#
    GST registration. gst_charged: the ledger row's boolean (null when not given);
    annual_spend: its amount in AUD. docs/decisions/14-gst-billing.md: not registered, and GST charged
    or a spend of at least A$75,000 (the registration threshold): FAIL, individuals included
    (a sole trader billing above the threshold must register too).
#}
{% macro gst_threshold_aud() -%}75000{%- endmacro %}

{% macro gst_rules(e, as_of, gst_charged=none, annual_spend=none) -%}
    {%- set rules = [
        (e ~ ".gst_status = 'ACT' and " ~ e ~ ".gst_status_from_date <= " ~ bvs.months_before(as_of, 3), "Registered, age at least 3 months => PASS"),
        (e ~ ".gst_status = 'ACT'", "Registered, age under 3 months => WARN"),
    ] -%}
    {%- if gst_charged is not none -%}
        {%- do rules.append((
            "coalesce(" ~ gst_charged ~ ", false) or coalesce(" ~ annual_spend ~ " >= " ~ bvs.gst_threshold_aud() ~ ", false)",
            "Not registered; appears to bill above the GST threshold => FAIL",
        )) -%}
    {%- endif -%}
    {%- do rules.extend([
        (e ~ ".is_individual", "Not registered; individual or sole trader => N/A"),
        ("true", "Not registered; company or partnership => WARN"),
    ]) -%}
    {{ return(rules) }}
{%- endmacro %}

{#
    Address: the ledger row's state and postcode against the ABR main business location
    (docs/decisions/15-address.md). Without a row (ABN alone) the check is not run.
#}
{% macro address_rules(e, state=none, postcode=none) -%}
    {%- if state is none -%}
        {{ return([("true", "Not run: " ~ bvs.live_check_reasons()['address'] ~ " => N/A")]) }}
    {%- endif -%}
    {%- set same_state = e ~ ".state = " ~ state -%}
    {%- set same_postcode = e ~ ".postcode = " ~ postcode -%}
    {{ return([
        (state ~ " is null", "No state on the ledger row => N/A (decided)"),
        ("coalesce(" ~ e ~ ".state, '') = ''", "The register holds no state for the ABN => N/A (decided)"),
        (e ~ ".asic_company_status = 'DRGD'", "State completely wrong, or company deregistered at the address => FAIL"),
        ("not (" ~ same_state ~ ")", "State completely wrong, or company deregistered at the address => FAIL"),
        (postcode ~ " is null or " ~ e ~ ".postcode is null or " ~ e ~ ".postcode = '0000'",
            "Same state, postcode not given on one side => WARN (decided)"),
        ("not (" ~ same_postcode ~ ")", "Minor state or postcode discrepancy => WARN"),
        (e ~ ".acn is null or " ~ e ~ ".asic_company_status = 'REGD'",
            "State and postcode match the business register and company status current => PASS"),
        ("true", "State and postcode match, company status not current => WARN (decided)"),
    ]) }}
{%- endmacro %}

{#
    Whether the user supplied the ledger row's value of `field` (domain, address, phone: docs/ledgers.md): the suppliers' `user_supplied` is a JSON array of field names.
#}
{% macro is_user_supplied(field, relation='suppliers') -%}
    coalesce({{ relation }}.user_supplied like '%"{{ field }}"%', false)
{%- endmacro %}
