"""The words `mika models` shows, in English and Chinese (the language `mika.config.language` decides)."""

from __future__ import annotations

from mika.config.language import ui_language

TEXT = {
    "en": {
        "presets_head": "{id:<14} {name:<28} {kind:<17} {url}",
        "list_head": "{provider} ({kind}, {url}): {n} models",
        "list_none": "{provider}: the provider listed no models.",
        "added": "Added provider {id} ({name}) to {file}.",
        "next_use": "Next: mika models use main {id}/MODEL   (see mika models list {id})",
        "key_hint": "The key is read from ${env}; export it before running Mika.",
        "used": "{role} = {value} (saved in {file})",
        "probe_ok": "OK: {provider}/{model} called get_time in {ms} ms (input {input}, output {output}, cached {cached}).",
        "probe_text": "No tool call: {provider}/{model} answered with text only: {text}",
        "probe_error": "Failed: {provider}/{model}: {message}",
        "probe_tried": "Tried: {models}",
        "cleartext": "Warning: {url} is plain http and not on this machine or your LAN; the key travels unencrypted.",
        "same_host": "Note: {url} belongs to the preset '{preset}'; `mika models add {preset}` fills it in for you.",
        "no_candidates": "No model to test: give one as {provider}/MODEL.",
        "sign_in_no_list": "name the model, e.g. {provider}/{model}",
        "not_found_hint": "Check the model name (see mika models list {provider}); for a custom provider the "
        "address or the protocol (kind) may also be wrong.",
    },
    "zh": {
        "presets_head": "{id:<14} {name:<28} {kind:<17} {url}",
        "list_head": "{provider}（{kind}，{url}）：{n} 个模型",
        "list_none": "{provider}：服务商没有列出模型。",
        "added": "已把服务商 {id}（{name}）加到 {file}。",
        "next_use": "下一步：mika models use main {id}/模型名   （见 mika models list {id}）",
        "key_hint": "Key 从环境变量 ${env} 读取，运行 Mika 前先 export。",
        "used": "{role} = {value}（已存到 {file}）",
        "probe_ok": "通过：{provider}/{model} 在 {ms} 毫秒内调用了 get_time（输入 {input}，输出 {output}，缓存命中 {cached}）。",
        "probe_text": "没有调用工具：{provider}/{model} 只回了话：{text}",
        "probe_error": "没通过：{provider}/{model}：{message}",
        "probe_tried": "试过：{models}",
        "cleartext": "提醒：{url} 是明文 http，又不在本机或局域网，Key 会不加密地传出去。",
        "same_host": "提示：{url} 是预设「{preset}」的地址，用 `mika models add {preset}` 会自动填好。",
        "no_candidates": "没有可测试的模型：请写成 {provider}/模型名。",
        "sign_in_no_list": "请直接写模型名，例如 {provider}/{model}",
        "not_found_hint": "检查模型名（见 mika models list {provider}）；自定义服务商也可能是地址或接口类型（kind）填错了。",
    },
}


def t(key: str, **kw: object) -> str:
    return TEXT[ui_language()][key].format(**kw)
