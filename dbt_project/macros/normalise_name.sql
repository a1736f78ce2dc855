{#
    normalise_name(expr): the comparable form of an Australian entity name, used for name
    matching and search. Portable SQL; regular expressions go through bvs.regexp_replace.

    Steps, in order (the Python normaliser in pipelines/matching must do the same; the cases
    in the `entity_names_normalise_name_cases` unit test in models/marts/core/_core__models.yml
    are the shared reference):
      1. upper case; the sharp s (ß, ẞ) becomes SS (as Python's str.upper does)
      2. accents folded (É -> E) where the adapter can (bvs.fold_accents)
      3. `&` -> ` AND `
      4. apostrophes removed (O'BRIEN -> OBRIEN, SMITH'S -> SMITHS)
      5. every other run of characters that are not letters or digits -> one space
         (so `PTY. LTD.` -> `PTY LTD`, `P/L` -> `P L`, `CO-OP` -> `CO OP`), then trimmed
      6. a trustee prefix removed: everything up to ` ATF ` / ` AS TRUSTEE FOR `, then a
         leading `THE TRUSTEE FOR ` / `TRUSTEE FOR ` (ABR spells trusts `The Trustee for X`)
      7. legal forms removed from the end of the name, repeatedly: PTY, PROPRIETARY, LTD,
         LIMITED, INC, INCORPORATED, CO OPERATIVE, COOPERATIVE, CO OP, COOP, P L, NL, N L.
         Only at the end (a name is not emptied: `LIMITED` alone stays).
      8. a leading `THE ` removed
      9. a strata scheme's owners: a leading `OWNERS STRATA PLAN [NO] `, `OWNERS CORPORATION
         PLAN [NO] ` or `OWNERS CORPORATION [NO] ` becomes `SP `
     10. a designator at the end, after at least one word, becomes a short token, in this
         order: `[FAMILY] SUPERANNUATION FUND` / `[FAMILY] SUPER FUND` -> SF, `FAMILY TRUST` ->
         FT, `INVESTMENT TRUST` -> IT, `UNIT TRUST` -> UT, `DISCRETIONARY TRUST` -> DT,
         `TRUST` -> TR, `PARTNERSHIP` -> PS
     11. trimmed; an empty result is null

    Steps 8-10 exist for the trigram similarity (docs/decisions/08-similarity.md): words that many
    unrelated names share would otherwise carry most of a short name's trigrams, and `THE
    TRAN FAMILY TRUST` and `THE CAMPBELL FAMILY TRUST` scored 0.57, a conduct match (0.55).
    As tokens they still tell a family trust from a super fund or a company of the same name,
    with a few trigrams rather than a dozen (docs/matching.md).
#}
{% macro normalise_name(expr) -%}
    {%- set legal_forms = [
        'PTY', 'PROPRIETARY', 'LTD', 'LIMITED', 'INC', 'INCORPORATED',
        'CO OPERATIVE', 'COOPERATIVE', 'CO OP', 'COOP', 'P L', 'NL', 'N L'
    ] -%}
    {#- 1-3 -#}
    {%- set s = "replace(replace(upper(" ~ expr ~ "), 'ß', 'SS'), 'ẞ', 'SS')" -%}
    {%- set s = "replace(" ~ bvs.fold_accents(s) ~ ", '&', ' AND ')" -%}
    {#- 4 -#}
    {%- set s = bvs.regexp_replace(s, "['’‘`]", '') -%}
    {#- 5: spaces are left alone (rewriting every name is slow), then runs of them collapsed -#}
    {%- set s = bvs.regexp_replace(s, '[^\\p{L}\\p{N} ]+', ' ') -%}
    {%- set s = "trim(" ~ bvs.regexp_replace(s, ' {2,}', ' ') ~ ")" -%}
    {#- 6 -#}
    {%- set s = bvs.regexp_replace(s, '^.* (ATF|AS TRUSTEE FOR) ', '') -%}
    {%- set s = bvs.regexp_replace(s, '^(THE )?TRUSTEE FOR ', '') -%}
    {#- 7 -#}
    {%- set s = bvs.regexp_replace(s, '( (' ~ legal_forms | join('|') ~ '))+$', '') -%}
    {#- 8-10 (the names are trimmed here, so a pattern ending in a space has a word after it) -#}
    {%- set s = bvs.regexp_replace(s, '^THE ', '') -%}
    {%- set s = bvs.regexp_replace(s, '^OWNERS (STRATA PLAN|CORPORATION PLAN|CORPORATION)( NO)? ', 'SP ') -%}
    {#- a namespace: a `set` inside a Jinja loop does not outlive the loop -#}
    {%- set ns = namespace(s=s) -%}
    {%- for phrase, token in bvs.name_designators() -%}
        {%- set ns.s = bvs.regexp_replace(ns.s, ' (' ~ phrase ~ ')$', ' ' ~ token) -%}
    {%- endfor -%}
    {%- set s = ns.s -%}
    {#- 11 -#}
    nullif(trim({{ s }}), '')
{%- endmacro %}

{# Step 10's designators and their tokens, in the order they are tried (names.py: DESIGNATORS). #}
{% macro name_designators() -%}
    {{ return([
        ('(FAMILY )?(SUPERANNUATION|SUPER) FUND', 'SF'),
        ('FAMILY TRUST', 'FT'),
        ('INVESTMENT TRUST', 'IT'),
        ('UNIT TRUST', 'UT'),
        ('DISCRETIONARY TRUST', 'DT'),
        ('TRUST', 'TR'),
        ('PARTNERSHIP', 'PS'),
    ]) }}
{%- endmacro %}
