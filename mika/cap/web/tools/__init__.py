"""The web tools, one module per family (seed §6 names)."""
