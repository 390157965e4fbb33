"""What can go wrong talking to a model, each with a sentence for the user."""

from __future__ import annotations

import enum

from mika.config.language import ui_language
from mika.config.secrets import scrub


class ModelErrorKind(enum.Enum):
    AUTH = "auth"
    RATE_LIMITED = "rate_limited"
    OVERLOADED = "overloaded"
    SERVER = "server"
    CONTEXT_OVERFLOW = "context_overflow"
    MODEL_NOT_FOUND = "model_not_found"
    MODEL_UNAVAILABLE = "model_unavailable"
    TOOLS_UNSUPPORTED = "tools_unsupported"
    BAD_REQUEST = "bad_request"
    NETWORK = "network"
    STREAM_INCOMPLETE = "stream_incomplete"
    # Bytes arrived but are not the provider's API (not UTF-8, not JSON, an HTML page, a
    # JSON body of the wrong shape): usually a wrong base URL, a proxy, or a captive portal.
    BAD_REPLY = "bad_reply"
    # The server took the connection and then sent nothing for `read_timeout` seconds.
    TIMEOUT = "timeout"
    # The probe's own overall limit ran out (the server may be fine, just slow to finish).
    PROBE_TIMEOUT = "probe_timeout"
    # A model script (`--model script:PATH`, a task's reference solution) does not fit
    # the run: a `pick` names an element the latest listing does not have, or the
    # script has no reply left.
    SCRIPT_MISMATCH = "script_mismatch"
    # A sign-in provider (ChatGPT) whose sign-in is over: never signed in, signed out, or
    # its refresh token revoked or spent. Only signing in again helps.
    SIGNED_OUT = "signed_out"
    # The ChatGPT plan's usage limit is reached (usage_limit, HTTP 429): not retried, it
    # lasts hours, not seconds.
    PLAN_LIMIT = "plan_limit"
    # The ChatGPT account cannot be used this way (not_eligible, HTTP 403).
    PLAN_NOT_ELIGIBLE = "plan_not_eligible"


_SENTENCES = {
    ModelErrorKind.AUTH: "The provider rejected the API key. Check the key in your config.",
    ModelErrorKind.RATE_LIMITED: "The provider is rate limiting requests. Wait a moment and try again.",
    ModelErrorKind.OVERLOADED: "The provider is overloaded right now. Try again shortly.",
    ModelErrorKind.SERVER: "The provider had a server error. Try again shortly.",
    ModelErrorKind.CONTEXT_OVERFLOW: "The conversation is longer than the model's context window.",
    ModelErrorKind.MODEL_NOT_FOUND: "The provider does not know this model. Check the model name.",
    ModelErrorKind.MODEL_UNAVAILABLE: "This model is not available to your account or plan.",
    ModelErrorKind.TOOLS_UNSUPPORTED: "This model does not support tool calls; Mika needs a model that does.",
    ModelErrorKind.BAD_REQUEST: "The provider rejected the request as malformed.",
    ModelErrorKind.NETWORK: "Could not reach the provider {provider}. Check your network connection and its base URL.",
    ModelErrorKind.STREAM_INCOMPLETE: "The model's reply from the provider {provider} was cut off before it finished.",
    ModelErrorKind.BAD_REPLY: "The provider {provider} sent a reply Mika cannot read. Check its base URL and API kind in your config.",
    ModelErrorKind.TIMEOUT: "The request to the provider {provider} timed out: the server was reachable but did not answer in time. Try again, or raise its timeout in your config.",
    ModelErrorKind.PROBE_TIMEOUT: "The probe took longer than {seconds} s without a complete answer from the provider {provider}. Try a faster model or endpoint, or allow more time with --timeout.",
    ModelErrorKind.SCRIPT_MISMATCH: "The model script does not fit this run.",
    ModelErrorKind.SIGNED_OUT: "You are signed out of ChatGPT (the sign-in ended or was revoked). Sign in again: mika login chatgpt",
    ModelErrorKind.PLAN_LIMIT: "Your ChatGPT plan's usage limit is reached; it is not retried. See chatgpt.com/settings/usage for when it resets.",
    ModelErrorKind.PLAN_NOT_ELIGIBLE: "This ChatGPT account cannot be used this way (a Plus or Pro plan is needed). See chatgpt.com/settings/usage.",
}

_SENTENCES_ZH = {
    ModelErrorKind.AUTH: "服务商拒绝了 API Key，请检查配置里的 Key。",
    ModelErrorKind.RATE_LIMITED: "服务商正在限制请求频率，请稍等再试。",
    ModelErrorKind.OVERLOADED: "服务商现在负载过高，请稍后再试。",
    ModelErrorKind.SERVER: "服务商出现服务器错误，请稍后再试。",
    ModelErrorKind.CONTEXT_OVERFLOW: "对话内容超出了模型的上下文长度。",
    ModelErrorKind.MODEL_NOT_FOUND: "服务商不认识这个模型，请检查模型名。",
    ModelErrorKind.MODEL_UNAVAILABLE: "你的账号或套餐用不了这个模型。",
    ModelErrorKind.TOOLS_UNSUPPORTED: "这个模型不支持工具调用；Mika 需要会调用工具的模型。",
    ModelErrorKind.BAD_REQUEST: "服务商认为请求格式不对，拒绝了它。",
    ModelErrorKind.NETWORK: "连不上服务商 {provider}，请检查网络和它的 base URL。",
    ModelErrorKind.STREAM_INCOMPLETE: "服务商 {provider} 的回复在完成前被截断了。",
    ModelErrorKind.BAD_REPLY: "服务商 {provider} 返回了 Mika 读不懂的回复，请检查配置里它的 base URL 和接口类型。",
    ModelErrorKind.TIMEOUT: "请求服务商 {provider} 超时：连得上，但没有按时回复。请重试，或在配置里调大它的超时。",
    ModelErrorKind.PROBE_TIMEOUT: "测试超过了 {seconds} 秒，服务商 {provider} 仍没有给出完整回复。请换更快的模型或接入点，或用 --timeout 给它更多时间。",
    ModelErrorKind.SCRIPT_MISMATCH: "模型脚本和这次运行对不上。",
    ModelErrorKind.SIGNED_OUT: "ChatGPT 登录已失效（登录过期或被注销），请重新登录：mika login chatgpt",
    ModelErrorKind.PLAN_LIMIT: "ChatGPT 套餐的用量已到上限，不再重试。何时恢复见 chatgpt.com/settings/usage。",
    ModelErrorKind.PLAN_NOT_ELIGIBLE: "这个 ChatGPT 账号不能这样用（需要 Plus 或 Pro 套餐）。见 chatgpt.com/settings/usage。",
}

RETRYABLE = frozenset(
    {
        ModelErrorKind.RATE_LIMITED,
        ModelErrorKind.OVERLOADED,
        ModelErrorKind.SERVER,
        ModelErrorKind.NETWORK,
        ModelErrorKind.STREAM_INCOMPLETE,
        ModelErrorKind.TIMEOUT,
    }
)


class ModelError(Exception):
    def __init__(
        self,
        kind: ModelErrorKind,
        detail: str = "",
        *,
        status: int | None = None,
        retry_after: float | None = None,
        provider: str = "",
        seconds: float | None = None,
    ) -> None:
        # A server that echoes the key it rejected must not put it in any message we show.
        detail = scrub(detail)
        super().__init__(detail or _sentence(_SENTENCES, kind, provider, seconds))
        self.kind = kind
        # The server's own words, shown after the sentence so the user can act on it.
        self.detail = detail
        self.status = status
        self.retry_after = retry_after
        self.provider = provider
        # The limit that ran out, for the sentences that name it.
        self.seconds = seconds

    @property
    def sentence(self) -> str:
        return _sentence(_SENTENCES, self.kind, self.provider, self.seconds)

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    def user_message(self, lang: str | None = None) -> str:
        """The sentence in the UI language (`lang`, else `mika.config.language.ui_language()`), then
        the server's own words, so the user can act on them."""
        table = _SENTENCES_ZH if _language(lang) == "zh" else _SENTENCES
        sentence = _sentence(table, self.kind, self.provider, self.seconds)
        if self.detail and self.detail != self.sentence:
            return f"{sentence} ({self.detail})"
        return sentence


def _sentence(
    table: dict[ModelErrorKind, str], kind: ModelErrorKind, provider: str, seconds: float | None = None
) -> str:
    # Only some sentences name the provider; for them an unknown one reads as "the provider".
    text = table[kind]
    if seconds is not None:
        text = text.replace("{seconds}", f"{seconds:g}")
    else:
        text = text.replace(" {seconds} s", " its time limit").replace(" {seconds} 秒", "时间上限")
    if "{provider}" not in text:
        return text
    return text.replace(" {provider}", f" {provider}" if provider else "").replace("{provider}", provider)


def _language(lang: str | None) -> str:
    return lang or ui_language()
