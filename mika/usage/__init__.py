"""Token usage: the ledger every model call is counted in, and pure queries over it."""
