"""The words `mika usage` shows, in English and Chinese (MIKA_LANGUAGE, else the locale)."""

from __future__ import annotations

import os

TEXT = {
    "en": {
        "title": "Token usage — {label} ({first} .. {last}, {tz})",
        "total": "Total: {tokens} tokens · input {input} (cached {cached}) · output {output} · {calls} calls",
        "unreported": "{n} calls reported no usage (counted, not estimated).",
        "when": "when", "input": "input", "output": "output", "cached": "cached", "calls": "calls",
        "by_provider": "By provider", "by_model": "By model",
        "empty": "No model calls in this range.",
        "footer": "Numbers are as the providers reported them.",
    },
    "zh": {
        "title": "Token 用量 — {label}（{first} .. {last}，{tz}）",
        "total": "合计：{tokens} token · 输入 {input}（缓存命中 {cached}）· 输出 {output} · 调用 {calls} 次",
        "unreported": "有 {n} 次调用没有报用量（只记次数，不估算）。",
        "when": "时间", "input": "输入", "output": "输出", "cached": "缓存命中", "calls": "调用",
        "by_provider": "按服务商", "by_model": "按模型",
        "empty": "这段时间没有模型调用。",
        "footer": "数字以服务商返回的为准。",
    },
}


_configured: str | None = None


def set_language(lang: str | None) -> None:
    """The config's `[general] language` (auto, en, zh), applied by the commands."""
    global _configured
    _configured = lang if lang in ("en", "zh") else None


def language() -> str:
    """MIKA_LANGUAGE (en/zh) wins, then the config, then the locale, as for the rest of Mika."""
    chosen = (os.environ.get("MIKA_LANGUAGE") or "").lower()
    if chosen in ("en", "zh"):
        return chosen
    if _configured:
        return _configured
    value = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG") or ""
    return "zh" if value.lower().startswith("zh") else "en"


def t(key: str, **kw: object) -> str:
    return TEXT[language()][key].format(**kw)
