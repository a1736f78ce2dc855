-- Every officeholder row (one per appointment: acn, person, role, appointed date) ever
-- loaded. The directors folder accumulates extracts, but a file taken out of it, or a newer
-- extract that no longer lists a deregistered company's officeholders, would otherwise lose
-- rows the 36-month phoenix window still needs (docs/decisions/07-history-the-extracts-forget.md). hard_deletes =
-- ignore keeps them. A new ceased date or birth date opens a new version; extracted_date and
-- source_file are those of the extract the version was first seen in (a re-listing of the
-- same facts in a later extract is not a change).

{% snapshot directors__officeholders %}

{{
    config(
        unique_key='officeholder_key',
        strategy='check',
        check_cols=['ceased_date', 'birth_date'],
        hard_deletes='ignore',
    )
}}

select
    -- the appointment's identity as staging deduplicates it; spelt out because a null part
    -- (no appointed date) would make the key null and the row would be inserted again on
    -- every run
    {{ dbt.concat([
        "coalesce(acn, '')", "'|'",
        "coalesce(person_name, '')", "'|'",
        "coalesce(role, '')", "'|'",
        "coalesce(cast(appointed_date as " ~ dbt.type_string() ~ "), '')"
    ]) }} as officeholder_key,
    acn,
    person_name,
    role,
    appointed_date,
    ceased_date,
    birth_date,
    extracted_date,
    source_file
from {{ ref('stg_directors__officeholders') }}

{% endsnapshot %}
