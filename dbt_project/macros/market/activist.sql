{#  An activist's stable id, the key of its entity profile (GET /api/robot/activists/{id}):
    the name folded to ASCII, lower case, every run of other characters one hyphen, none at
    either end ("Viceroy Research" -> viceroy-research). The name is the only identity the
    campaign files carry; a name that normalises the same is the same activist. #}
{% macro activist_id(name) -%}
    {{ bvs.regexp_replace(
        bvs.regexp_replace('lower(' ~ bvs.fold_accents(name) ~ ')', '[^a-z0-9]+', '-'),
        '^-+|-+$', ''
    ) }}
{%- endmacro %}
