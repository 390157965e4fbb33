"""Memory (seed §12): facts, preferences and procedures, only from the user's own words.

`store` (memory.jsonl, the gate every save passes), `sensitive` (what is never kept),
`utterances` and `support` (what counts as the user's words), `context` (the run-start
block), `extractor` (after-run extraction from the user's words only), `text` (the one
normal form and term splitter they share).
"""
