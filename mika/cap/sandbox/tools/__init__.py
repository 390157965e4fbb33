"""The sandbox's tools, one class each (seed §6 sandbox)."""
