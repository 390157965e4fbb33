"""`mika login chatgpt`, `mika login status`, `mika logout`: use a ChatGPT Plus/Pro plan
without an API key (seed §12 「用 ChatGPT 登录」).

Errors print one line to stderr: exit 4 for a sign-in that failed or ended (the model
provider's code), 2 for a config that cannot be read or edited. The sign-in's HTTP
client (httpx) is imported inside the commands, so `mika login --help` stays cheap.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import click

from mika.commands.models import config_option
from mika.config.errors import ConfigError
from mika.exit_codes import ExitCode
from mika.model.chatgpt.endpoints import DEFAULT_MODEL, PROVIDER_ID
from mika.terminal_text import echo, json_for_terminal


def _fail(message: str, code: ExitCode) -> NoReturn:
    echo(f"mika login: {message}", err=True)
    sys.exit(int(code))


def _language(config_path: str | None) -> Path:
    """The config this command works on, with its `[general] language` applied."""
    from mika.commands.models import apply_language, config_path_of
    from mika.model.config_edit import read_config

    path = config_path_of(config_path)
    try:
        apply_language(read_config(path)[1])
    except ConfigError:
        pass  # a broken config is reported where it is edited
    return path


@click.group("login")
def login_group() -> None:
    """Sign in with a ChatGPT plan instead of an API key (mika login chatgpt).

    \b
    mika login chatgpt               sign in in the browser
    mika login chatgpt --no-browser  print the address, paste back where the browser ended
    mika login status                who is signed in, until when
    mika logout                      sign out (revoked at OpenAI, deleted here)

    \b
    The tokens are stored in the state folder, auth/chatgpt.json (mode 0600), and never
    written anywhere else. MIKA_CHATGPT_ISSUER, MIKA_CHATGPT_BASE_URL and
    MIKA_CHATGPT_CALLBACK_PORT override the sign-in service, the plan's backend and the
    local callback port (1455). Exit codes: 0 signed in, 1 not signed in (status),
    2 config error, 4 the sign-in failed or ended.
    """


@login_group.command("chatgpt")
@click.option(
    "--no-browser",
    is_flag=True,
    help="Don't open a browser here (SSH): print the address, then paste the address the browser "
    "ended on, or the code.",
)
@click.option(
    "--model",
    "model_name",
    default=DEFAULT_MODEL,
    show_default=True,
    help="The main model to use through the plan, if no main model is chosen yet.",
)
@click.option("--timeout", type=float, default=300.0, show_default=True, help="Seconds to wait for the browser.")
@config_option
def chatgpt_command(no_browser: bool, model_name: str, timeout: float, config_path: str | None) -> None:
    """Sign in with your ChatGPT plan (OAuth with PKCE) and add the chatgpt provider."""
    from mika.model.chatgpt.copy import t
    from mika.model.chatgpt.endpoints import from_environment
    from mika.model.chatgpt.errors import LoginError
    from mika.model.chatgpt.login import sign_in_by_paste, sign_in_with_browser
    from mika.model.chatgpt.refresh import forget_shared
    from mika.model.chatgpt.token_store import TokenStore

    path = _language(config_path)
    endpoints = from_environment()
    store = TokenStore.default()
    try:
        if no_browser:
            tokens = asyncio.run(
                sign_in_by_paste(
                    endpoints,
                    store,
                    show_url=lambda url: _show(t("paste_url"), url),
                    read_answer=lambda: _read_paste(
                        t("paste_prompt", redirect=endpoints.redirect_uri(endpoints.callback_port or 1455))
                    ),
                )
            )
        else:
            tokens = asyncio.run(
                sign_in_with_browser(
                    endpoints,
                    store,
                    open_browser=_open_browser,
                    show_url=lambda url: _show(t("open_browser"), url, t("waiting")),
                    timeout=timeout,
                )
            )
    except LoginError as err:
        _fail(err.user_message(), ExitCode.MODEL)
    forget_shared(store)
    echo(t("signed_in", who=tokens.email or tokens.account_id, file=store.path), err=True)
    _add_provider(path, model_name)


def _show(*lines: str) -> None:
    for line in lines:
        echo(line, err=True)


def _open_browser(url: str) -> bool:
    """The system's browser (the BROWSER variable is honoured by webbrowser)."""
    import webbrowser

    from mika.model.chatgpt.copy import t

    try:
        opened = webbrowser.open(url)
    except Exception:  # no display, a broken BROWSER command: the address is printed anyway
        opened = False
    if not opened:
        _show(t("no_browser"), url)
    return opened


async def _read_paste(prompt: str) -> str:
    echo(prompt, err=True)
    return await asyncio.to_thread(sys.stdin.readline)


def _add_provider(path: Path, model_name: str) -> None:
    """The first sign-in adds `[providers.chatgpt] kind = "chatgpt"` and, when no main
    model is chosen yet, makes one of the plan's models the main model."""
    from mika.atomic_write import write_secret_file
    from mika.model.chatgpt.copy import t
    from mika.model.config_edit import plan_provider_table, read_config, set_role

    try:
        _, data = read_config(path)
        providers = data.get("providers") if isinstance(data.get("providers"), dict) else {}
        roles = data.get("roles") if isinstance(data.get("roles"), dict) else {}
        ours = [
            p for p, table in (providers or {}).items() if isinstance(table, dict) and table.get("kind") == "chatgpt"
        ]
        pid: str | None = ours[0] if ours else None
        if pid is None and PROVIDER_ID not in (providers or {}):
            text, _ = plan_provider_table(path, PROVIDER_ID, {"kind": "chatgpt"})
            write_secret_file(path, text)  # the config may hold header secrets: 0600, not masked
            echo(t("provider_added", file=path), err=True)
            pid = PROVIDER_ID
        if pid is not None and not (roles or {}).get("main"):
            value = f"{pid}/{model_name}"
            set_role(path, "main", value)
            echo(t("main_set", value=value, file=path), err=True)
        else:
            echo(t("next_use"), err=True)
    except ConfigError as exc:
        _fail(str(exc), ExitCode.USAGE)
    except OSError as exc:
        _fail(f"cannot write {path}: {exc.strerror or exc}", ExitCode.USAGE)


@login_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@config_option
def status_command(as_json: bool, config_path: str | None) -> None:
    """Who is signed in with ChatGPT, and until when the access token is good."""
    from mika.model.chatgpt.copy import t
    from mika.model.chatgpt.token_store import TokenStore

    _language(config_path)
    store = TokenStore.default()
    tokens = store.load()
    if as_json:
        body: dict[str, Any] = {"signed_in": tokens is not None, "file": str(store.path)}
        if tokens is not None:
            body.update(
                email=tokens.email,
                account_id=tokens.account_id,
                plan=tokens.plan,
                expires_at=tokens.expires_at or None,
                issuer=tokens.issuer,
            )
        echo(json_for_terminal(body, indent=1))
        sys.exit(0 if tokens is not None else int(ExitCode.NOT_DONE))
    if tokens is None:
        echo(t("status_out"))
        sys.exit(int(ExitCode.NOT_DONE))
    unknown = t("unknown")
    echo(t("status_in", who=tokens.email or tokens.account_id, account=tokens.account_id, plan=tokens.plan or unknown))
    if tokens.expires_at:
        when = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(tokens.expires_at))
        echo(t("status_expired" if tokens.expired() else "status_expiry", when=when))
    echo(t("status_file", file=store.path))


@click.command("logout")
@config_option
def logout_command(config_path: str | None) -> None:
    """Sign out of ChatGPT: revoke the sign-in at OpenAI (best effort), delete the tokens here."""
    from mika.model.chatgpt.copy import t
    from mika.model.chatgpt.endpoints import from_environment
    from mika.model.chatgpt.oauth import revoke
    from mika.model.chatgpt.refresh import forget_shared
    from mika.model.chatgpt.token_store import TokenStore

    _language(config_path)
    store = TokenStore.default()
    tokens = store.load()
    if tokens is None:
        echo(t("not_signed_in"))
        return
    why = asyncio.run(revoke(from_environment(), tokens.refresh_token))
    # Deleted whatever the issuer said: signing out here must never depend on the network.
    store.clear()
    forget_shared(store)
    echo(t("logged_out") if why is None else t("logged_out_local", why=why))
