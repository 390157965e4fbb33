"""The secrets this process knows, and the one scrub every write and every output takes.

Configured secrets (API keys from environment variables or key files, provider header
values) are registered once at start (`register_configured_secrets`). From then on the
writing primitives (`mika.atomic_write`) and the guarded stdout/stderr replace each of
them — and the forms a server or a serializer turns them into (JSON-escaped,
URL-encoded, HTML-escaped, a Python repr) — with MASK. This is the lowest layer (it
imports nothing of Mika), so the file writers can use it.

Only exact, long values are registered: a short value ("1", "true", a header like
`X-Title: Mika`) would eat ordinary text everywhere.
"""

from __future__ import annotations

import atexit
import html
import io
import json
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any, Iterable, Mapping
from urllib.parse import quote, quote_plus

MASK = "[redacted]"
MIN_SECRET_LEN = 8

# Environment variables whose values are secrets whatever the config says: a preset used
# by id (`--model deepseek/…`) reads DEEPSEEK_API_KEY without naming it in the config.
_SECRET_ENV_NAME = re.compile(r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.I)
# Header names whose values are public by design (presets declare them); never masked.
_PUBLIC_HEADERS = frozenset({
    "user-agent", "http-referer", "referer", "x-title", "accept", "content-type", "accept-language",
    "anthropic-version", "anthropic-beta", "openai-beta",
})
# "Bearer abc…", "Basic abc…", "token abc…": the server may echo only the part after the scheme.
_AUTH_SCHEME = re.compile(r"^(?:bearer|basic|token|key|apikey)\s+(\S+)$", re.I)


def _forms(secret: str) -> set[str]:
    """The secret and what it becomes inside the texts Mika writes: a JSON string, a URL,
    an HTML error page, a Python repr (tracebacks), and those nested once more."""
    one = {
        secret,
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(secret)[1:-1],
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        html.escape(secret),
        html.escape(secret, quote=False),
        repr(secret)[1:-1],
    }
    two = set(one)
    for form in one:
        two.add(json.dumps(form, ensure_ascii=False)[1:-1])
        two.add(repr(form)[1:-1])
        two.add(quote(form, safe=""))
    # Percent-escapes in lower case are the same URL.
    two |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), f) for f in two if "%" in f}
    return {f for f in two if len(f) >= MIN_SECRET_LEN}


class SecretRegistry:
    """The process-wide set of exact secrets, as one compiled pattern (longest first)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self._forms: tuple[str, ...] = ()
        self._pattern: re.Pattern[str] | None = None
        self._bytes_pattern: re.Pattern[bytes] | None = None
        # Every proper prefix of every form, for `holdback` (a set lookup per length).
        self._prefixes: frozenset[str] = frozenset()
        self._longest = 0

    def add(self, secret: str | None) -> bool:
        """Register one secret; False if it is too short to mask safely or known already."""
        if not isinstance(secret, str):
            return False
        secret = secret.strip()
        if len(secret) < MIN_SECRET_LEN or secret in self._secrets:
            return False
        with self._lock:
            self._secrets.add(secret)
            forms = set(self._forms) | _forms(secret)
            ordered = tuple(sorted(forms, key=len, reverse=True))
            self._pattern = re.compile("|".join(re.escape(f) for f in ordered))
            self._bytes_pattern = re.compile(b"|".join(re.escape(f.encode("utf-8")) for f in ordered))
            self._forms = ordered
            self._prefixes = frozenset(f[:n] for f in ordered for n in range(1, len(f)))
            self._longest = len(ordered[0])
        return True

    def clear(self) -> None:
        """Forget every secret (tests that register their own)."""
        with self._lock:
            self._secrets.clear()
            self._forms = ()
            self._pattern = self._bytes_pattern = None
            self._prefixes, self._longest = frozenset(), 0

    @property
    def forms(self) -> tuple[str, ...]:
        return self._forms

    def __len__(self) -> int:
        return len(self._secrets)

    def text(self, value: str) -> str:
        pattern = self._pattern
        if pattern is None or not value:
            return value
        return pattern.sub(MASK, value)

    def data(self, value: bytes) -> bytes:
        pattern = self._bytes_pattern
        if pattern is None or not value:
            return value
        return pattern.sub(MASK.encode(), value)

    def value(self, value: Any) -> Any:
        """Strings anywhere inside dicts, lists and tuples (keys too), before serializing."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {(self.text(k) if isinstance(k, str) else k): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def holdback(self, text: str) -> int:
        """How many characters at the end of `text` could be the start of a secret, so a
        stream must wait for what follows before letting them out."""
        prefixes = self._prefixes
        for n in range(min(self._longest - 1, len(text)), 0, -1):
            if text[-n:] in prefixes:
                return n
        return 0


REGISTRY = SecretRegistry()


def register_secret(secret: str | None) -> bool:
    return REGISTRY.add(secret)


def scrub(text: str) -> str:
    return REGISTRY.text(text)


def scrub_bytes(data: bytes) -> bytes:
    return REGISTRY.data(data)


def scrub_value(value: Any) -> Any:
    return REGISTRY.value(value)


# -- discovery ------------------------------------------------------------------------


def configured_secrets(raw: Mapping[str, Any], config_file: Path | None,
                       environ: Mapping[str, str] | None = None) -> list[str]:
    """Every secret the config and environment hold: the value of each provider's
    `api_key_env`, the content of each `api_key_file`, each non-public header value (and
    the token after `Bearer`), and any environment variable named like a key. Read here
    from the raw tables, not through mika.model (a higher layer); unreadable files are
    skipped (the model layer reports them when it needs the key)."""
    env = os.environ if environ is None else environ
    found: list[str] = []
    providers = raw.get("providers") if isinstance(raw, Mapping) else None
    for table in (providers or {}).values() if isinstance(providers, Mapping) else ():
        if not isinstance(table, Mapping):
            continue
        name = table.get("api_key_env")
        if isinstance(name, str) and env.get(name):
            found.append(env[name])
        key_file = table.get("api_key_file")
        if isinstance(key_file, str) and key_file:
            path = Path(key_file).expanduser()
            if not path.is_absolute() and config_file is not None:
                path = config_file.parent / path
            try:
                found.append(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                pass
        headers = table.get("headers")
        if isinstance(headers, Mapping):
            found.extend(_header_secrets(headers))
    for name, value in env.items():
        # Named like a key but not configured: only values shaped like one (no spaces, 12+).
        if _SECRET_ENV_NAME.search(name) and len(value.strip()) >= 12 and not any(c.isspace() for c in value.strip()):
            found.append(value)
    return [s.strip() for s in found if isinstance(s, str) and len(s.strip()) >= MIN_SECRET_LEN]


def _header_secrets(headers: Mapping[str, Any]) -> Iterable[str]:
    for name, value in headers.items():
        if not isinstance(value, str) or str(name).lower() in _PUBLIC_HEADERS:
            continue
        yield value
        m = _AUTH_SCHEME.match(value.strip())
        if m:
            yield m.group(1)


def register_configured_secrets(settings: Any) -> int:
    """The one start-up call of every face: registers what `configured_secrets` finds for
    these settings (a `mika.config.settings.Settings`). Returns how many were new."""
    return register_config_secrets(getattr(settings, "raw", None) or {}, getattr(settings, "file", None))


def register_config_secrets(raw: Mapping[str, Any], config_file: Path | None) -> int:
    """The same from a parsed config mapping (commands that read the TOML themselves)."""
    return sum(REGISTRY.add(s) for s in configured_secrets(raw, config_file))


# -- streams --------------------------------------------------------------------------


class StreamGuard:
    """Scrubs text that arrives in pieces (model deltas, stream writes): a secret split
    across two pieces is masked, because the tail that could begin one is held back
    until the next piece (or `flush`) says what it was."""

    def __init__(self, registry: SecretRegistry = REGISTRY) -> None:
        self._registry = registry
        self._pending = ""

    def feed(self, piece: str) -> str:
        text = self._registry.text(self._pending + piece)
        keep = self._registry.holdback(text)
        self._pending = text[len(text) - keep:] if keep else ""
        return text[: len(text) - keep] if keep else text

    def flush(self) -> str:
        text, self._pending = self._registry.text(self._pending), ""
        return text


class GuardedTextStream(io.TextIOBase):
    """stdout/stderr with every configured secret masked. `buffer` is guarded too, so a
    writer that goes around the text layer (click does, for bytes or odd encodings)
    still passes the scrub."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw
        self._guard = StreamGuard()
        self._lock = threading.RLock()
        raw_buffer = getattr(raw, "buffer", None)
        self._buffer = _GuardedBinary(raw_buffer, self) if raw_buffer is not None else None

    def write(self, s: str) -> int:
        with self._lock:
            out = self._guard.feed(s)
            if out:
                self._raw.write(out)
        return len(s)

    def flush(self) -> None:
        with self._lock:
            self._raw.flush()

    def release(self) -> None:
        """Let out what was held back (at exit: nothing more can complete it)."""
        with self._lock:
            rest = self._guard.flush()
            if rest:
                self._raw.write(rest)
            try:
                self._raw.flush()
            except (OSError, ValueError):
                pass

    @property
    def buffer(self) -> Any:
        return self._buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._raw, "encoding", "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._raw, "errors", None)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._raw.isatty()

    def fileno(self) -> int:
        return self._raw.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class _GuardedBinary:
    def __init__(self, raw: Any, text: GuardedTextStream) -> None:
        self._raw, self._text = raw, text

    def write(self, data: bytes) -> int:
        self._text.release()  # keep the order of text already written
        self._raw.write(scrub_bytes(bytes(data)))
        return len(data)

    def flush(self) -> None:
        self._raw.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


def guard_std_streams() -> None:
    """Wrap sys.stdout and sys.stderr once per process (the CLI entry point calls this)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or isinstance(stream, GuardedTextStream):
            continue
        guarded = GuardedTextStream(stream)
        setattr(sys, name, guarded)
        atexit.register(guarded.release)
