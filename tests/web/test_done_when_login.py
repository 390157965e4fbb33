"""Issue 15: a sign-in through the web tools — the run types the user name and the
password into the shop's login form, signs in, and reads "Signed in as …". The session
cookie is the site's (the account page shows it); the password typed into a password
field is never read back to the model, and the record keeps it nowhere.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from mika.cap.web import WebCapability
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.model.testing import Reply
from mika.record.redactor import Redactor
from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import elements_in, number_for
from tests.web.site_server import LocalSite
from tests.web.test_done_when import Scripted, call, make_run, recorded, results_of, tap

PASSWORD = "correct horse battery"


def files_holding(folder: Path, text: str) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def _password_field(listing: str, _r: list[str]) -> Reply:
    n = next(n for n, role, _label, rest in elements_in(listing) if role == "input" and "password" in rest)
    return Reply.call("web_type_text", element=n, text=PASSWORD)


async def test_signing_in_through_the_tools_keeps_the_password_out_of_results_and_record(
    tmp_path: Path, chromium_path: str, site: LocalSite
) -> None:
    # Wired as the assembly wires a run (mika/assembly/assembly.py): one redactor per run,
    # the web capability tells it what goes into a password field.
    redactor = Redactor()
    options = WebOptions(browser=chromium_path)
    web = WebCapability(PlaywrightWebPort(options), options, redact=redactor.add_secret)
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/account/")),  # → the sign-in page
            lambda listing, _r: Reply.call(
                "web_type_text", element=number_for(listing, "User name 用户名", role="input"), text="mika-test"
            ),
            _password_field,
            tap("Sign in", role="button"),
            lambda listing, _r: (
                f"The shop says: {next(lab for _n, _ro, lab, _ in elements_in(listing) if 'Signed in as' in lab)}"
            ),
        ]
    )
    run = make_run(tmp_path, web, scripted, "Sign in to the shop as mika-test.", redactor=redactor)
    try:
        result = await asyncio.wait_for(run.run(), 120)
    finally:
        await web.close()

    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert result.answer == "The shop says: Signed in as Mika Tester (mika-test)"
    posts = [r for r in site.seen if r.path == "/login" and r.method == "POST"]
    assert posts and posts[-1].form()["password"] == PASSWORD  # the page got the real password
    # … the model never saw it read back …
    assert all(PASSWORD not in r for r in scripted.results), [r for r in scripted.results if PASSWORD in r]
    typed = results_of(recorded(run), "web_type_text")
    assert [t["ok"] for t in typed] == [True, True]
    # … and no file of the run's record holds it.
    holding = files_holding(Path(run.result.record_dir), PASSWORD)
    assert holding == [], holding
