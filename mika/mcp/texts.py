"""What `mika mcp` says to the person who started it (stderr lines) and to the client's
user (the payment question), in English and Chinese. Model-facing texts (the tools'
descriptions) come from prompts/ through the tool declarations."""

from __future__ import annotations

from mika.config.language import ui_language

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "serving_stdio": "mika mcp: serving MCP over stdio (phone {serial}, model {model}).",
        "serving_http": "mika mcp: serving MCP over streamable HTTP at http://{host}:{port}/mcp (phone {serial}, model {model}).",
        "token": "mika mcp: {host} is not a loopback address, so every request needs this bearer token (shown once): Authorization: Bearer {token}",
        "stopped": "mika mcp: stopped.",
        "bad_http": "--http wants HOST:PORT (e.g. 127.0.0.1:8765), not {value!r}.",
        "port_busy": "--http {host}:{port}: cannot listen there ({error}). Pick another port.",
        "pay_question": "Mika wants to do a payment step on the phone: {shown}. Allow exactly this one step?",
        "pay_declined": "The user declined this payment step through the MCP client; it was not done.",
        "pay_unavailable": "This MCP client cannot ask its user (it offers no elicitation), so Mika refuses payment steps (approval_unavailable); nothing was paid. Do the payment step yourself on the phone.",
        "no_conversation": "There is no conversation {id!r}; leave conversation_id out to start a new one.",
        "no_run": "There is no run {id!r} in this Mika's records.",
        "no_phone": "No phone is open for this server ({problem}); start it with --device SERIAL or --device sim.",
        "unknown_resource": "Unknown resource {uri!r}; Mika offers mika://screen and mika://runs/{{id}}.",
        "session_goal": "MCP client's own phone calls",
    },
    "zh": {
        "serving_stdio": "mika mcp：通过 stdio 提供 MCP 服务（手机 {serial}，模型 {model}）。",
        "serving_http": "mika mcp：通过可流式 HTTP 在 http://{host}:{port}/mcp 提供 MCP 服务（手机 {serial}，模型 {model}）。",
        "token": "mika mcp：{host} 不是回环地址，每个请求都需要这个 bearer 令牌（只显示这一次）：Authorization: Bearer {token}",
        "stopped": "mika mcp：已停止。",
        "bad_http": "--http 需要 HOST:PORT（例如 127.0.0.1:8765），而不是 {value!r}。",
        "port_busy": "--http {host}:{port}：无法在那里监听（{error}）。请换一个端口。",
        "pay_question": "Mika 要在手机上执行一个付款步骤：{shown}。只允许这一步吗？",
        "pay_declined": "用户在 MCP 客户端里拒绝了这个付款步骤；没有执行。",
        "pay_unavailable": "这个 MCP 客户端无法询问它的用户（不支持 elicitation），所以 Mika 拒绝付款步骤（approval_unavailable）；没有付款。请你自己在手机上完成付款步骤。",
        "no_conversation": "没有对话 {id!r}；不填 conversation_id 就会新建一个。",
        "no_run": "这个 Mika 的记录里没有运行 {id!r}。",
        "no_phone": "这个服务没有打开手机（{problem}）；用 --device SERIAL 或 --device sim 启动。",
        "unknown_resource": "未知资源 {uri!r}；Mika 提供 mika://screen 和 mika://runs/{{id}}。",
        "session_goal": "MCP 客户端自己的手机操作",
    },
}


def t(key: str, **fields: object) -> str:
    table = TEXTS.get(ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)
