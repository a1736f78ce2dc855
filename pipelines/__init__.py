"""BVS: business-verification and market-signal warehouse."""
