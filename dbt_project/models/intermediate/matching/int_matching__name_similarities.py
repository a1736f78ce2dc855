"""Every (register name, entity name) pair whose pg_trgm similarity reaches the register
name's lowest threshold, with the similarity. Exact: no pair that meets the threshold is
missed (tests compare it with a brute-force comparison).

A Python model because the join is a prefix-filtered similarity join (PPJoin's prefix and
positional filters) run in C over the entity names as they stream out of the warehouse:
pipelines/matching/similarity.py says how, docs/matching.md what it costs. Expressed in
SQL, the same filters made DuckDB join every register name's prefix trigrams with the
trigram index of every entity name, hours at 20 million names. On an engine with Python
models (Spark, Snowflake) the same function runs over the two relations read as Arrow.
"""


def model(dbt, session):
    from pipelines.matching.similarity_week import name_similarities_week

    dbt.config(materialized="table")
    # only the names that changed since the last run are matched, last run's pairs of the
    # others kept (pipelines/matching/similarity_week.py); `--full-refresh` drops the
    # record of the last run first (the pre-hook in _int_matching__models.yml)
    pairs, _ = name_similarities_week(
        session,
        dbt.ref("int_matching__register_names"),
        dbt.ref("int_matching__entity_names_keyed"),
        repr(dbt.this),
    )
    return pairs
