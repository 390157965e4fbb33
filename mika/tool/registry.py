"""Which tools a run gets: filtered by the spec, then frozen for the whole run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mika.runtypes.spec import RunSpec
from mika.tool.declaration import AgentTool, Risk


class DuplicateTool(ValueError):
    pass


class ToolRegistry:
    def __init__(self, tools: Sequence[AgentTool]) -> None:
        by_name: dict[str, AgentTool] = {}
        for tool in tools:
            if tool.name in by_name:
                raise DuplicateTool(f"two tools are named {tool.name!r}")
            by_name[tool.name] = tool
        self._by_name = by_name
        self._order = tuple(tools)

    @staticmethod
    def for_run(tools: Iterable[AgentTool], spec: RunSpec) -> ToolRegistry:
        """Keep what this run may use: its capabilities; read tools only when read-only;
        nothing that needs a person (or makes schedules, edits the profile) when nobody
        is there to answer."""
        kept = []
        for tool in tools:
            if spec.capabilities and tool.capability not in spec.capabilities and tool.capability != "general":
                continue
            if spec.read_only and tool.risk is not Risk.READ and not tool.control:
                continue
            if not spec.provenance.can_ask and (tool.needs_user or not tool.unattended_ok):
                continue
            kept.append(tool)
        return ToolRegistry(kept)

    def get(self, name: str) -> AgentTool | None:
        return self._by_name.get(name)

    @property
    def tools(self) -> tuple[AgentTool, ...]:
        return self._order

    def names(self) -> list[str]:
        return [t.name for t in self._order]
