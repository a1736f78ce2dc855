"""The words the SPEC requires beside the results (docs/decisions/26-words-the-spec-requires.md, docs/market.md), in one place: the API's
verify, squeeze and viper responses, the `bvs` commands that print them, the OpenAPI
descriptions and the ledger reports carry them."""

# docs/decisions/26-words-the-spec-requires.md: reports are decision support only.
DECISION_SUPPORT = (
    "Decision support only: not legal advice, not an official certification and not"
    " investment advice. Drawn from public registers as of the dates shown."
)
# docs/market.md: the Squeeze Score describes current conditions.
SQUEEZE = (
    "The Squeeze Score describes current conditions and is not predictive. Decision support"
    " only: not investment advice."
)
