"""The model-call ledger over HTTP: a simulation's calls, their totals, the estimate."""
