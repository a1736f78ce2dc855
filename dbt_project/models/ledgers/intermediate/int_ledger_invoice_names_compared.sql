-- The invoice name (a ledger row's supplier_name) against every current name of its ABN
-- (legal, trading and registered business names), CONTRACT decision 13: pg_trgm
-- similarity after the project's normalisation (decision 8); the best name counts. One row
-- per supplier that has both an ABN and a supplier name.

with

suppliers as (

    select
        customer,
        ledger,
        supplier_key,
        abn,
        supplier_name,
        {{ bvs.normalise_name('supplier_name') }} as invoice_name_normalised
    from {{ ref('stg_ledgers__suppliers') }}
    where abn is not null
        and supplier_name is not null

),

current_names as (

    select
        abn,
        name,
        name_normalised
    from {{ ref('stg_ledgers__snapshot_entity_names') }}
    where name_kind in ('legal', 'trading', 'business_name')
        and (bn_status is null or bn_status = 'Registered')
        and name_normalised is not null

),

compared as (

    select
        suppliers.customer,
        suppliers.ledger,
        suppliers.supplier_key,
        suppliers.supplier_name as invoice_name,
        current_names.name as register_name,
        coalesce({{ bvs.trigram_array_similarity(
            bvs.trigram_array('suppliers.invoice_name_normalised'),
            bvs.trigram_array('current_names.name_normalised')
        ) }}, 0.0) as similarity
    from suppliers
    inner join current_names
        on suppliers.abn = current_names.abn

),

ranked as (

    select
        *,
        row_number() over (
            partition by customer, ledger, supplier_key
            order by similarity desc, register_name
        ) as rank_by_similarity
    from compared

),

final as (

    select
        customer,
        ledger,
        supplier_key,
        invoice_name,
        register_name as best_register_name,
        cast(similarity as double) as best_similarity
    from ranked
    where rank_by_similarity = 1

)

select * from final
