-- The suppliers of the ledgers in this run: one row per ledger row, with its resolution
-- (verified, resolved_by_name, needs_review) and the ABN it is verified by (null when none
-- could be used). Cleaned and validated in Python (pipelines/ledgers/intake.py); a
-- domain, address or phone the user overrode is already in place (pipelines/ledgers/overrides.py).

with

source as (

    select * from {{ source('ledger_run', 'suppliers') }}

),

renamed as (

    select
        -- the row's number in the run: the key the ledger models join on
        supplier_id,
        customer,
        ledger,
        run_id,
        cast(run_date as date) as run_date,
        snapshot_id,
        ledger_file,
        ledger_sha256,
        cast(line as integer) as line,
        supplier_key,
        supplier_ref,
        abn,
        abn_given,
        supplier_name,
        domain,
        email,
        phone,
        state,
        postcode,
        cast(annual_spend_aud as double) as annual_spend_aud,
        cast(gst_charged as boolean) as gst_charged,
        resolution,
        review_reason,
        candidates,
        -- the fields whose value the user supplied (docs/ledgers.md), a JSON array, or null
        user_supplied
    from source

)

select * from renamed
