"""The words `mika usage` shows, in English and Chinese (the language `mika.config.language` decides)."""

from __future__ import annotations

from mika.config.language import ui_language

TEXT = {
    "en": {
        "title": "Token usage — {label} ({first} .. {last}, {tz})",
        "total": "Total: {tokens} tokens · input {input} (cached {cached}) · output {output} · {calls} calls",
        "unreported": "{n} calls reported no usage (counted, not estimated).",
        "when": "when",
        "input": "input",
        "output": "output",
        "cached": "cached",
        "calls": "calls",
        "by_provider": "By provider",
        "by_model": "By model",
        "empty": "No model calls in this range.",
        "footer": "Numbers are as the providers reported them.",
    },
    "zh": {
        "title": "Token 用量 — {label}（{first} .. {last}，{tz}）",
        "total": "合计：{tokens} token · 输入 {input}（缓存命中 {cached}）· 输出 {output} · 调用 {calls} 次",
        "unreported": "有 {n} 次调用没有报用量（只记次数，不估算）。",
        "when": "时间",
        "input": "输入",
        "output": "输出",
        "cached": "缓存命中",
        "calls": "调用",
        "by_provider": "按服务商",
        "by_model": "按模型",
        "empty": "这段时间没有模型调用。",
        "footer": "数字以服务商返回的为准。",
    },
}


def t(key: str, **kw: object) -> str:
    return TEXT[ui_language()][key].format(**kw)
