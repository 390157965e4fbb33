"""A fake OpenAI issuer and a fake ChatGPT Responses backend: real HTTP servers on
127.0.0.1 (a free port each), speaking the wire formats the real ones do.

The issuer checks what a real one checks: the client id, the exact redirect URI (at
authorize and again at the token exchange), S256 and the PKCE verifier against the
challenge, that a code is used once; it hands out JWT-shaped tokens whose id token
carries `https://api.openai.com/auth.chatgpt_account_id`, refreshes (rotating the refresh
token) and revokes. The backend takes only bearer tokens the issuer handed out and not
revoked, with the right account header, and only the fields the plan route accepts.
Each has switches for the faults the tests need.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
ACCOUNT_ID = "acc-7f3e2b1a-93c4-4d5e-8f6a-0b1c2d3e4f5a"
EMAIL = "plan.user@example.com"
ALLOWED_FIELDS = {"model", "instructions", "input", "tools", "store", "stream", "include"}
RECORDED = Path(__file__).resolve().parents[1] / "fixtures/real/llm_api/openai_responses_stream"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(claims: dict[str, Any]) -> str:
    head = _b64(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
    return f"{head}.{_b64(json.dumps(claims).encode())}.{_b64(secrets.token_bytes(32))}"


@dataclass
class CodeGrant:
    challenge: str
    redirect_uri: str
    used: bool = False


@dataclass
class IssuerLog:
    authorize: list[dict[str, str]] = field(default_factory=list)
    token: list[dict[str, str]] = field(default_factory=list)
    revoke: list[dict[str, str]] = field(default_factory=list)

    @property
    def refreshes(self) -> list[dict[str, str]]:
        return [f for f in self.token if f.get("grant_type") == "refresh_token"]

    @property
    def exchanges(self) -> list[dict[str, str]]:
        return [f for f in self.token if f.get("grant_type") == "authorization_code"]


class _Server:
    """A ThreadingHTTPServer on a free loopback port, in a daemon thread."""

    handler: type[BaseHTTPRequestHandler]

    def __enter__(self) -> Any:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                owner.route(self, "GET")

            def do_POST(self) -> None:
                owner.route(self, "POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def route(self, req: BaseHTTPRequestHandler, method: str) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    @staticmethod
    def send(
        req: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None
    ) -> None:
        req.send_response(status)
        req.send_header("Content-Type", ctype)
        req.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            req.send_header(k, v)
        req.end_headers()
        req.wfile.write(body)

    @staticmethod
    def body(req: BaseHTTPRequestHandler) -> bytes:
        n = int(req.headers.get("Content-Length") or 0)
        return req.rfile.read(n) if n else b""


class FakeIssuer(_Server):
    def __init__(self, redirect_uri: str, *, expires_in: int = 3600) -> None:
        self.redirect_uri = redirect_uri
        self.expires_in = expires_in
        self.codes: dict[str, CodeGrant] = {}
        self.access: set[str] = set()
        self.refresh: set[str] = set()
        self.revoked: set[str] = set()
        self.issued: list[dict[str, str]] = []  # every token answer, for the leak scan
        self.log = IssuerLog()
        self.lock = threading.Lock()
        # Faults
        self.deny = False  # redirect with error=access_denied
        self.tamper_state = False  # redirect with another state (as a forged callback would)
        self.drop_code = False  # redirect with the state but no code
        self.token_status: int | None = None  # answer every token request with this status
        self.refresh_gate: threading.Event | None = None  # hold refreshes until set
        self.refresh_held = threading.Event()  # set when a refresh reached the gate
        self.exchange_gate: threading.Event | None = None  # hold code exchanges until set
        self.omit_account = False

    # -- what tests look at
    def all_tokens(self) -> set[str]:
        return {v for answer in self.issued for k, v in answer.items() if k.endswith("_token")}

    def revoke_all_refresh_tokens(self) -> None:
        with self.lock:
            self.revoked |= self.refresh

    def expire_access(self) -> None:
        """The backend stops taking every access token handed out so far (a 401 on next use)."""
        with self.lock:
            self.revoked |= self.access

    # -- HTTP
    def route(self, req: BaseHTTPRequestHandler, method: str) -> None:
        url = urlsplit(req.path)
        if method == "GET" and url.path == "/oauth/authorize":
            return self._authorize(req, {k: v[0] for k, v in parse_qs(url.query).items()})
        if method == "POST" and url.path in ("/oauth/token", "/oauth/revoke"):
            form = {k: v[0] for k, v in parse_qs(self.body(req).decode()).items()}
            if url.path == "/oauth/revoke":
                return self._revoke(req, form)
            return self._token(req, form)
        self.send(req, 404, b"not found", "text/plain")

    def _json(self, req: BaseHTTPRequestHandler, status: int, value: Any) -> None:
        self.send(req, status, json.dumps(value).encode(), "application/json")

    def _authorize(self, req: BaseHTTPRequestHandler, q: dict[str, str]) -> None:
        self.log.authorize.append(q)
        problems = [
            q.get("client_id") != CLIENT_ID and "client_id",
            q.get("redirect_uri") != self.redirect_uri and "redirect_uri",
            q.get("response_type") != "code" and "response_type",
            q.get("code_challenge_method") != "S256" and "code_challenge_method",
            not q.get("code_challenge") and "code_challenge",
            not q.get("state") and "state",
            "offline_access" not in (q.get("scope") or "").split() and "scope",
        ]
        bad = [p for p in problems if p]
        if bad:
            return self._json(req, 400, {"error": "invalid_request", "error_description": f"bad {', '.join(bad)}"})
        if self.deny:
            params = {"error": "access_denied", "error_description": "The user denied access", "state": q["state"]}
        else:
            code = "ac_" + secrets.token_urlsafe(24)
            with self.lock:
                self.codes[code] = CodeGrant(q["code_challenge"], q["redirect_uri"])
            state = "forged-" + secrets.token_urlsafe(8) if self.tamper_state else q["state"]
            params = {"state": state} if self.drop_code else {"code": code, "state": state}
        self.send(req, 302, b"", "text/plain", {"Location": f"{q['redirect_uri']}?{urlencode(params)}"})

    def _tokens(self) -> dict[str, Any]:
        now = int(time.time())
        auth = {} if self.omit_account else {"chatgpt_account_id": ACCOUNT_ID, "chatgpt_plan_type": "plus"}
        answer = {
            "access_token": jwt(
                {"exp": now + self.expires_in, "https://api.openai.com/auth": auth, "n": secrets.token_hex(8)}
            ),
            "refresh_token": "rt_" + secrets.token_urlsafe(32),
            "id_token": jwt(
                {"email": EMAIL, "aud": CLIENT_ID, "https://api.openai.com/auth": auth, "n": secrets.token_hex(8)}
            ),
            "token_type": "Bearer",
            "expires_in": self.expires_in,
        }
        with self.lock:
            self.access.add(answer["access_token"])
            self.refresh.add(answer["refresh_token"])
            self.issued.append({k: v for k, v in answer.items() if k.endswith("_token")})
        return answer

    def _token(self, req: BaseHTTPRequestHandler, form: dict[str, str]) -> None:
        self.log.token.append(form)
        if self.token_status is not None:
            return self._json(req, self.token_status, {"error": "server_error", "error_description": "upstream down"})
        if form.get("client_id") != CLIENT_ID:
            return self._json(req, 401, {"error": "invalid_client"})
        if form.get("grant_type") == "authorization_code":
            if self.exchange_gate is not None:
                self.exchange_gate.wait(10)
            with self.lock:
                grant = self.codes.get(form.get("code", ""))
                fresh = grant is not None and not grant.used
                if grant is not None:
                    grant.used = True  # a code is good once, even when the rest is wrong
            if not fresh or grant is None:
                return self._json(req, 400, {"error": "invalid_grant", "error_description": "unknown or used code"})
            if form.get("redirect_uri") != grant.redirect_uri:
                return self._json(req, 400, {"error": "invalid_grant", "error_description": "redirect_uri mismatch"})
            verifier = form.get("code_verifier", "")
            if _b64(hashlib.sha256(verifier.encode()).digest()) != grant.challenge:
                return self._json(req, 400, {"error": "invalid_grant", "error_description": "code_verifier mismatch"})
            return self._json(req, 200, self._tokens())
        if form.get("grant_type") == "refresh_token":
            if self.refresh_gate is not None:
                self.refresh_held.set()
                self.refresh_gate.wait(10)
            token = form.get("refresh_token", "")
            with self.lock:
                ok = token in self.refresh and token not in self.revoked
                if ok:
                    self.revoked.add(token)  # rotated: the old one is spent
            if not ok:
                return self._json(req, 400, {"error": "invalid_grant", "error_description": "Refresh token revoked"})
            return self._json(req, 200, self._tokens())
        return self._json(req, 400, {"error": "unsupported_grant_type"})

    def _revoke(self, req: BaseHTTPRequestHandler, form: dict[str, str]) -> None:
        self.log.revoke.append(form)
        with self.lock:
            self.revoked.add(form.get("token", ""))
        self._json(req, 200, {})


def text_stream(text: str, model: str = "gpt-5") -> bytes:
    """A Responses stream answering `text`, in the real wire format (event + data lines)."""
    rid = "resp_" + secrets.token_hex(12)
    item = {
        "id": "msg_1",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    usage = {
        "input_tokens": 321,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 12,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 333,
    }
    base = {"id": rid, "object": "response", "created_at": 1765000000, "model": model, "store": False}
    events = [
        ("response.created", {"response": {**base, "status": "in_progress", "output": []}}),
        ("response.output_item.added", {"output_index": 0, "item": {**item, "status": "in_progress", "content": []}}),
        ("response.output_text.delta", {"output_index": 0, "content_index": 0, "item_id": "msg_1", "delta": text}),
        ("response.output_item.done", {"output_index": 0, "item": item}),
        ("response.completed", {"response": {**base, "status": "completed", "output": [item], "usage": usage}}),
    ]
    out = ""
    for n, (kind, data) in enumerate(events):
        out += f"event: {kind}\ndata: {json.dumps({'type': kind, 'sequence_number': n, **data})}\n\n"
    return out.encode()


def recorded_stream(name: str = "simonw-llm__tool_use_stream.sse") -> bytes:
    return (RECORDED / name).read_bytes()


class FakeBackend(_Server):
    """`POST /backend-api/codex/responses`: streams `stream` (or what `replies` holds, in
    order) to requests with a live access token of `issuer` and the account header."""

    def __init__(self, issuer: FakeIssuer, stream: bytes | None = None) -> None:
        self.issuer = issuer
        self.stream = stream or text_stream("Done: the plan answered.")
        self.replies: list[tuple[int, bytes]] = []  # (status, body) queued faults/answers
        self.requests: list[dict[str, Any]] = []
        self.statuses: list[int] = []

    @property
    def base_url(self) -> str:
        return f"{self.url}/backend-api/codex"

    def route(self, req: BaseHTTPRequestHandler, method: str) -> None:
        url = urlsplit(req.path)
        body = self.body(req)
        if method != "POST" or url.path != "/backend-api/codex/responses":
            return self._reply(req, 404, b'{"detail":"Not Found"}')
        auth = req.headers.get("Authorization", "")
        token = auth[len("Bearer ") :] if auth.startswith("Bearer ") else ""
        seen = {"headers": {k.lower(): v for k, v in req.headers.items()}, "token": token}
        try:
            seen["json"] = json.loads(body)
        except ValueError:
            seen["json"] = None
        self.requests.append(seen)
        with self.issuer.lock:
            live = token in self.issuer.access and token not in self.issuer.revoked
        if not live:
            return self._reply(
                req,
                401,
                json.dumps(
                    {
                        "error": {
                            "message": "Your authentication token has expired.",
                            "type": "invalid_request_error",
                            "code": "token_expired",
                        }
                    }
                ).encode(),
            )
        if req.headers.get("chatgpt-account-id") != ACCOUNT_ID:
            return self._reply(req, 403, b'{"detail":"account mismatch"}')
        data = seen["json"]
        extra = set(data or {}) - ALLOWED_FIELDS if isinstance(data, dict) else {"<not json>"}
        if extra or not isinstance(data, dict) or data.get("store") is not False or data.get("stream") is not True:
            return self._reply(req, 400, json.dumps({"detail": f"Unsupported parameter: {sorted(extra)}"}).encode())
        if self.replies:
            status, reply = self.replies.pop(0)
            if status != 200:
                return self._reply(req, status, reply)
            return self._reply(req, 200, reply, "text/event-stream")
        self._reply(req, 200, self.stream, "text/event-stream")

    def _reply(self, req: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.statuses.append(status)
        self.send(req, status, body, ctype)


def follow_in_browser(url: str) -> bool:
    """The "browser" of a test: opens the authorize page and follows its redirect to the
    loopback callback, as a real browser does. Returns True (it opened)."""
    with httpx.Client(follow_redirects=True, timeout=30) as client:
        client.get(url)
    return True


def redirect_of(url: str) -> str:
    """Where the issuer sends the browser (for the pasted flow: the address a person copies)."""
    with httpx.Client(follow_redirects=False, timeout=30) as client:
        return client.get(url).headers["location"]
