"""The web capability: Mika's own browser (Playwright driving Chromium), beside the phone.

`port.py` is the line between the web tools and the browser: the tools, the reader and
the surface speak `WebPort` only; `playwright/` holds the one implementation.
"""
