"""What a web page costs the model: Mika's page listing against the raw HTML and against
Playwright's ARIA snapshot, for each page of the test site.

Each page is served on loopback by the test site (`tests/web/site_server.py`) and read
three ways in real Chromium:

* Mika's listing: `PlaywrightWebPort.read()` → `WebReader` (the numbered screen of the
  viewport) → `fenced_page` — the text `web_observe` hands the model;
* raw HTML: the rendered document (`page.content()`), what a tool that sends HTML would send;
* ARIA snapshot: `page.locator("body").aria_snapshot()`, Playwright's accessibility text
  of the whole page.

Tokens are `mika.uistate.tokens.estimate_tokens` (the same estimate every listing
benchmark uses). The listing covers the viewport (what web_observe shows; scrolling
shows the rest), the other two the whole document: a column says how much of the page
the listing numbered. Raw HTML and the ARIA snapshot are of the main document only
(an iframe's content is not in them); the listing includes same-origin frames, so on
/frame/ and /captcha/ it says more than they do.

    uv run python benchmarks/web_listing.py [--browser PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mika.cap.web.fenced import fenced_page
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.cap.web.reader import WebReader, whole_page_screen
from mika.uistate.tokens import estimate_tokens
from tests.web.conftest import CHROMIUM_ARGS, find_chromium
from tests.web.site_server import LocalSite

PAGES = (
    "/",
    "/login/",
    "/search/?q=coffee",
    "/search/?q=coffee&page=2",
    "/search/lazy/?q=coffee",
    "/product/6/",
    "/product/17/",
    "/cart/",
    "/order/1001/",
    "/frame/",
    "/download/",
    "/injected/",
    "/captcha/",
    "/blocked/",
    "/slow/script/?ms=0",
)


async def measure(browser: str) -> list[tuple[str, int, int, int, int, int]]:
    from playwright.async_api import async_playwright

    site = LocalSite()
    port = PlaywrightWebPort(WebOptions(browser=browser))
    reader = WebReader(port)
    rows = []
    try:
        async with async_playwright() as pw:
            raw_browser = await pw.chromium.launch(executable_path=browser, args=list(CHROMIUM_ARGS))
            raw = await raw_browser.new_page(viewport={"width": 1280, "height": 800})
            for path in PAGES:
                await port.open(site.url(path))
                await port.wait_for(network_quiet=True, timeout_s=5.0)
                screen = await reader.read()
                read = reader.last
                listing = fenced_page(screen, read)
                whole = whole_page_screen(read) if read is not None else screen
                await raw.goto(site.url(path), wait_until="networkidle")
                html = await raw.content()
                aria = await raw.locator("body").aria_snapshot()
                rows.append(
                    (
                        path,
                        estimate_tokens(listing),
                        estimate_tokens(html),
                        estimate_tokens(aria),
                        len(screen.elements),
                        len(whole.elements),
                    )
                )
            await raw_browser.close()
    finally:
        await port.close()
        site.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--browser", default=find_chromium() or shutil.which("chromium") or "auto")
    args = parser.parse_args()
    rows = asyncio.run(measure(args.browser))
    print(f"{'page':<28} {'listing':>8} {'raw HTML':>9} {'ARIA':>7} {'÷HTML':>6} {'÷ARIA':>6} {'numbered':>9}")
    for path, listing, html, aria, shown, whole in rows:
        print(
            f"{path:<28} {listing:>8} {html:>9} {aria:>7} {listing / html:>6.2f} {listing / max(aria, 1):>6.2f}"
            f" {shown:>4}/{whole:<4}"
        )
    t_listing = sum(r[1] for r in rows)
    t_html = sum(r[2] for r in rows)
    t_aria = sum(r[3] for r in rows)
    print(
        f"{'all pages':<28} {t_listing:>8} {t_html:>9} {t_aria:>7} {t_listing / t_html:>6.2f} {t_listing / t_aria:>6.2f}"
    )


if __name__ == "__main__":
    main()
