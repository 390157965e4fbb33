"""`mika login chatgpt`, a run through the plan, `mika login status` and `mika logout` as a
user runs them: real subprocesses, the system-browser path (webbrowser honours BROWSER,
here a tiny HTTP client that follows the authorize page to the callback), real files.
Afterwards no token the issuer ever handed out is in any file but the token store, nor
in anything printed."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.chatgpt.fakes import redirect_of

ROOT = Path(__file__).resolve().parents[2]
BROWSER = """#!{python}
import sys
import httpx

with httpx.Client(follow_redirects=True, timeout=30) as client:
    page = client.get(sys.argv[1])
sys.exit(0 if page.status_code == 200 else 1)
"""


def browser_script(tmp: Path) -> Path:
    path = tmp / "fake-browser"
    path.write_text(BROWSER.format(python=sys.executable))
    path.chmod(0o700)
    return path


def mika_env(s, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MIKA_", "LC_"))}
    env.update(
        s.env(),
        MIKA_DEVICE="none",
        BROWSER=str(browser_script(s.tmp)),
        XDG_CONFIG_HOME=str(s.tmp / "xdg-config"),
        LANG="C.UTF-8",
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


def mika(s, *args: str, stdin: str | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=mika_env(s, **extra),
        input=stdin,
        cwd=s.tmp,
    )


def write_config(s) -> None:
    s.config.parent.mkdir(parents=True, exist_ok=True)
    s.config.write_text("[run]\njudge_outcome = false\n")


def leaks(s, outputs: list[subprocess.CompletedProcess[str]]) -> dict[str, list[str]]:
    """Where any issued token (or the tail of one: a cut-off copy leaks too) turns up."""
    needles = set()
    for token in s.issuer.all_tokens():
        needles |= {token, token[-32:], json.dumps(token)[1:-1]}
    found: dict[str, list[str]] = {}
    for path in s.tmp.rglob("*"):
        if not path.is_file() or path == s.store.path or path.name == "fake-browser":
            continue
        blob = path.read_bytes()
        hit = [n[:12] for n in needles if n.encode() in blob]
        if hit:
            found[str(path.relative_to(s.tmp))] = hit
    for n, r in enumerate(outputs):
        for name, text in (("stdout", r.stdout), ("stderr", r.stderr)):
            hit = [x[:12] for x in needles if x in text]
            if hit:
                found[f"command {n} {name}"] = hit
    return found


def test_login_run_status_logout_and_no_token_anywhere_but_the_store(signin):
    write_config(signin)
    signin.issuer.expires_in = 60  # so the run below refreshes: those tokens must not leak either
    outputs = [login := mika(signin, "login", "chatgpt")]
    assert login.returncode == 0, login.stderr
    assert "Signed in with ChatGPT as plan.user@example.com" in login.stderr
    assert "main = chatgpt/gpt-5" in login.stderr
    config = signin.config.read_text()
    assert '[providers.chatgpt]\nkind = "chatgpt"' in config and 'main = "chatgpt/gpt-5"' in config
    assert stat.S_IMODE(signin.store.path.stat().st_mode) == 0o600

    for fmt in ("text", "json", "stream-json"):
        r = mika(signin, "--no-ui", "--output-format", fmt, f"say hello ({fmt})")
        outputs.append(r)
        assert r.returncode == 0, r.stderr
    assert "Done: the plan answered." in outputs[1].stdout
    assert json.loads(outputs[2].stdout)["outcome"] == "answered"
    result = json.loads(outputs[3].stdout.splitlines()[-1])
    assert result["type"] == "result" and result["outcome"] == "answered"
    assert len(signin.issuer.log.refreshes) >= 1  # the run refreshed the 60-second token
    assert all(r["headers"]["chatgpt-account-id"] for r in signin.backend.requests)

    status = mika(signin, "login", "status", "--json")
    outputs.append(status)
    assert status.returncode == 0 and json.loads(status.stdout)["email"] == "plan.user@example.com"

    # The scan's positive control: the store does hold the live tokens it looks for.
    stored = json.loads(signin.store.path.read_text())
    assert {stored["access_token"], stored["refresh_token"], stored["id_token"]} <= signin.issuer.all_tokens()
    written = {p.name for p in signin.state.rglob("*") if p.is_file()}
    assert {"events.jsonl", "run.json", "chatgpt.json"} <= written
    assert leaks(signin, outputs) == {}

    last_refresh = json.loads(signin.store.path.read_text())["refresh_token"]
    out = mika(signin, "logout")
    assert out.returncode == 0 and "OpenAI revoked the sign-in" in out.stdout
    assert signin.issuer.log.revoke[-1]["token"] == last_refresh
    assert not signin.store.path.exists()
    again = mika(signin, "login", "status")
    assert again.returncode == 1 and "Not signed in" in again.stdout


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_revoked_sign_in_says_sign_in_again_with_exit_4(signin, lang):
    write_config(signin)
    assert mika(signin, "login", "chatgpt").returncode == 0
    signin.issuer.expire_access()
    signin.issuer.revoke_all_refresh_tokens()
    r = mika(signin, "--no-ui", "say hello", MIKA_LANGUAGE=lang)
    assert r.returncode == 4, r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    said = "Sign in again: mika login chatgpt" if lang == "en" else "请重新登录：mika login chatgpt"
    assert said in r.stderr + r.stdout
    assert not signin.store.path.exists()
    # The next run does not even start: the sign-in is gone, and it says so.
    r = mika(signin, "--no-ui", "say hello", MIKA_LANGUAGE=lang)
    assert r.returncode == 4 and said in r.stderr and "Traceback" not in r.stderr


def test_no_browser_login_takes_the_pasted_address(signin):
    write_config(signin)
    proc = subprocess.Popen(
        [sys.executable, "-m", "mika.cli", "login", "chatgpt", "--no-browser"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=mika_env(signin),
        cwd=signin.tmp,
    )
    assert proc.stderr is not None and proc.stdin is not None
    url = ""
    while not url:
        line = proc.stderr.readline()
        assert line, "the command ended before printing the address"
        if line.startswith(signin.issuer.url):
            url = line.strip()
    proc.stdin.write(redirect_of(url) + "\n")
    proc.stdin.close()
    rest = proc.stderr.read()
    assert proc.wait(60) == 0, rest
    assert "Signed in with ChatGPT" in rest and signin.store.load() is not None


def test_a_failed_login_is_one_line_and_exit_4(signin):
    write_config(signin)
    signin.issuer.tamper_state = True
    r = mika(signin, "login", "chatgpt")
    assert r.returncode == 4 and "Traceback" not in r.stderr
    assert "refused" in r.stderr.splitlines()[-1] and not signin.store.path.exists()
    z = mika(signin, "login", "chatgpt", MIKA_LANGUAGE="zh")
    assert z.returncode == 4 and "state 对不上" in z.stderr


def test_logout_when_the_issuer_is_unreachable_still_signs_out_here(signin):
    write_config(signin)
    assert mika(signin, "login", "chatgpt").returncode == 0
    r = mika(signin, "logout", MIKA_CHATGPT_ISSUER="http://127.0.0.1:9")  # nobody listens on port 9
    assert r.returncode == 0 and "could not be told" in r.stdout
    assert not signin.store.path.exists()
