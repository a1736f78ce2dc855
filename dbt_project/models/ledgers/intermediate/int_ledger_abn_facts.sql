-- The facts of each ABN of the run that are followed from run to run besides the tiles
-- (docs/decisions/16-changes-between-runs.md "material change"), one row per (ABN, kind, subject):
--
--   director        a current director (marts.network_officeholders, as of the snapshot)
--   adverse_record  a record of a conduct regulator matched to the ABN: ACCC, QBCC, NSW Fair
--                   Trading, VBA/BPC, QLD OFT (the regulators of the conduct check, decision 5)
--   enforcement     an enforcement action of the other regulators: Fair Work Ombudsman
--                   (workplace compliance) and the NDIS Commission (banning orders,
--                   revocations, suspensions, notices) (decided)
--   insolvency      a matching insolvency gazette notice, or the company found in external
--                   administration or dissolved (the insolvency check's match)

with

officeholders as (

    select * from {{ ref('stg_ledgers__snapshot_officeholders') }}

),

adverse as (

    select * from {{ ref('stg_ledgers__snapshot_adverse_matches') }}

),

gazette as (

    select * from {{ ref('stg_ledgers__snapshot_gazette_matches') }}

),

insolvency as (

    select * from {{ ref('stg_ledgers__snapshot_insolvency_matches') }}

),

facts as (

    select distinct abn, 'director' as kind, person_name as subject
    from officeholders
    where is_current_director

    union all

    select distinct
        abn,
        case
            when regulator in ('ACCC', 'QBCC', 'NSW_FAIR_TRADING', 'VBA_BPC', 'QLD_OFT') then 'adverse_record'
            else 'enforcement'
        end,
        regulator || ':' || record_id
    from adverse

    union all

    select distinct abn, 'insolvency', 'gazette notice ' || notice_id
    from gazette

    union all

    select distinct abn, 'insolvency', 'external administration or dissolution of ACN ' || acn
    from insolvency

)

select * from facts
