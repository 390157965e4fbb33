"""Issue 15: downloads land in the conversation's workspace folder, never opened or run,
and a download over the size cap is cut. A real run taps the two links of `/download/`
(a small CSV, a 200 MB file streamed without a length); the model's last turn waits for
both downloads to end (the port's own condition, no sleep).
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mika.cap.web import WebCapability
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from tests.web.site_server import LocalSite
from tests.web.test_done_when import Scripted, call, make_run, tap

CAP_MB = 5


@pytest.fixture
async def capped(chromium_path: str, tmp_path: Path) -> AsyncIterator[WebCapability]:
    options = WebOptions(
        browser=chromium_path, downloads_dir=tmp_path / "workspace" / "downloads", download_cap_mb=CAP_MB
    )
    cap = WebCapability(PlaywrightWebPort(options), options)
    try:
        yield cap
    finally:
        await cap.close()


async def test_a_small_download_lands_in_the_workspace_and_a_big_one_is_cut(
    tmp_path: Path, capped: WebCapability, site: LocalSite
) -> None:
    port = capped.port
    ended = []

    async def both_ended() -> str:
        for after in range(2):
            got = await port.wait_for_download(after=after, timeout_s=60)  # type: ignore[attr-defined]
            assert got is not None, f"download {after + 1} never ended"
            ended.append(got)
        return "Downloaded the price list."

    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/download/")),
            tap("Price list (CSV, 2 KB)", role="link"),
            tap("Full product photo archive (200 MB)", role="link"),
            lambda _l, _r: both_ended(),
        ]
    )
    run = make_run(tmp_path, capped, scripted, "Download the shop's price list and the photo archive.")
    await asyncio.wait_for(run.run(), 180)

    by_name = {d.name: d for d in ended}
    assert set(by_name) == {"prices.csv", "big.bin"}, ended
    folder = tmp_path / "workspace" / "downloads"
    csv = folder / "prices.csv"
    assert by_name["prices.csv"].done and by_name["prices.csv"].size == csv.stat().st_size
    text = csv.read_text(encoding="utf-8")
    assert text.startswith("id,name,kind,origin,roast,currency,price\n") and "西湖龙井" in text
    mode = stat.S_IMODE(os.stat(csv).st_mode)
    assert not mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)  # data, never executable
    big = by_name["big.bin"]
    assert not big.done and big.error, big  # cut at the cap, and says why
    assert not (folder / "big.bin").exists()  # no partial file left in the workspace
    assert sorted(p.name for p in folder.iterdir()) == ["prices.csv"]
    # The model is told what its taps fetched (each tap's result, in Mika's words).
    told = "\n".join(scripted.results)
    assert "Downloaded 'prices.csv'" in told and "not opened" in told, told[-2000:]
    assert "'big.bin'" in told, told[-2000:]
