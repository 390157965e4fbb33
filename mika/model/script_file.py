"""A scripted model read from a JSON file: offline demos, CI and headless tests.

The file is a list of replies; each is a string (a plain answer) or an object
{"text": "...", "tool_calls": [{"name": "...", "arguments": {...}}], "delay": 0.5}.
Select it with `--model script:PATH` or a provider `kind = "scripted"` with `script = PATH`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mika.config.errors import ConfigError
from mika.model.testing import Reply, ScriptedModel


def load_script(path: Path | str) -> ScriptedModel:
    path = Path(path).expanduser()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(path, "", "an existing model script (a JSON list of replies)") from None
    except ValueError as exc:
        raise ConfigError(path, "", f"valid JSON ({exc})") from None
    if not isinstance(data, list) or not data:
        raise ConfigError(path, "", "a non-empty JSON list of replies", type(data).__name__)
    replies = [_reply(item, path, i) for i, item in enumerate(data)]
    return ScriptedModel(replies, provider="script", name=path.name)


def _reply(item: Any, path: Path, index: int) -> Reply:
    if isinstance(item, str):
        return Reply(text=item)
    if not isinstance(item, dict):
        raise ConfigError(path, f"[{index}]", "a string or an object with text / tool_calls", item)
    calls = []
    for c in item.get("tool_calls", []):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise ConfigError(path, f"[{index}].tool_calls", 'objects like {"name": "...", "arguments": {...}}', c)
        calls.append((c["name"], dict(c.get("arguments", {}))))
    return Reply(text=str(item.get("text", "")), tool_calls=tuple(calls), delay=float(item.get("delay", 0.0)))
