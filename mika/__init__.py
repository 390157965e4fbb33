"""Mika: a language model operating Android apps from the terminal."""

__version__ = "0.1.0"
