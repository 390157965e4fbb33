"""Risk-control pages (seed §6 风控, `WebBarrier`): recognise a page that stops the run.

Three kinds, each handed to the user rather than retried in a loop:
- `rate_limited`: HTTP 429, or 503 with a Retry-After (or a 503 page that says so);
- `captcha`: a frame of a known human-verification service (reCAPTCHA, hCaptcha,
  Cloudflare Turnstile / challenges, GeeTest, Aliyun, Tencent, Arkose, NetEase), the page
  itself being such a challenge, or a challenge form (an "I'm not a robot" box, a field for
  the characters in a picture, a slider to drag);
- `access_blocked`: a short page that says the visit was stopped (访问异常, 环境异常, 操作过于
  频繁, unusual traffic, a "Security check" / "安全提示" title with words like 异常 / 验证 /
  verify, a 403 "Access denied").

Only short pages are read for the words: a long ordinary page that mentions "captcha" or
"unusual traffic" in its text is not a barrier. `evidence` is a short phrase in our own
words (the matched pattern, never the page's sentence) for the model and the user.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from mika.cap.web.port import PageRead

BarrierKind = Literal["captcha", "rate_limited", "access_blocked"]

# A risk-control page says little: beyond this many characters of text a page is an
# ordinary page that may merely talk about captchas or traffic. A wide (CJK) character
# counts twice: it says about as much as a short word.
SHORT_PAGE_CHARS = 800


@dataclass(frozen=True)
class Barrier:
    kind: BarrierKind
    evidence: str


# ---------------------------------------------------------------- captcha services


@dataclass(frozen=True)
class _Service:
    name: str
    hosts: tuple[str, ...]  # the host is one of these or a subdomain of one
    path: str = ""  # and, when set, the path matches this regex


_SERVICES = (
    _Service("reCAPTCHA", ("google.com", "recaptcha.net", "gstatic.com"), r"^/recaptcha/"),
    _Service("hCaptcha", ("hcaptcha.com",)),
    _Service("Cloudflare Turnstile", ("challenges.cloudflare.com",)),
    _Service("GeeTest", ("geetest.com", "geevisit.com")),
    _Service("Aliyun captcha", ("captcha-open.aliyuncs.com", "captcha.aliyuncs.com")),
    _Service(
        "Aliyun captcha", ("aliyun.com", "alicdn.com", "taobao.com", "tmall.com"), r"nocaptcha|/nc/|/sd/nch5|punish"
    ),
    _Service("Tencent captcha", ("captcha.qq.com", "captcha.qcloud.com", "captcha.gtimg.com")),
    _Service("Arkose captcha", ("arkoselabs.com", "funcaptcha.com")),
    _Service("NetEase captcha", ("dun.163.com", "dun.163yun.com"), r"captcha|/api/v\d/get"),
)
# Any host: Cloudflare's challenge pages and Google's "unusual traffic" page by their paths.
_CHALLENGE_PATHS = (
    ("Cloudflare challenge", re.compile(r"^/cdn-cgi/challenge-platform/")),
    # reCAPTCHA's widget frames by their path, wherever they are served from (a site's own
    # proxy of recaptcha.net, a mirror); "size=invisible" is skipped below as for Google's.
    ("reCAPTCHA", re.compile(r"^/recaptcha/(api2|enterprise)/(anchor|bframe)")),
    ("Taobao slider check", re.compile(r"/_+tmd_+/punish")),
    ("Google unusual-traffic check", re.compile(r"^/sorry/(index)?")),
)
_CAPTCHA_HOST_WORD = re.compile(r"(^|[.-])captcha([.-]|$)")


def _on(host: str, base: str) -> bool:
    return host == base or host.endswith("." + base)


def captcha_service(url: str) -> str | None:
    """The name of the verification service `url` belongs to, or None."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if not host:
        return None
    path = parts.path or "/"
    query = parts.query.lower()
    for service in _SERVICES:
        if any(_on(host, h) for h in service.hosts) and (not service.path or re.search(service.path, path)):
            # An invisible reCAPTCHA (v3, "size=invisible") scores quietly on ordinary pages.
            if service.name == "reCAPTCHA" and "size=invisible" in query:
                return None
            return service.name
    for name, pattern in _CHALLENGE_PATHS:
        if not pattern.search(path):
            continue
        if name == "Google unusual-traffic check" and not _on(host, "google.com"):
            continue
        if name == "reCAPTCHA" and "size=invisible" in query:
            continue
        return name
    if _CAPTCHA_HOST_WORD.search(host):
        return "captcha service"
    return None


# ---------------------------------------------------------------- page words

# A box or a field of a challenge form, by its accessible name.
_CHALLENGE_CONTROLS = re.compile(
    r"i'?m not a robot|i am not a robot|verify (that )?you are (a )?human|verify you are human"
    r"|我不是机器人|请完成安全验证|拖动滑块|向右滑动|滑动验证|按住滑块|slide to verify|drag the slider"
    r"|enter the (characters|text|letters|code) (you see|shown|in the (image|picture))"
    r"|type the (characters|text) (you see|in the image)|图片验证码|输入图中|点击完成验证|请依次点击",
    re.IGNORECASE,
)
_CAPTCHA_FIELD = re.compile(r"captcha|验证码|校验码", re.IGNORECASE)
_NOT_CAPTCHA_FIELD = re.compile(r"短信|手机|sms|text message|email|邮箱|动态码|one-time|otp", re.IGNORECASE)

_BLOCK_PHRASES = (
    ("访问异常", re.compile(r"访问异常|访问受限|访问被拒绝|访问被限制")),
    ("环境异常", re.compile(r"环境异常|网络环境存在风险")),
    ("操作过于频繁", re.compile(r"(操作|访问|请求)(过于|太)频繁")),
    ("unusual traffic", re.compile(r"unusual traffic|automated (queries|requests)|suspicious activity", re.I)),
    ("blocked for security", re.compile(r"you have been blocked|your (ip|request) (has been|was) blocked", re.I)),
)
_SECURITY_TITLE = re.compile(
    r"security check|security verification|安全提示|安全验证|安全检查|安全中心|人机验证|attention required|access denied",
    re.IGNORECASE,
)
_SECURITY_WORDS = re.compile(r"异常|验证|verify|verification|robot|automated|suspicious|unusual|blocked|拦截", re.I)
_CLOUDFLARE_WAIT = re.compile(r"^just a moment\.*$|^请稍候…*$|^checking your browser", re.IGNORECASE)
_ACCESS_DENIED = re.compile(r"access denied|forbidden|拒绝访问|禁止访问", re.IGNORECASE)
_RATE_WORDS = re.compile(r"too many requests|rate limit|try again later|请稍后再试|请求过多", re.IGNORECASE)


def _weight(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text.strip())


def _tree_text(read: PageRead) -> Iterator[str]:
    for node in read.tree.nodes():
        for value in (node.safe_text, node.content_desc, node.hint):
            if value:
                yield value


def _page_text(read: PageRead, main_text: str) -> str:
    if main_text.strip():
        return main_text
    seen: list[str] = []
    for value in _tree_text(read):
        if not seen or seen[-1] != value:
            seen.append(value)
    return " ".join(seen)


def _challenge_form(read: PageRead) -> str | None:
    for node in read.tree.nodes():
        name = " ".join(v for v in (node.safe_text, node.content_desc, node.hint) if v)
        if not name:
            continue
        hit = _CHALLENGE_CONTROLS.search(name)
        if hit:
            return f'a challenge control ("{hit.group(0).lower()}")'
        if node.editable and _CAPTCHA_FIELD.search(name) and not _NOT_CAPTCHA_FIELD.search(name):
            return "a field for a captcha code"
    return None


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    if not headers:
        return None
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def recognise(
    read: PageRead,
    main_text: str = "",
    *,
    headers: Mapping[str, str] | None = None,
) -> Barrier | None:
    """The barrier this page puts up, or None for an ordinary page.

    `main_text` is the page's main text when the caller has it (else the tree's names are
    read); `headers` are the main document's response headers when known (for Retry-After)."""
    state = read.state
    status = state.status
    text = _page_text(read, main_text)
    short = _weight(text) <= SHORT_PAGE_CHARS
    title = state.title.strip()

    if status == 429:
        return Barrier("rate_limited", "HTTP 429 Too Many Requests")
    if status == 503:
        retry = _header(headers, "retry-after")
        if retry is not None:
            return Barrier("rate_limited", f"HTTP 503 with Retry-After {retry.strip()[:20]}")
        if short and _RATE_WORDS.search(text):
            return Barrier("rate_limited", "HTTP 503 saying to try again later")

    service = captcha_service(state.url)
    if service:
        return Barrier("captcha", f"the page is a {service} check")
    for frame in read.frames:
        service = captcha_service(frame)
        if service:
            return Barrier("captcha", f"a {service} frame")
    waiting = _CLOUDFLARE_WAIT.search(title)
    if waiting and short:
        return Barrier("captcha", f'a browser check page (title "{waiting.group(0)}")')
    if short:
        form = _challenge_form(read)
        if form:
            return Barrier("captcha", form)

    if not short:
        return None
    for label, pattern in _BLOCK_PHRASES:
        if pattern.search(text) or pattern.search(title):
            return Barrier("access_blocked", f'a short page saying "{label}"')
    title_hit = _SECURITY_TITLE.search(title)
    if title_hit and (_SECURITY_WORDS.search(text) or _SECURITY_WORDS.search(title)):
        return Barrier("access_blocked", f'a "{title_hit.group(0)}" page asking to verify')
    if status == 403 and (_ACCESS_DENIED.search(title) or _ACCESS_DENIED.search(text)):
        return Barrier("access_blocked", "HTTP 403 Access denied")
    if status == 403 and _RATE_WORDS.search(text):
        return Barrier("rate_limited", "HTTP 403 saying to try again later")
    if re.search(r"too many requests", title, re.IGNORECASE):
        return Barrier("rate_limited", "a page titled Too Many Requests")
    return None
