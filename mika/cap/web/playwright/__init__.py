"""The Playwright implementation of `WebPort` (imported only by runs that open pages)."""

from mika.cap.web.playwright.port import PlaywrightWebPort

__all__ = ["PlaywrightWebPort"]
