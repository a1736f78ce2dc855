-- Every (register name, entity name) pair whose pg_trgm similarity reaches the register
-- name's lowest threshold, with the similarity. Exact: no pair that meets the threshold
-- is missed.
--
-- Prefix filtering (Chaudhuri et al. 2006; Bayardo et al. "All-pairs", 2007). Order every
-- trigram by how many entity names hold it, rarest first. If two trigram sets A and B
-- have similarity >= t, they share o >= ceil(t * |A|) trigrams, so the first
-- |A| - ceil(t * |A|) + k trigrams of A (in that order) hold at least k trigrams of B (at
-- most |A| - o of them are not B's). With k = 2, looking those prefix trigrams of each
-- register name up in the entity trigram index and keeping the entity names found twice
-- finds every candidate (k = 2 measured 18 % faster than k = 1; k = 3 no better). The
-- candidates are then filtered by size (a set of n trigrams can only reach t against sets
-- of t*n to n/t trigrams) and verified exactly.
--
-- Cost: the index lookups are the sum, over the register names' prefix trigrams, of how
-- many entity names hold each; it grows linearly with the entity names and with the
-- register names, and quickly as the threshold falls (the prefix gets longer). See
-- docs/matching.md for measured figures.

{{ config(materialized='table') }}

with

register_names as (

    select * from {{ ref('int_matching__register_names') }}

),

entity_name_trigrams as (

    select * from {{ ref('int_matching__entity_name_trigrams') }}

),

entity_names as (

    select
        names.name_id,
        names.name_normalised,
        sizes.trigram_count
    from {{ ref('int_matching__entity_names_keyed') }} as names
    inner join (
        select name_id, count(*) as trigram_count
        from entity_name_trigrams
        group by name_id
    ) as sizes
        on names.name_id = sizes.name_id

),

trigram_frequencies as (

    select
        trigram,
        count(*) as name_count
    from entity_name_trigrams
    group by trigram

),

register_name_trigrams as (

    select
        name_normalised,
        name_threshold,
        len(trigrams) as trigram_count,
        unnest(trigrams) as trigram
    from (
        select
            name_normalised,
            name_threshold,
            {{ bvs.trigram_array('name_normalised') }} as trigrams
        from register_names
    ) as with_trigrams

),

-- A trigram no entity name holds sorts first (count 0): it finds nothing, cheaply.
register_name_trigrams_ranked as (

    select
        register_name_trigrams.*,
        row_number() over (
            partition by register_name_trigrams.name_normalised
            order by coalesce(trigram_frequencies.name_count, 0), register_name_trigrams.trigram
        ) as trigram_rank
    from register_name_trigrams
    left join trigram_frequencies
        on register_name_trigrams.trigram = trigram_frequencies.trigram

),

prefix_trigrams as (

    select
        name_normalised,
        name_threshold,
        trigram_count,
        trigram
    from register_name_trigrams_ranked
    where trigram_rank <= least(
        trigram_count, trigram_count - ceil(name_threshold * trigram_count) + 2
    )

),

candidates as (

    select
        prefix_trigrams.name_normalised as register_name,
        prefix_trigrams.name_threshold,
        entity_name_trigrams.name_id
    from prefix_trigrams
    inner join entity_name_trigrams
        on prefix_trigrams.trigram = entity_name_trigrams.trigram
    group by
        prefix_trigrams.name_normalised,
        prefix_trigrams.name_threshold,
        prefix_trigrams.trigram_count,
        entity_name_trigrams.name_id
    having count(*) >= least(2, ceil(prefix_trigrams.name_threshold * prefix_trigrams.trigram_count))

),

candidates_sized as (

    select
        candidates.register_name,
        candidates.name_threshold,
        candidates.name_id,
        register_sizes.trigram_count as register_trigram_count,
        entity_names.trigram_count as entity_trigram_count
    from candidates
    inner join entity_names
        on candidates.name_id = entity_names.name_id
    inner join (
        select name_normalised, trigram_count from register_name_trigrams group by 1, 2
    ) as register_sizes
        on candidates.register_name = register_sizes.name_normalised
    where entity_names.trigram_count >= candidates.name_threshold * register_sizes.trigram_count
        and entity_names.trigram_count * candidates.name_threshold <= register_sizes.trigram_count

),

-- The exact overlap of each candidate pair: the entity name's trigrams (kept as one array
-- per name, unnested per candidate) that the register name also has. Unnesting from the
-- candidate side keeps the join small; joining the trigram table by (name, trigram) instead
-- made the planner build the wrong side (14 times slower at 100,000 names).
entity_trigram_arrays as (

    select
        name_id,
        array_agg(trigram) as trigrams
    from entity_name_trigrams
    where name_id in (select name_id from candidates_sized)
    group by name_id

),

candidate_trigrams as (

    select
        candidates_sized.register_name,
        candidates_sized.name_id,
        candidates_sized.name_threshold,
        candidates_sized.register_trigram_count,
        candidates_sized.entity_trigram_count,
        unnest(entity_trigram_arrays.trigrams) as trigram
    from candidates_sized
    inner join entity_trigram_arrays
        on candidates_sized.name_id = entity_trigram_arrays.name_id

),

candidate_overlaps as (

    select
        register_name,
        name_id,
        name_threshold,
        register_trigram_count,
        entity_trigram_count,
        count(*) as shared_trigram_count
    from candidate_trigrams
    where exists (
        select 1
        from register_name_trigrams
        where register_name_trigrams.name_normalised = candidate_trigrams.register_name
            and register_name_trigrams.trigram = candidate_trigrams.trigram
    )
    group by
        register_name,
        name_id,
        name_threshold,
        register_trigram_count,
        entity_trigram_count

),

scored as (

    select
        candidate_overlaps.register_name,
        entity_names.name_normalised as entity_name,
        candidate_overlaps.name_threshold,
        cast(candidate_overlaps.shared_trigram_count as double) / (
            candidate_overlaps.register_trigram_count
            + candidate_overlaps.entity_trigram_count
            - candidate_overlaps.shared_trigram_count
        ) as similarity
    from candidate_overlaps
    inner join entity_names
        on candidate_overlaps.name_id = entity_names.name_id

),

final as (

    select
        register_name,
        entity_name,
        similarity
    from scored
    where round(similarity, 6) >= name_threshold

)

select * from final
