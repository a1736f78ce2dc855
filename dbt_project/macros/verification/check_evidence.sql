{#-
    The relations int_check_outcomes joins by ABN, each as (the name its rules read it by,
    the model): one list, so that the outcomes read and int_check_inputs hashes the same
    evidence. A new per-ABN input of the outcomes is added here, or an incremental week
    would keep last week's outcome of an ABN it changed
    (tests/e2e/test_incremental_week.py).
-#}
{% macro check_evidence_by_abn() %}
    {{ return([
        ('live', 'int_check_evidence__live'),
        ('phoenix', 'phoenix_assessments'),
        ('phoenix_links', 'int_check_evidence__phoenix'),
        ('insolvency', 'int_check_evidence__insolvency'),
        ('gazette', 'int_check_evidence__gazette'),
        ('adverse', 'int_check_evidence__adverse'),
        ('industry', 'int_check_evidence__industry'),
        ('licences', 'int_check_evidence__licences'),
        ('advisers', 'int_check_evidence__financial_advisers'),
        ('banned', 'int_check_evidence__banned_disqualified'),
        ('fs_licences', 'int_check_evidence__financial_services_licences'),
        ('business_names', 'int_check_evidence__business_names'),
        ('charities', 'int_check_evidence__charities'),
        ('registers', 'int_check_evidence__registers'),
        ('people', 'int_check_evidence__people'),
        ('asx', 'int_check_evidence__asx'),
        ('viper_abns', 'int_check_evidence__activist'),
    ]) }}
{% endmacro %}
