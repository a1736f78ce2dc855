{#
    Value cleaning shared by the staging models. Each macro is one rule of LANDING.md, so a
    reader can find where a publisher's quirk is resolved.
#}

{#
    Text: trim, collapse runs of whitespace (tabs, no-break spaces) to one space, '' -> null.
    The replace runs only on values that need it: rewriting every name is about six times
    slower than testing it, and most register names are already single-spaced.
#}
{% macro clean_text(expr) -%}
    nullif(trim(
        case
            when {{ bvs.regexp_contains(expr, '[\\s\\x{00A0}]{2}|[\\t\\n\\r\\f\\v\\x{00A0}]') }}
                then {{ bvs.regexp_replace(expr, '[\\s\\x{00A0}]+', ' ') }}
            else {{ expr }}
        end
    ), '')
{%- endmacro %}

{# Codes (status, state, entity type): trimmed, upper case, '' -> null. #}
{% macro clean_code(expr) -%}
    nullif(upper(trim({{ expr }})), '')
{%- endmacro %}

{#
    ABN / ACN: spaces stripped; empty, `0`, `00000000000` (any run of zeros) -> null,
    "no identifier" in every register (LANDING.md, general rules).
#}
{% macro clean_identifier(expr) -%}
    case
        when replace(replace(trim({{ expr }}), ' ', ''), '0', '') = '' then null
        else replace(trim({{ expr }}), ' ', '')
    end
{%- endmacro %}

{# The ABR writes 19000101 for "no date" (GST `NON`, for one): any 1900-01-01 -> null. #}
{% macro null_if_dummy_date(expr) -%}
    nullif({{ expr }}, cast('1900-01-01' as date))
{%- endmacro %}

{#
    ASIC's `*_ABN_ACN` columns hold an ABN (11 digits) or an ACN (9): the ingest checked the
    check digits of whichever it is; these pick one side by length (null otherwise).
#}
{% macro abn_of_abn_or_acn(expr) -%}
    case when length({{ bvs.clean_identifier(expr) }}) = 11 then {{ bvs.clean_identifier(expr) }} end
{%- endmacro %}

{% macro acn_of_abn_or_acn(expr) -%}
    case when length({{ bvs.clean_identifier(expr) }}) = 9 then {{ bvs.clean_identifier(expr) }} end
{%- endmacro %}

{# Multi-line free text (licence conditions, comments): trimmed, line breaks kept, '' -> null. #}
{% macro clean_long_text(expr) -%}
    nullif(trim({{ expr }}), '')
{%- endmacro %}
