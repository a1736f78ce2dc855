"""Plain-Python ingestion: landing-file discovery and one parser module per source.

Nothing here imports dagster; the Dagster assets in ``pipelines.defs.ingest`` call into it.
"""
