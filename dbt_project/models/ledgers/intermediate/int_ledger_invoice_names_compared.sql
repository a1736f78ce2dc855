-- The invoice name (a ledger row's supplier_name) against every current name of its ABN
-- (legal, trading and registered business names), docs/decisions/13-invoice-name.md: pg_trgm
-- similarity after the project's normalisation (decision 8); the best name counts. One row
-- per supplier that has both an ABN and a supplier name.
--
-- Most invoices carry the registered name: a normalised name equal to one of the ABN's is
-- similarity 1, the most there is, and is settled by an equality join. Only the others are
-- compared trigram by trigram, as set arithmetic on trigram rows (macro
-- select_trigram_rows): shared / (trigrams of one + of the other - shared), joined on
-- (ABN, trigram), so no pair of an invoice and a name of another ABN is ever formed.

{{ config(materialized='table') }}

with

suppliers as (

    select
        supplier_id,
        abn,
        supplier_name,
        {{ bvs.normalise_name('supplier_name') }} as name_normalised
    from {{ ref('stg_ledgers__suppliers') }}
    where abn is not null
        and supplier_name is not null

),

current_names as (

    select
        abn || '|' || name as name_id,
        abn,
        name,
        name_normalised
    from {{ ref('stg_ledgers__snapshot_entity_names') }}
    where name_kind in ('legal', 'trading', 'business_name')
        and (bn_status is null or bn_status = 'Registered')
        and name_normalised is not null

),

exact as (

    select
        suppliers.supplier_id,
        min(current_names.name) as register_name,
        1.0 as similarity
    from suppliers
    inner join current_names
        on suppliers.abn = current_names.abn
        and suppliers.name_normalised = current_names.name_normalised
    group by suppliers.supplier_id

),

inexact as (

    select suppliers.*
    from suppliers
    left join exact
        on suppliers.supplier_id = exact.supplier_id
    where exact.supplier_id is null

),

inexact_names as (

    select current_names.*
    from current_names
    where current_names.abn in (select abn from inexact)

),

-- each trigram row keeps its ABN, so the only way to pair an invoice's trigrams with a
-- name's is within one ABN (a join on the trigram alone would pair every invoice with every
-- name that shares one)
invoice_trigrams as (

    {{ bvs.select_trigram_rows('inexact', 'abn, supplier_id', 'name_normalised') }}

),

name_trigrams as (

    {{ bvs.select_trigram_rows('inexact_names', 'abn, name_id', 'name_normalised') }}

),

invoice_sizes as (

    select supplier_id, count(*) as trigram_count
    from invoice_trigrams
    group by supplier_id

),

name_sizes as (

    select name_id, count(*) as trigram_count
    from name_trigrams
    group by name_id

),

shared as (

    select
        invoice_trigrams.supplier_id,
        name_trigrams.name_id,
        count(*) as shared_count
    from invoice_trigrams
    inner join name_trigrams
        on invoice_trigrams.abn = name_trigrams.abn
        and invoice_trigrams.trigram = name_trigrams.trigram
    group by invoice_trigrams.supplier_id, name_trigrams.name_id

),

compared as (

    select
        inexact.supplier_id,
        inexact_names.name as register_name,
        case
            when coalesce(invoice_sizes.trigram_count, 0) = 0 or coalesce(name_sizes.trigram_count, 0) = 0 then 0.0
            else 1.0 * coalesce(shared.shared_count, 0)
                / (invoice_sizes.trigram_count + name_sizes.trigram_count - coalesce(shared.shared_count, 0))
        end as similarity
    from inexact
    inner join inexact_names
        on inexact.abn = inexact_names.abn
    left join shared
        on inexact.supplier_id = shared.supplier_id
        and inexact_names.name_id = shared.name_id
    left join invoice_sizes
        on inexact.supplier_id = invoice_sizes.supplier_id
    left join name_sizes
        on inexact_names.name_id = name_sizes.name_id

),

ranked as (

    select
        *,
        row_number() over (
            partition by supplier_id
            order by similarity desc, register_name
        ) as rank_by_similarity
    from compared

),

best as (

    select supplier_id, register_name, similarity from exact

    union all

    select supplier_id, register_name, similarity
    from ranked
    where rank_by_similarity = 1

),

final as (

    select
        suppliers.supplier_id,
        suppliers.supplier_name as invoice_name,
        best.register_name as best_register_name,
        cast(best.similarity as double) as best_similarity
    from best
    inner join suppliers
        on best.supplier_id = suppliers.supplier_id

)

select * from final
