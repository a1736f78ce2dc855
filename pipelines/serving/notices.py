"""The words the SPEC requires beside the results (SPEC 1.8, 2.6), in one place: the API's
verify, squeeze and viper responses, the `bvs` commands that print them, the OpenAPI
descriptions and the ledger reports carry them."""

# SPEC 1.8: reports are decision support only.
DECISION_SUPPORT = (
    "Decision support only: not legal advice, not an official certification and not"
    " investment advice. Drawn from public registers as of the dates shown."
)
# SPEC 2.6: the Squeeze Score describes current conditions.
SQUEEZE = (
    "The Squeeze Score describes current conditions and is not predictive. Decision support"
    " only: not investment advice."
)
