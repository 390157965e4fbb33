"""Provider presets: protocol, address, family tokens and declared headers, filled in for
the user; the model name and the key are theirs (seed §12 服务商预设)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlparse


@dataclass(frozen=True)
class Preset:
    id: str
    name: str
    kind: str  # openai-chat | openai-responses | anthropic | gemini
    base_url: str
    # Words in a model name that mark this provider's own models (probe tries them first).
    family_tokens: tuple[str, ...] = ()
    # Header carrying the per-conversation session id, when the provider wants one.
    session_header: str | None = None
    # Runs on the user's own machine: local default port, key optional.
    self_hosted: bool = False
    key_required: bool = True
    # The model listing works without a key (OpenCode Go).
    list_needs_key: bool = True
    region: str = "intl"  # cn | intl | local | custom
    key_env: str = ""  # suggested environment variable for the key
    note: str = ""


PRESETS: tuple[Preset, ...] = (
    Preset(
        "deepseek",
        "DeepSeek",
        "openai-chat",
        "https://api.deepseek.com/v1",
        ("deepseek",),
        region="cn",
        key_env="DEEPSEEK_API_KEY",
    ),
    Preset(
        "qwen",
        "Qwen (DashScope)",
        "openai-chat",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        ("qwen", "qwq"),
        region="cn",
        key_env="DASHSCOPE_API_KEY",
    ),
    Preset(
        "kimi",
        "Kimi (Moonshot)",
        "openai-chat",
        "https://api.moonshot.cn/v1",
        ("kimi", "moonshot"),
        region="cn",
        key_env="MOONSHOT_API_KEY",
    ),
    Preset(
        "zhipu",
        "Zhipu GLM",
        "openai-chat",
        "https://open.bigmodel.cn/api/paas/v4",
        ("glm",),
        region="cn",
        key_env="ZHIPU_API_KEY",
    ),
    Preset(
        "siliconflow",
        "SiliconFlow",
        "openai-chat",
        "https://api.siliconflow.cn/v1",
        (),
        region="cn",
        key_env="SILICONFLOW_API_KEY",
    ),
    Preset(
        "volcano-ark",
        "Volcano Ark (Doubao)",
        "openai-chat",
        "https://ark.cn-beijing.volces.com/api/v3",
        ("doubao", "ep-"),
        region="cn",
        key_env="ARK_API_KEY",
        note="The model name may be a model id or an endpoint id (ep-…).",
    ),
    Preset(
        "minimax",
        "MiniMax",
        "openai-chat",
        "https://api.minimax.cn/v1",
        ("minimax", "abab"),
        region="cn",
        key_env="MINIMAX_API_KEY",
    ),
    Preset(
        "stepfun",
        "StepFun",
        "openai-chat",
        "https://api.stepfun.com/v1",
        ("step",),
        region="cn",
        key_env="STEPFUN_API_KEY",
    ),
    Preset(
        "hunyuan",
        "Tencent Hunyuan (TokenHub)",
        "openai-chat",
        "https://tokenhub.tencentmaas.com/v1",
        ("hunyuan",),
        region="cn",
        key_env="HUNYUAN_API_KEY",
    ),
    Preset(
        "qianfan",
        "Baidu Qianfan",
        "openai-chat",
        "https://qianfan.baidubce.com/v2",
        ("ernie",),
        region="cn",
        key_env="QIANFAN_API_KEY",
    ),
    Preset("openrouter", "OpenRouter", "openai-chat", "https://openrouter.ai/api/v1", (), key_env="OPENROUTER_API_KEY"),
    Preset(
        "opencode-go",
        "OpenCode Go",
        "openai-chat",
        "https://opencode.ai/zen/go/v1",
        (),
        session_header="x-opencode-session",
        list_needs_key=False,
        key_env="OPENCODE_API_KEY",
        note="Each listed model names its own protocol and address; chat-completions is the fallback.",
    ),
    Preset(
        "anthropic", "Anthropic", "anthropic", "https://api.anthropic.com", ("claude",), key_env="ANTHROPIC_API_KEY"
    ),
    Preset(
        "gemini",
        "Gemini",
        "gemini",
        "https://generativelanguage.googleapis.com/v1beta",
        ("gemini",),
        key_env="GEMINI_API_KEY",
    ),
    # Official docs: new flagship models take tools only through Responses.
    Preset(
        "openai",
        "OpenAI",
        "openai-responses",
        "https://api.openai.com/v1",
        ("gpt", "o3", "o4"),
        key_env="OPENAI_API_KEY",
    ),
    Preset("xai", "xAI", "openai-chat", "https://api.x.ai/v1", ("grok",), key_env="XAI_API_KEY"),
    Preset(
        "mistral",
        "Mistral",
        "openai-chat",
        "https://api.mistral.ai/v1",
        ("mistral", "magistral", "devstral"),
        key_env="MISTRAL_API_KEY",
    ),
    Preset("groq", "Groq", "openai-chat", "https://api.groq.com/openai/v1", (), key_env="GROQ_API_KEY"),
    Preset(
        "ollama",
        "Ollama",
        "openai-chat",
        "http://127.0.0.1:11434/v1",
        (),
        self_hosted=True,
        key_required=False,
        list_needs_key=False,
        region="local",
    ),
    Preset(
        "lmstudio",
        "LM Studio",
        "openai-chat",
        "http://127.0.0.1:1234/v1",
        (),
        self_hosted=True,
        key_required=False,
        list_needs_key=False,
        region="local",
    ),
    # Custom: the user picks the protocol and address; only OpenAI-compatible may go keyless.
    Preset("custom", "Custom", "openai-chat", "", (), key_required=False, region="custom"),
)

_BY_ID = {p.id: p for p in PRESETS}


def preset(preset_id: str) -> Preset | None:
    return _BY_ID.get(preset_id)


def preset_ids() -> tuple[str, ...]:
    return tuple(_BY_ID)


def for_host(base_url: str) -> Preset | None:
    """A preset whose address has the same host (self-hosted ones excluded), so a custom
    provider pointed at a known service can be told to use that preset."""
    host = (urlparse(base_url).hostname or "").lower()
    if not host:
        return None
    for p in PRESETS:
        if p.self_hosted or not p.base_url:
            continue
        if (urlparse(p.base_url).hostname or "").lower() == host:
            return p
    return None
