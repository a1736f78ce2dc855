-- Every check's outcome for every ABN: one row per ABN, three columns per check
-- (<check>_status, <check>_reason, <check>_detail). The rules are docs/rules.md, row by
-- row, in its order: each check is one `check_rule` call listing (condition, rule row); the
-- first condition that holds decides and the rule row is kept as the tile's reason. The
-- evidence each rule reads is gathered per register in int_check_evidence__*.
--
-- Decisions where docs/rules.md is open are marked "decided" in the rule row and listed in
-- docs/verification.md. Checks that need a live lookup or a caller's input are N/A with the
-- reason (macro live_check_reasons). A check whose sources were never loaded is N/A.

-- Built in slices of the ABNs at 20 M (macros/materializations/sliced_table.sql): every
-- ABN-keyed relation below reads one slice, `bvs.in_slice('abn')`. A week's build
-- recomputes only the ABNs whose inputs changed (int_check_inputs): the slice is then
-- those ABNs.
{{ config(
    materialized=bvs.sliced_table_materialization(),
    slice_rows_model='entities',
    incremental_key='abn',
    incremental_inputs='int_check_inputs',
) }}

{%- set as_of = bvs.as_of_date() %}

with

entities as (

    select * from {{ ref('entities') }} where {{ bvs.in_slice('abn') }}

),

-- every per-ABN evidence relation, under the name the rules below read it by; the same list
-- is what int_check_inputs hashes (macros/verification/check_evidence.sql)
{%- for name, model in bvs.check_evidence_by_abn() %}
{{ name }} as (

    select * from {{ ref(model) }} where {{ bvs.in_slice('abn') }}

),
{% endfor %}

viper as (

    select * from {{ ref('viper') }}

),

squeeze as (

    select * from {{ ref('squeeze_latest') }} where market = 'asx'

),

licence_coverage as (

    select * from {{ ref('int_check_evidence__licence_coverage') }}

),

check_data as (

    select * from {{ ref('int_check_evidence__loaded') }}

),

-- what an ABN's outcomes were computed from (int_check_inputs): the incremental build
-- recomputes the ABNs whose hash changed (macros/materializations/sliced_table.sql)
inputs as (

    select * from {{ ref('int_check_inputs') }} where {{ bvs.in_slice('abn') }}

),

outcomes as (

    select
        entities.abn,

        -- ABN status ------------------------------------------------------------------
        -- Age is measured from the ABR status-from date, so a reinstated ABN restarts the
        -- clock. The rule rows are macros/verification/abn_gst_address_rules.sql; the invoice-name
        -- rows apply only with an invoice name (docs/decisions/02-comparison-inputs.md: a supplier ledger row,
        -- models/ledgers/).
        {{ bvs.check_rule('abn_status', bvs.abn_status_rules('entities', as_of), detail=bvs.json_object([
            ('abn_status', 'entities.abn_status'),
            ('status_from', 'entities.abn_status_from_date'),
            ('company_status', 'entities.asic_company_status'),
        ])) }},

        -- GST registration ------------------------------------------------------------
        -- "Appears to bill above the GST threshold => FAIL" needs a supplier ledger row
        -- (docs/decisions/02-comparison-inputs.md): ledger re-verification applies it (abn_gst_address_rules.sql).
        {{ bvs.check_rule('gst', bvs.gst_rules('entities', as_of), detail=bvs.json_object([
            ('gst_status', 'entities.gst_status'),
            ('status_from', 'entities.gst_status_from_date'),
        ])) }},

        -- Live checks: WHOIS and domain age, e-mail, trust and reputation, web presence,
        -- phone, street view, social and registry. Their rule rows are Python, one case per
        -- docs/rules.md row (pipelines/live/tiles.py), run by the asset live/tiles; an ABN they
        -- did not run for is N/A "Not run" with the reason (docs/decisions/18-a-check-that-did-not-run-is-unknown.md).
        {%- for check_id in bvs.live_check_reasons() if check_id not in ('customer_reviews', 'address') %}
        {{ bvs.live_tile(check_id) }},
        {%- endfor %}

        -- Address: compared with a ledger row's state and postcode (docs/decisions/15-address.md),
        -- so not run by ABN alone.
        {{ bvs.check_rule('address', bvs.address_rules('entities')) }},

        -- Licence status --------------------------------------------------------------
        -- The best licence of the entity's trade decides (docs/decisions/04-best-licence-decides.md): active, then
        -- conditional, then suspended or cancelled, then expired within 12 months; trades
        -- from seed anzsic_trades. A trades entity in a state no loaded licence register
        -- covers is N/A, not "no licence found" (decision 17; seed licence_registers).
        {{ bvs.check_rule('licence', [
            ("licences.active_correct_count > 0", "Active licence of correct class => PASS"),
            ("licences.conditional_correct_count > 0", "Expired within 12 months, or conditional licence => WARN"),
            ("licences.suspended_cancelled_correct_count > 0", "Suspended or cancelled licence => FAIL"),
            ("licences.expired_within_12_months_count > 0", "Expired within 12 months, or conditional licence => WARN"),
            ("industry.trade is not null and licence_coverage.state is null", "No licence register covers the entity's state => N/A (decided)"),
            ("industry.trade is not null", "Construction or trades entity with no licence found => WARN"),
            ("industry.abn is not null", "Non-trades industry => N/A"),
            ("true", "No industry code on record (industry unknown) => N/A (decided)"),
        ], detail=bvs.json_object([
            ('anzsic_code', 'industry.anzsic_code'),
            ('trade', 'industry.trade'),
            ('state', 'entities.state'),
            ('state_covered', 'licence_coverage.state is not null'),
            ('licences', 'cast(licences.licences as json)'),
        ])) }},

        -- Adverse records (conduct): ABN exact; name trigram similarity above 0.55 --------
        {{ bvs.check_rule('conduct', [
            ("adverse.conduct_active_critical_count > 0", "Active CRITICAL record => FAIL"),
            ("adverse.conduct_active_medium_high_count > 0", "Active MEDIUM or HIGH records => WARN"),
            ("adverse.conduct_count > 0", "Low-severity or resolved records only => WARN"),
            ("true", "No records => PASS"),
        ], detail='adverse.conduct_records') }},

        -- Phoenix (docs/rules.md#risk-flags PHOENIX_PATTERN; docs/decisions/06-phoenix.md) ---------------------
        {{ bvs.check_rule('phoenix', [
            ("phoenix.phoenix_status = 'linked'", "A director is an officeholder of a company deregistered within the past 36 months => FAIL"),
            ("phoenix.phoenix_status = 'no_acn'", "Entity has no ACN (sole traders and partnerships are not assessed) => N/A"),
            ("phoenix.phoenix_status = 'no_director_data'", "Director data not yet loaded => N/A"),
            ("phoenix.phoenix_status = 'no_officeholders'", "No officeholder rows for the company => N/A"),
            ("phoenix.phoenix_status = 'clear'", "No director linked to a company deregistered within 36 months => PASS"),
            ("true", "Not assessed => N/A"),
        ], detail='phoenix_links.links') }},

        -- Disability-services commission register: ABN exact, name above 0.65 ----------
        {{ bvs.check_rule('disability_register', [
            ("adverse.disability_active_banning_order_count > 0", "Active banning order => FAIL"),
            ("adverse.disability_active_revocation_count > 0", "Active revocation => FAIL"),
            ("adverse.disability_active_suspension_notice_count > 0", "Active suspension or compliance notice => WARN"),
            ("adverse.disability_count > 0 and adverse.disability_active_count = 0", "Historical actions all expired => WARN"),
            ("adverse.disability_count > 0", "Active action of another kind => WARN (decided)"),
            ("true", "No action found => N/A"),
        ], detail='adverse.disability_records') }},

        -- Insolvency / external administration: ABN exact; name above 0.75 -------------
        {{ bvs.check_rule('insolvency', [
            ("insolvency.exad_count > 0", "Found with status EXAD => FAIL"),
            ("insolvency.diss_count > 0", "Found with status DISS (dissolved) => FAIL (decided)"),
            ("true", "Not found => PASS"),
        ], detail='insolvency.records') }},

        -- Charities register (the published register lists registered charities only) --
        {{ bvs.check_rule('charities', [
            ("charities.registered_count > 0", "Found, status Registered => PASS"),
            ("true", "Not found => N/A"),
        ], detail='charities.charities') }},

        -- Tax practitioners register ----------------------------------------------------
        {{ bvs.check_rule('tax_practitioners', [
            ("registers.tax_practitioners_current_count > 0", "Found, status Current => PASS"),
            ("registers.tax_practitioners_terminated_suspended_count > 0", "Found, status Terminated or Suspended => WARN"),
            ("registers.tax_practitioners_count > 0", "Found, another status => WARN (decided)"),
            ("true", "Not found => N/A"),
        ], detail='registers.tax_practitioners_records') }},

        -- Prudential-regulated entities -------------------------------------------------
        {{ bvs.check_rule('prudential', [
            ("registers.prudential_count > 0", "Found => PASS"),
            ("true", "Not found => N/A"),
        ], detail='registers.prudential_records') }},

        -- Super fund lookup (a fund by its ABN, a trustee by its ACN) --------------------
        {{ bvs.check_rule('super_fund', [
            ("registers.super_fund_count > 0", "ABN is a registered fund, or a registered trustee => PASS"),
            ("true", "Not found => N/A"),
        ], detail='registers.super_fund_records') }},

        -- Corporate company status: ACN is the last 9 digits of the ABN (entities) -------
        {{ bvs.check_rule('company_status', [
            ("entities.acn is null", "No ACN (not a company) => N/A"),
            ("entities.asic_company_status is null", "ACN not found => N/A"),
            ("entities.asic_company_status = 'REGD'", "REGD => PASS"),
            ("entities.asic_company_status in ('DRGD', 'SOFF', 'CNCL', 'DISS')", "DRGD, SOFF, CNCL or DISS => FAIL"),
            ("entities.asic_company_status in ('EXAD', 'NOAC')", "EXAD or NOAC => WARN"),
            ("true", "Another status code (NRGD, PROV, DIV3, PEND, ...) => WARN (decided)"),
        ], detail=bvs.json_object([
            ('acn', 'entities.acn'),
            ('company_name', 'entities.asic_company_name'),
            ('company_status', 'entities.asic_company_status'),
            ('registration_date', 'entities.asic_registration_date'),
            ('deregistration_date', 'entities.asic_deregistration_date'),
        ])) }},

        -- Business names register: ABN plus name similarity at least 0.8 ----------------
        {{ bvs.check_rule('business_names', [
            ("business_names.active_count > 0", "Active registration(s) found => PASS"),
            ("business_names.inactive_count > 0", "Only deregistered names, no active replacement => WARN"),
            ("true", "No registration => N/A"),
        ], detail='business_names.business_names') }},

        -- Financial advisers register: ABN plus name similarity at least 0.8 -------------
        {{ bvs.check_rule('financial_advisers', [
            ("advisers.banned_count > 0", "Prohibition order active => FAIL"),
            ("advisers.registered_count > 0", "Currently registered => PASS"),
            ("advisers.entity_match_count > 0", "Ceased or Not Registered => WARN"),
            ("true", "Not found => N/A"),
        ], detail='advisers.records') }},

        -- Banned and disqualified: organisations and persons, name at least 0.75 ---------
        {{ bvs.check_rule('banned_disqualified', [
            ("banned.active_count > 0", "Active ban or disqualification => FAIL"),
            ("banned.expired_count > 0", "Expired ban => WARN"),
            ("true", "No match => PASS"),
        ], detail='banned.records') }},

        -- Financial services licence (AFS and credit) -----------------------------------
        -- A suspended or cancelled licence fails even beside a current one of the other
        -- kind (decided: AFS and credit licences are not alternatives to each other).
        {{ bvs.check_rule('financial_services_licence', [
            ("fs_licences.suspended_cancelled_count > 0", "Suspended or cancelled licence => FAIL"),
            ("fs_licences.current_count > 0", "Current active licence => PASS"),
            ("fs_licences.abn is not null", "Licence found, ended => WARN (decided)"),
            ("true", "Not found => N/A"),
        ], detail='fs_licences.licences') }},

        -- Company insolvency gazette: name above 0.72, most recent notice first ---------
        {{ bvs.check_rule('gazette', [
            ("gazette.notice_count > 0", "Matching notice => FAIL"),
            ("true", "No matching notices => PASS"),
        ], detail='gazette.notices') }},

        -- Tax debt disclosure: ABN exact, name at least 0.75 (N/A without the bureau feed)
        {{ bvs.check_rule('tax_debt', [
            ("registers.tax_debt_count > 0", "On list => FAIL"),
            ("true", "Not on list => PASS"),
        ], detail='registers.tax_debt_records') }},

        -- Workplace compliance: ABN exact. The SPEC's rows are "No records => PASS" and
        -- "Notice or undertaking found => WARN"; decided (docs/verification.md): a notice or
        -- undertaking no longer in force is still found, and says so; litigation (the
        -- regulator's court proceedings, docs/rules.md#conduct's fourth type) or a record of another type
        -- is no clean record either: WARN, saying what it is -------------------------------
        {{ bvs.check_rule('workplace_compliance', [
            ("adverse.workplace_active_notice_count > 0", "Notice or undertaking found => WARN"),
            ("adverse.workplace_notice_count > 0",
             "Notice or undertaking found => WARN (no longer in force: resolved or expired)"),
            ("adverse.workplace_litigation_count > 0",
             "Litigation found => WARN (decided: court proceedings by the regulator, no notice or undertaking)"),
            ("adverse.workplace_count > 0",
             "Another workplace record found => WARN (decided: not a notice, undertaking or litigation)"),
            ("true", "No records => PASS"),
        ], detail='adverse.workplace_records') }},

        -- Customer reviews (live) -------------------------------------------------------
        {{ bvs.live_tile('customer_reviews') }},

        -- Informational registers (weight 0) --------------------------------------------
        {{ bvs.check_rule('rd_incentive', [
            ("registers.rd_incentive_count > 0", "R&D tax incentive found => PASS"),
            ("true", "R&D tax incentive not found => N/A"),
        ], detail='registers.rd_incentive_records') }},
        {{ bvs.check_rule('modern_slavery', [
            ("registers.modern_slavery_count > 0", "Modern slavery statement found => PASS"),
            ("true", "Modern slavery statement not found => N/A"),
        ], detail='registers.modern_slavery_records') }},
        {{ bvs.check_rule('workforce_gender', [
            ("registers.workforce_gender_count > 0", "Workforce gender report found => PASS"),
            ("true", "Workforce gender report not found => N/A"),
        ], detail='registers.workforce_gender_records') }},
        -- Government contracts: ABN exact; covers two financial years (the current and the
        -- previous, to the as-of date)
        {{ bvs.check_rule('government_contracts', [
            ("registers.government_contracts_two_years_count > 0",
             "Government contracts found in the two financial years => PASS"),
            ("registers.government_contracts_count > 0",
             "No government contracts in the two financial years (older ones only) => N/A"),
            ("true", "No government contracts => N/A"),
        ], detail='registers.government_contracts_records') }},

        -- Competition-regulator enforcement: ABN exact or name at least 0.6 -------------
        {{ bvs.check_rule('competition_enforcement', [
            ("adverse.competition_count > 0", "Action found => FAIL"),
            ("true", "None => N/A"),
        ], detail='adverse.competition_records') }},

        {{ bvs.check_rule('bcorp', [
            ("registers.bcorp_count > 0", "B Corp certification matched => PASS"),
            ("true", "B Corp certification not found => N/A"),
        ], detail='registers.bcorp_records') }},

        -- Activist short-seller check (ASX-listed only; ticker exact or name at least
        -- 0.65, resolved in int_activist__campaigns_matched) ----------------------------
        {{ bvs.check_rule('activist', [
            ("asx.abn is null and viper_by_abn.ticker is null", "Not ASX-listed => N/A"),
            ("coalesce(viper_by_ticker.historical_campaign_count, viper_by_abn.historical_campaign_count) > 0", "Report found => FAIL"),
            ("true", "No activist report found => N/A"),
        ], detail=bvs.json_object([
            ('asx_code', 'coalesce(asx.asx_code, viper_by_abn.ticker)'),
            ('historical_campaign_count', 'coalesce(viper_by_ticker.historical_campaign_count, viper_by_abn.historical_campaign_count)'),
            ('active_campaign_count', 'coalesce(viper_by_ticker.active_campaign_count, viper_by_abn.active_campaign_count)'),
            ('report_author', 'coalesce(viper_by_ticker.report_author, viper_by_abn.report_author)'),
            ('report_date', 'coalesce(viper_by_ticker.report_date, viper_by_abn.report_date)'),
            ('allegation_type', 'coalesce(viper_by_ticker.allegation_type, viper_by_abn.allegation_type)'),
            ('pattern_match_score', 'coalesce(viper_by_ticker.pattern_match_score, viper_by_abn.pattern_match_score)'),
        ])) }},

        -- Squeeze signal: score 70-100 => HIGH; 40-69 => MED; below 40 => LOW ----------
        {{ bvs.check_rule('squeeze_signal', [
            ("asx.abn is null", "No ASX ticker => N/A"),
            ("squeeze.tier = 'HIGH'", "Score 70-100 => HIGH"),
            ("squeeze.tier = 'MED'", "Score 40-69 => MED"),
            ("squeeze.tier = 'LOW'", "Score below 40 => LOW"),
            ("true", "No squeeze score for the ticker => N/A"),
        ], detail=bvs.json_object([
            ('asx_code', 'asx.asx_code'), ('score', 'squeeze.score'), ('score_date', 'squeeze.score_date'),
            ('signal_tier', 'squeeze.signal_tier'), ('missing_signals', 'squeeze.missing_signals'),
            ('signals_used', 'squeeze.signals_used'),
        ])) }},

        -- Facts the risk flags and the verify response read ---------------------------
        entities.acn,
        industry.trade as licensed_trade,
        coalesce(licences.in_force_count, 0) as licences_in_force_count,
        coalesce(licences.in_force_correct_count, 0) as licences_in_force_correct_count,
        coalesce(licences.suspended_cancelled_count, 0) as licences_suspended_cancelled_count,
        coalesce(licences.suspended_cancelled_correct_count, 0) as licences_suspended_cancelled_correct_count,
        licences.licences as licence_records,
        coalesce(adverse.conduct_active_high_critical_count, 0) as conduct_active_high_critical_count,
        coalesce(adverse.conduct_24_month_count, 0) as conduct_24_month_count,
        coalesce(adverse.conduct_24_month_regulator_count, 0) as conduct_24_month_regulator_count,
        adverse.conduct_records,
        coalesce(advisers.banned_director_count, 0) as banned_adviser_director_count,
        advisers.banned_director_records as banned_adviser_directors,
        coalesce(people.liquidator_director_count, 0) as liquidator_director_count,
        people.liquidator_directors,
        phoenix_links.links as phoenix_links,
        coalesce(people.current_ppsr_count, 0) as current_ppsr_count,
        coalesce(insolvency.exad_count, 0) + coalesce(insolvency.diss_count, 0) > 0 as is_insolvency_found,
        asx.asx_code,
        inputs.input_hash
    from entities
    cross join check_data
    left join phoenix on entities.abn = phoenix.abn
    left join phoenix_links on entities.abn = phoenix_links.abn
    left join insolvency on entities.abn = insolvency.abn
    left join gazette on entities.abn = gazette.abn
    left join adverse on entities.abn = adverse.abn
    left join industry on entities.abn = industry.abn
    left join licences on entities.abn = licences.abn
    left join licence_coverage on entities.state = licence_coverage.state
    left join advisers on entities.abn = advisers.abn
    left join banned on entities.abn = banned.abn
    left join fs_licences on entities.abn = fs_licences.abn
    left join business_names on entities.abn = business_names.abn
    left join charities on entities.abn = charities.abn
    left join registers on entities.abn = registers.abn
    left join people on entities.abn = people.abn
    left join asx on entities.abn = asx.abn
    left join viper as viper_by_ticker on asx.asx_code = viper_by_ticker.ticker
    left join viper_abns as viper_by_abn on entities.abn = viper_by_abn.abn
    left join squeeze on asx.asx_code = squeeze.ticker
    left join live on entities.abn = live.abn
    left join inputs on entities.abn = inputs.abn

)

select * from outcomes
