-- Every sole trader (an individual's ABN with a legal name), with its own name and the hash
-- of every input of its `entities` row (int_entity_inputs, carried by `entities`), from
-- which its person-name key is computed: what int_matching__sole_traders_keyed keys, and
-- compares to key again only the sole traders whose row changed. An ABN that stops being
-- one has no row here, so its key is deleted.

select
    abn,
    input_hash,
    legal_name as person_name
from {{ ref('entities') }}
where is_individual
    and legal_name is not null
