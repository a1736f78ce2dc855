"""Reading precomputed results from the serving snapshot: what `bvs verify` and the API return."""
