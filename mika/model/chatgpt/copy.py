"""The words the ChatGPT sign-in says, in English and Chinese (`mika.config.language` decides)."""

from __future__ import annotations

from mika.config.language import ui_language

TEXT = {
    "en": {
        # what went wrong while signing in (LoginError kinds)
        "state_mismatch": "The sign-in answer does not belong to this sign-in (its state differs), so it was "
        "refused. Start again: mika login chatgpt",
        "denied": "The sign-in was not allowed at OpenAI ({error}). Nothing was stored.",
        "missing_code": "The sign-in answer carried no authorization code. Start again: mika login chatgpt",
        "token_refused": "OpenAI refused to finish the sign-in (HTTP {status}: {words}). Nothing was stored; "
        "start again: mika login chatgpt",
        "token_failed": "OpenAI could not finish the sign-in right now (HTTP {status}). Nothing was stored; "
        "try again shortly.",
        "network": "Could not reach OpenAI's sign-in service at {url} ({why}). Check your network.",
        "bad_reply": "OpenAI's sign-in service sent an answer Mika cannot read ({why}).",
        "no_account": "This sign-in carries no ChatGPT account (no chatgpt_account_id); a ChatGPT Plus or Pro "
        "plan is needed.",
        "timeout": "No sign-in answer came within {seconds:g} s. Start again: mika login chatgpt",
        "port_busy": "Port {port} on 127.0.0.1 is in use (another sign-in, or Codex CLI?), so the browser's "
        "answer cannot be received. Close that, or use: mika login chatgpt --no-browser",
        "bad_paste": "That is neither the address the browser ended on nor an authorization code. Paste the "
        "whole address from the browser's address bar (it starts with {redirect}).",
        "no_browser": "No browser could be opened. Open this address yourself, or use --no-browser:",
        # the login command and screen
        "open_browser": "Opening your browser to sign in with ChatGPT. If it does not open, go to:",
        "waiting": "Waiting for the browser (Ctrl+C to stop)…",
        "paste_url": "Open this address in a browser on any machine and sign in:",
        "paste_prompt": "Then paste the address the browser ends on (it starts with {redirect}, even if the page "
        "does not load), or just the code:",
        "signed_in": "Signed in with ChatGPT as {who}. Usage counts against your ChatGPT plan; Mika charges "
        "nothing. Tokens are stored in {file} (mode 0600).",
        "provider_added": "Added provider chatgpt to {file}.",
        "main_set": "main = {value} (saved in {file})",
        "next_use": "Next: mika models use main chatgpt/MODEL to pick another model.",
        "status_in": "Signed in with ChatGPT as {who} (account {account}, plan {plan}).",
        "status_expiry": "Access token valid until {when}; it is refreshed automatically.",
        "status_expired": "Access token expired at {when}; it is refreshed at the next call.",
        "status_file": "Stored in {file}.",
        "status_out": "Not signed in with ChatGPT. Sign in: mika login chatgpt",
        "logged_out": "Signed out of ChatGPT: OpenAI revoked the sign-in and the tokens were deleted here.",
        "logged_out_local": "Signed out of ChatGPT here: the tokens were deleted. OpenAI could not be told ({why}); "
        "the sign-in stops working when its tokens expire.",
        "not_signed_in": "Not signed in with ChatGPT; nothing to sign out of.",
        "page_ok": "Signed in to Mika with ChatGPT. You can close this tab and go back to Mika.",
        "page_failed": "Mika could not finish signing in.",
        "page_used": "This sign-in was already answered. Go back to Mika.",
        "page_not_found": "Not found.",
        "unknown": "unknown",
    },
    "zh": {
        "state_mismatch": "登录回应不属于这次登录（state 对不上），已拒绝。请重新开始：mika login chatgpt",
        "denied": "OpenAI 没有允许这次登录（{error}），什么都没存。",
        "missing_code": "登录回应里没有授权码。请重新开始：mika login chatgpt",
        "token_refused": "OpenAI 拒绝完成登录（HTTP {status}：{words}），什么都没存；请重新开始：mika login chatgpt",
        "token_failed": "OpenAI 现在没法完成登录（HTTP {status}），什么都没存；请稍后再试。",
        "network": "连不上 OpenAI 的登录服务 {url}（{why}），请检查网络。",
        "bad_reply": "OpenAI 的登录服务返回了 Mika 读不懂的内容（{why}）。",
        "no_account": "这次登录没有带 ChatGPT 账号（没有 chatgpt_account_id）；需要 ChatGPT Plus 或 Pro 套餐。",
        "timeout": "{seconds:g} 秒内没有收到登录回应。请重新开始：mika login chatgpt",
        "port_busy": "127.0.0.1 的端口 {port} 被占用（另一次登录，或 Codex CLI？），收不到浏览器的回应。"
        "请先关掉它，或用：mika login chatgpt --no-browser",
        "bad_paste": "这既不是浏览器最后停在的地址，也不是授权码。请从浏览器地址栏复制完整地址（以 {redirect} 开头）。",
        "no_browser": "打不开浏览器。请自己打开下面的地址，或用 --no-browser：",
        "open_browser": "正在打开浏览器，用 ChatGPT 登录。如果没有打开，请访问：",
        "waiting": "等待浏览器完成登录（Ctrl+C 停止）…",
        "paste_url": "在任意一台电脑的浏览器里打开这个地址并登录：",
        "paste_prompt": "然后把浏览器最后停在的地址粘贴到这里（以 {redirect} 开头，页面打不开也没关系），或者只粘贴授权码：",
        "signed_in": "已用 ChatGPT 登录：{who}。用量走你的 ChatGPT 套餐，Mika 不另收费。令牌存在 {file}（权限 0600）。",
        "provider_added": "已把服务商 chatgpt 加到 {file}。",
        "main_set": "main = {value}（已存到 {file}）",
        "next_use": "下一步：要换模型，用 mika models use main chatgpt/模型名。",
        "status_in": "已用 ChatGPT 登录：{who}（账号 {account}，套餐 {plan}）。",
        "status_expiry": "访问令牌有效到 {when}，会自动换新。",
        "status_expired": "访问令牌已在 {when} 过期，下次调用时换新。",
        "status_file": "存在 {file}。",
        "status_out": "还没有用 ChatGPT 登录。登录：mika login chatgpt",
        "logged_out": "已退出 ChatGPT 登录：OpenAI 已注销这次登录，本机的令牌已删除。",
        "logged_out_local": "已在本机退出 ChatGPT 登录：令牌已删除。没能通知 OpenAI（{why}），这次登录会在令牌过期后失效。",
        "not_signed_in": "没有用 ChatGPT 登录，无需退出。",
        "page_ok": "已用 ChatGPT 登录 Mika。可以关掉这个标签页，回到 Mika。",
        "page_failed": "Mika 没能完成登录。",
        "page_used": "这次登录已经回应过了，请回到 Mika。",
        "page_not_found": "找不到。",
        "unknown": "未知",
    },
}


def t(key: str, lang: str | None = None, **kw: object) -> str:
    table = TEXT.get(lang or ui_language(), TEXT["en"])
    return table.get(key, TEXT["en"][key]).format(**kw)
