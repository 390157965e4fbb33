"""Adversarial: a page's odd bytes (terminal escapes, a bidi override, zero-width
characters, a NUL, invalid UTF-8, a 2,000-character label) reach neither the model nor
the record nor the timeline raw: a real run in real Chromium observes `/odd/`, and no
control, bidi or zero-width character survives in the tool results, in events.jsonl or
in the TUI's rows."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from mika.cap.web import WebCapability
from mika.runtypes.result import OutcomeStatus
from mika_tui.run_view import RunView
from tests.web.site_server import LocalSite
from tests.web.test_done_when import Scripted, call, make_run, recorded, web

__all__ = ["web"]  # the fixture, shared with test_done_when

# C0 controls but newline and tab, DEL, C1 controls: what a terminal acts on.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


async def test_odd_bytes_of_a_page_reach_no_one_raw(tmp_path: Path, web: WebCapability, site: LocalSite) -> None:
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/odd/")),
            call("web_observe"),
            call("web_list_elements"),
            lambda _l, _r: "The page is odd.",
        ]
    )
    run = make_run(tmp_path, web, scripted, "What does the odd page say?")
    result = await asyncio.wait_for(run.run(), 120)
    assert result.status is OutcomeStatus.ANSWERED
    shown = "\n".join(scripted.results)
    assert "Clear" in shown and "screen" in shown  # the page was read
    assert not _CONTROL.search(shown), repr(_CONTROL.search(shown))
    # Bidi overrides and zero-width characters (text that reads other than it shows) are gone.
    assert not re.search("[\u202a-\u202e\u2066-\u2069\u200b-\u200d\ufeff]", shown)
    assert max(len(line) for line in shown.splitlines()) < 1000  # the long label is cut
    raw = (Path(result.record_dir) / "events.jsonl").read_text(encoding="utf-8")
    assert "\\u001b" not in raw and "\x1b" not in raw  # nor in the record, escaped or not
    view = RunView(run_id=run.spec.id)
    for e in recorded(run):
        view.apply(e)
    for step in view.steps:
        assert not _CONTROL.search(step.text + step.target), step
