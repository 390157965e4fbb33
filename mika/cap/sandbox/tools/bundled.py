"""run_bundled_script: a script shipped beside a SKILL.md or an APP.md/SITE.md, run in the
sandbox (seed §6: 运行知识、技能自带的脚本).

The script's folder (the skill's or the knowledge entry's) is bound read-only at
/opt/mika/bundle; the script runs there with the workspace as its working directory, under
the same limits and guard as run_command. `.py` runs with python3, `.sh` with sh, anything
else must be executable. The script must be a plain file inside that folder (no `..`, no
link out of it).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from mika.cap.sandbox.output import command_outcome
from mika.cap.sandbox.port import TIMEOUT_DEFAULT, TIMEOUT_MAX, Bind
from mika.cap.sandbox.tools.base import SandboxTool, int_arg, text_arg
from mika.knowledge.catalog import KnowledgeCatalog, SkillCatalog
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.tool.errors import BadArguments

INSIDE = "/opt/mika/bundle"
ARGS_MAX = 64
_RUNNERS = {".py": ("python3",), ".sh": ("/bin/sh",)}


class BundledScripts:
    """The folders bundled scripts come from: skills by name, knowledge entries by id."""

    def __init__(self, knowledge: KnowledgeCatalog | None, skills: SkillCatalog | None) -> None:
        self.knowledge, self.skills = knowledge, skills

    def folder(self, source: str) -> Path:
        kind, _, name = source.partition(":")
        if kind == "skill" and self.skills is not None and (skill := self.skills.get(name)) is not None:
            return skill.folder
        if kind in ("app", "site", "knowledge") and self.knowledge is not None:
            entry = self.knowledge.get(name)
            if entry is not None:
                return entry.path.parent
        raise BadArguments(
            f"no skill or knowledge entry {source!r}; give 'skill:<name>' or 'app:<id>' as skill_read "
            "or knowledge_read name it"
        )

    def script(self, source: str, script: str) -> tuple[Path, str]:
        """(the folder, the script's path relative to it), checked."""
        folder = Path(os.path.realpath(self.folder(source)))
        pure = PurePosixPath(script)
        if not script or "\0" in script or pure.is_absolute() or ".." in pure.parts:
            raise BadArguments(f"'script' must be a file's path inside {source}'s folder, like scripts/total.py")
        real = Path(os.path.realpath(folder / pure))
        if folder not in real.parents or not real.is_file():
            raise BadArguments(f"{source} has no script {script!r}")
        return folder, real.relative_to(folder).as_posix()


class RunBundledScript(SandboxTool):
    name = "run_bundled_script"
    risk = Risk.WRITE  # it runs in the workspace and may change it
    parameters = {
        "type": "object",
        "properties": {
            "source": {"type": "string", "description": "Whose script: 'skill:<name>' or 'app:<id>'."},
            "script": {"type": "string", "description": "Its path in that folder, like scripts/total.py."},
            "args": {"type": "array", "items": {"type": "string"}, "description": "Arguments for the script."},
            "timeout": {"type": "integer", "description": f"Seconds; default {TIMEOUT_DEFAULT:g}."},
        },
        "required": ["source", "script"],
    }

    def __init__(self, scripts: BundledScripts) -> None:
        self.scripts = scripts

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        source = text_arg(args, "source")
        script = text_arg(args, "script")
        extra = args.get("args") or []
        if not isinstance(extra, list) or len(extra) > ARGS_MAX or not all(isinstance(a, str) for a in extra):
            raise BadArguments(f"'args' must be a list of at most {ARGS_MAX} strings")
        timeout = float(int_arg(args, "timeout", int(TIMEOUT_DEFAULT), 1, int(TIMEOUT_MAX)))
        folder, rel = self.scripts.script(source, script)
        label = " ".join([f"{source}/{rel}", *extra])
        session = self.session(ctx)
        refused = session.guard.refusal(label)
        if refused is not None:
            return ToolOutcome.error(*refused)
        inside = f"{INSIDE}/{rel}"
        runner = _RUNNERS.get(PurePosixPath(rel).suffix, ())
        result = await session.run(
            [*runner, inside, *extra], ctx=ctx, timeout=timeout, extra_ro_binds=[Bind(folder, INSIDE)]
        )
        failures = session.guard.record(label, result)
        return command_outcome(
            label, result, session.guard, timeout=timeout, step=ctx.step, failures=failures, source="script"
        )
