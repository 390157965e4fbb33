"""No secret is ever written (issue 11): the process-wide registry, the writing
primitives, the stream guards, file modes, and key shapes that don't eat user text.

Every test works on real files in tmp_path and real objects; nothing of ours is mocked.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import sys
import threading
from html import escape
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from mika import atomic_write as aw
from mika.config import secrets as sec
from mika.config.secret_discovery import configured_secrets, register_configured_secrets
from mika.config.secret_streams import GuardedTextStream, StreamGuard, guard_std_streams
from mika.config.secrets import MASK, REGISTRY
from mika.record.redactor import Redactor, mask_key_shapes

# Shaped like a real key, with the characters that JSON, URLs, HTML and repr change.
KEY = "sk-proj-Zq8v/T3x+Lw9R2mN5bK7cY4h=J6gF1dS0aE"
ODD = 'hdr"val\\ue<9>&Q7xP2mR4kT8wZ'  # a header value with a quote, a backslash, < > &


@pytest.fixture(autouse=True)
def clean_registry():
    REGISTRY.clear()
    yield
    REGISTRY.clear()


def every_form(secret: str) -> list[str]:
    """What an attacker would grep for: the secret and each way it gets re-encoded."""
    return [
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        quote(secret, safe=""),
        quote_plus(secret),
        re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(secret, safe="")),
        escape(secret),
        repr(secret)[1:-1],
        json.dumps(json.dumps(secret)[1:-1])[1:-1],
    ]


def assert_clean(blob: bytes | str, *secrets: str) -> None:
    data = blob.encode() if isinstance(blob, str) else blob
    for s in secrets:
        for form in every_form(s):
            if len(form) >= sec.MIN_SECRET_LEN:
                assert form.encode() not in data, f"{form!r} leaked"


# -- the registry ------------------------------------------------------------------


def test_every_encoded_form_of_a_registered_secret_is_masked():
    sec.register_secret(KEY)
    sec.register_secret(ODD)
    for s in (KEY, ODD):
        for form in every_form(s):
            out = sec.scrub(f"before {form} after")
            assert out == f"before {MASK} after", form
            assert sec.scrub_bytes(f"<{form}>".encode()) == f"<{MASK}>".encode()


def test_short_and_public_values_are_never_registered():
    raw = {
        "providers": {
            "p": {
                "headers": {
                    "X-Title": "Mika terminal",
                    "X-Flag": "1",
                    "User-Agent": "mika/0.1 client",
                    "X-Api-Token": "tok-7Q2pLm9xRw",
                }
            }
        }
    }
    found = configured_secrets(raw, None, environ={})
    assert found == ["tok-7Q2pLm9xRw"]
    assert not sec.register_secret("short")


def test_discovery_finds_env_keys_key_files_headers_and_bearer_tokens(tmp_path):
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "b.key").write_text("file-key-0123456789abcdef\n")
    raw = {
        "providers": {
            "a": {"api_key_env": "A_KEY_VAR"},
            "b": {"api_key_file": "keys/b.key"},
            "c": {"headers": {"Authorization": "Bearer bearer-tok-9876543210"}},
            "d": {"api_key_file": "missing.key"},
        }
    }
    env = {"A_KEY_VAR": "env-key-abcdefgh12345", "DEEPSEEK_API_KEY": "preset-key-555666777", "HOME": "/home/someone"}
    found = configured_secrets(raw, tmp_path / "config.toml", environ=env)
    assert set(found) == {
        "env-key-abcdefgh12345",
        "file-key-0123456789abcdef",
        "Bearer bearer-tok-9876543210",
        "bearer-tok-9876543210",
        "preset-key-555666777",
    }


def test_register_configured_secrets_reads_the_settings(tmp_path, monkeypatch):
    from mika.config.settings import load_settings

    cfg = tmp_path / "config.toml"
    cfg.write_text(
        '[providers.x]\nkind = "openai-chat"\nbase_url = "http://127.0.0.1:1/v1"\n'
        'api_key_env = "X_SECRET_FOR_TEST"\n[providers.x.headers]\n"X-Custom" = "custom-hdr-31415926"\n'
    )
    monkeypatch.setenv("X_SECRET_FOR_TEST", KEY)
    assert register_configured_secrets(load_settings(cfg)) >= 2
    assert sec.scrub(f"{KEY} and custom-hdr-31415926") == f"{MASK} and {MASK}"


# -- the writing primitives -------------------------------------------------------------


def test_every_primitive_masks_and_json_stays_valid(tmp_path):
    sec.register_secret(KEY)
    sec.register_secret(ODD)
    value = {"message": f"Incorrect API key provided: {KEY}", ODD: [ODD, {"deep": f"x{KEY}y"}], "n": 3}
    aw.write_json(tmp_path / "a.json", value)
    aw.write_text(tmp_path / "b.txt", f"{KEY}\n{json.dumps(ODD)}")
    aw.write_bytes(tmp_path / "c.bin", b"\x89PNG" + KEY.encode() + b"\x00")
    aw.append_line(tmp_path / "d.jsonl", json.dumps({"k": KEY}))
    aw.append_json_line(tmp_path / "d.jsonl", {"k": ODD})
    aw.append_text(tmp_path / "e.log", f"Traceback: RuntimeError({ODD!r})\n")
    for p in tmp_path.iterdir():
        assert_clean(p.read_bytes(), KEY, ODD)
    back = json.loads((tmp_path / "a.json").read_text())
    assert back == {"message": f"Incorrect API key provided: {MASK}", MASK: [MASK, {"deep": f"x{MASK}y"}], "n": 3}
    assert [json.loads(x) for x in (tmp_path / "d.jsonl").read_text().splitlines()] == [{"k": MASK}, {"k": MASK}]


def test_a_secret_file_keeps_its_secret_and_is_0600(tmp_path):
    sec.register_secret(KEY)
    path = tmp_path / "cfg" / "keys" / "p.key"
    aw.write_secret_file(path, KEY)
    assert path.read_text() == KEY
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077, 0o277])
def test_files_are_0600_and_new_folders_0700_whatever_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        root = tmp_path / "state"
        aw.write_json(root / "runs" / "r1" / "run.json", {"a": 1})
        aw.write_bytes(root / "runs" / "r1" / "frames" / "f.png", b"png")
        aw.append_line(root / "runs" / "r1" / "events.jsonl", "{}")
        aw.append_text(root / "crash.log", "x\n")
        aw.write_text(root / "deep" / "er" / "t.txt", "t")
    finally:
        os.umask(old)
    for p in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode == (0o700 if p.is_dir() else 0o600), (p, oct(mode))


def test_an_older_world_readable_log_is_tightened_on_append(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text("{}\n")
    path.chmod(0o644)
    aw.append_line(path, "{}")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_crash_log_masks_a_key_inside_an_exception_repr(tmp_path):
    from mika.crash_log import write_crash_log

    sec.register_secret(KEY)
    sec.register_secret(ODD)
    try:
        raise RuntimeError({"headers": {"Authorization": f"Bearer {KEY}"}, "echo": ODD})
    except RuntimeError as exc:
        where = write_crash_log(tmp_path / "state", exc, who="test")
    text = Path(where).read_text()
    assert "RuntimeError" in text and MASK in text
    assert_clean(Path(where).read_bytes(), KEY, ODD)
    assert stat.S_IMODE(Path(where).stat().st_mode) == 0o600


def test_model_error_keeps_no_echoed_key():
    from mika.model.errors import ModelError, ModelErrorKind

    sec.register_secret(KEY)
    err = ModelError(ModelErrorKind.AUTH, f"Incorrect API key provided: {KEY}", status=401)
    assert KEY not in err.user_message() and KEY not in str(err) and KEY not in repr(err)
    assert "Incorrect API key provided: [redacted]" in err.user_message()


# -- streams -----------------------------------------------------------------------


def test_a_key_split_across_stream_pieces_at_every_point_is_masked():
    sec.register_secret(KEY)
    text = f"Your key is {KEY}, keep it safe."
    for cut in range(1, len(text)):
        for second in (cut, min(len(text), cut + 7)):
            guard = StreamGuard()
            pieces = [text[:cut], text[cut:second], text[second:]]
            out = [guard.feed(p) for p in pieces] + [guard.flush()]
            assert "".join(out) == f"Your key is {MASK}, keep it safe.", (cut, second)
            assert not any(KEY[: len(KEY) // 2] in o and KEY[len(KEY) // 2 :] in o for o in out)


def test_a_stream_that_ends_mid_secret_lets_out_only_a_prefix():
    sec.register_secret(KEY)
    guard = StreamGuard()
    assert guard.feed("ok " + KEY[:10]) == "ok "
    assert guard.flush() == KEY[:10]  # the stream ended: a prefix is not the key


def test_guarded_stdout_masks_text_and_the_binary_buffer():
    sec.register_secret(KEY)

    raw = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    out = GuardedTextStream(raw)
    out.write("a " + KEY[:5])
    out.write(KEY[5:] + " b\n")
    out.buffer.write(b"bin " + quote(KEY, safe="").encode() + b"\n")
    out.release()
    raw.flush()
    written = raw.buffer.getvalue().decode()
    assert written == f"a {MASK} b\nbin {MASK}\n"
    assert out.encoding == "utf-8"


def test_guard_std_streams_is_installed_once(monkeypatch):
    base = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", base)
    monkeypatch.setattr(sys, "stderr", base)
    guard_std_streams()
    first = sys.stdout
    guard_std_streams()
    assert isinstance(first, GuardedTextStream) and sys.stdout is first


def test_registration_and_scrubbing_from_many_threads():
    keys = [f"thread-key-{i:04d}-Zq8vT3xLw9" for i in range(40)]
    threads = [threading.Thread(target=sec.register_secret, args=(k,)) for k in keys]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sec.scrub(" ".join(keys)) == " ".join([MASK] * len(keys))


# -- key shapes, and user text left alone ------------------------------------------------


@pytest.mark.parametrize(
    "shaped",
    [
        "sk-proj-Zq8vT3xLw9R2mN5bK7cY4hJ6gF1dS0aE",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
        "AIzaSyD3x9kLmN0pQrStUvWxYz1234567890ab",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "xoxb-123456789012-abcdefghijkl",
        "Zq8vT3xLw9R2mN5bK7cY4hJ6gF1dS0aEpq",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop",
    ],
)
def test_key_shapes_are_still_masked_in_the_record(shaped):
    assert mask_key_shapes(f"found {shaped} here") == f"found {MASK} here"
    assert Redactor().text(f"Authorization: Bearer {shaped}") == f"Authorization: Bearer {MASK}"


LONG_GOALS = {
    "one letter": "x" * 120_000,
    "prose": ("Please read every message from Alice and summarise the plan for the trip. " * 2000)[:120_000],
    "digits": "1234567890" * 12_000,
    "chinese": "打开设置然后把深色模式打开" * 10_000,
    "a path": ("/sdcard/DCIM/Camera/IMG_20240101_123456.jpg " * 3000)[:120_000],
    "hex digests": " ".join(["0123456789abcdef" * 4] * 1800),
    "words-with-dashes": ("task-management-system-design-document-" * 3100)[:120_000],
}


@pytest.mark.parametrize("name", list(LONG_GOALS))
def test_a_120000_character_goal_is_the_goal(name):
    goal = LONG_GOALS[name]
    assert len(goal) >= 100_000
    assert Redactor().text(goal) == goal
    assert Redactor().value({"goal": goal}) == {"goal": goal}


def test_words_that_merely_start_like_keys_stay():
    for text in (
        "sk-learn-model-selection-guide",
        "task-force-meeting-notes-for-december",
        "AbstractSingletonProxyFactoryBean",
        "the secret: something",
        "token: counting words",
        "c20261201191456-4a92e0",
    ):
        assert mask_key_shapes(text) == text


def test_config_writers_keep_the_secrets_the_config_holds_and_write_0600(tmp_path):
    """Masking must never destroy the user's config: a header secret written back by the
    TUI's settings/model screens or `mika models add` stays as it was."""
    import tomllib

    from mika.model.config_edit import set_role
    from mika_tui.config_write import update_config

    sec.register_secret(ODD)
    path = tmp_path / "cfg" / "config.toml"
    update_config(
        path,
        {
            "providers": {
                "p": {"kind": "openai-chat", "base_url": "http://127.0.0.1:9/v1", "headers": {"X-Custom-Auth": ODD}}
            }
        },
    )
    set_role(path, "main", "p/some-model")
    data = tomllib.loads(path.read_text())
    assert data["providers"]["p"]["headers"]["X-Custom-Auth"] == ODD
    assert data["roles"]["main"] == "p/some-model"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
