"""Name matching: entity-name normalisation, pg_trgm similarity and person-name keys.

Pure functions, no Dagster or DuckDB: the dbt macro `normalise_name` and these functions
share their reference cases (see tests/matching).
"""

from pipelines.matching.lookup import ACTIVIST_NAME_THRESHOLD, NameMatch, match_names
from pipelines.matching.names import normalise_name
from pipelines.matching.persons import person_name_key, person_names_match
from pipelines.matching.trigram import trigram_similarity, trigrams

__all__ = [
    "ACTIVIST_NAME_THRESHOLD",
    "NameMatch",
    "match_names",
    "normalise_name",
    "person_name_key",
    "person_names_match",
    "trigram_similarity",
    "trigrams",
]
