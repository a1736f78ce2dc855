{#
    "Today" for age and recency rules, as a SQL date literal (YYYY-MM-DD), from the first of:

    1. the `as_of` var (`--vars '{"as_of": "2026-11-01"}'`, or a unit test's `vars`);
    2. the `BVS_AS_OF` environment variable (what the pipeline sets: `bvs run --as-of`);
    3. the current date in Australia/Brisbane.

    The environment variable is read only when dbt executes (`execute`), never while it
    parses: dbt re-parses the whole project when its vars change, and re-parses a file when
    an environment variable it read at parse time changes. So a daily run with a new as-of
    date keeps the partial parse (about 5 s of dbt's start on this project). No model's
    config, ref or source depends on the date, so nothing parse-time needs it.
    A malformed value fails at compile time rather than producing wrong ages.
#}
{% macro as_of_date() -%}
    {%- set raw = var('as_of', none) -%}
    {%- if raw is none and execute -%}
        {%- set raw = env_var('BVS_AS_OF', '') | trim or none -%}
    {%- endif -%}
    {%- if raw is none -%}
        {%- set raw = modules.datetime.datetime.now(modules.pytz.timezone('Australia/Brisbane')).date().isoformat() -%}
    {%- endif -%}
    {%- set raw = raw | string | trim -%}
    {%- if not modules.re.match('^[0-9]{4}-[0-9]{2}-[0-9]{2}$', raw) -%}
        {{ exceptions.raise_compiler_error("as_of must be a date YYYY-MM-DD, got '" ~ raw ~ "'") }}
    {%- endif -%}
    {%- do modules.datetime.date.fromisoformat(raw) -%}
    cast('{{ raw }}' as date)
{%- endmacro %}
