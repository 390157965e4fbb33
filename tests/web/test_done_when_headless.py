"""Issue 15, "Done when", through the real command line: `mika --no-ui --web-only` with
the scripted model (`--model script:PATH`), stream-json out, real Chromium on the loopback
site, no adb server reachable. The Buy button of an unattended run is refused: exit 5
(approval), the result says nothing was paid, the stream shows the web steps like phone
steps, and the site never saw a checkout.

The element number the script taps is read beforehand from the same page by the same
reader the run uses (`WebReader` over `PlaywrightWebPort`): a script file cannot read
the listing, so it is told the number a reading model would have seen.
"""

from __future__ import annotations

import json
from pathlib import Path

from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.cap.web.reader import WebReader
from mika.exit_codes import ExitCode
from tests.assembly.test_web_assembly import config, mika, no_adb, script
from tests.web.site_server import LocalSite

__all__ = ["no_adb"]  # the fixture, shared with tests/assembly/test_web_assembly.py


async def _number_of(chromium_path: str, url: str, label: str) -> int:
    port = PlaywrightWebPort(WebOptions(browser=chromium_path))
    try:
        await port.open(url)
        screen = await WebReader(port).read()
        return next(e.number for e in screen.elements if e.label == label and e.role == "button")
    finally:
        await port.close()


async def test_headless_web_only_buy_is_refused_exit_5_and_nothing_reaches_the_checkout(
    tmp_path: Path, no_adb, chromium_path: str, site: LocalSite
) -> None:
    trap, env = no_adb
    url = site.url("/product/6/")
    buy = await _number_of(chromium_path, url, "Buy now")
    model = script(
        tmp_path,
        [
            {"tool_calls": [{"name": "web_navigate", "arguments": {"url": url}}]},
            {"tool_calls": [{"name": "web_tap", "arguments": {"element": buy}}]},
            "Bought one bag of Kenya Nyeri AA.",  # the model claims success after the refusal
        ],
    )
    cfg = config(tmp_path, f'browser = "{chromium_path}"')
    mark = len(site.seen)
    r = mika(
        ["--no-ui", "--web-only", "--config", cfg, "--output-format", "stream-json", "--model", model, "buy it"], env
    )
    assert r.returncode == int(ExitCode.APPROVAL), (r.returncode, r.stderr[-2000:])
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    taps = [e for e in lines if e["type"] == "tool_result" and e["name"] == "web_tap"]
    assert [(t["capability"], t["code"]) for t in taps] == [("web", "approval_unavailable")]
    result = lines[-1]
    assert result["type"] == "result" and result["not_paid"] is True
    assert [(q.method, q.path) for q in site.seen[mark:] if q.path.startswith(("/checkout", "/pay"))] == []
    assert any(q.path == "/product/6/" for q in site.seen[mark:])
    assert not trap.touched.is_set(), "a --web-only run reached for the adb server"
