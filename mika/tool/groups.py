"""Tool groups fold until first use (seed §4 "工具分两层").

Always-on tools come first, then the groups in a fixed order. While a group is folded
only its entry tools are offered, with their short entry texts. Calling an `OPENS` entry
(or any member the model remembers) opens the group: from the next request on its full
definitions are offered. Opening a group changes the offered list only from that group
on, so the request prefix breaks at most once per group.

Groups may be open from the first request (`preload`): those the last turn used
(`RunSpec.preload_groups`) and those a capability judges the task's words to need for sure
(`preload(spec, knowledge)`, asked by TaskRun; the phone's: the task names an app or a phone
action). Then request 2 reuses request 1 whole instead of breaking at the unfold.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mika.model.messages import ToolSpec
from mika.tool.declaration import AgentTool, EntryKind

GROUP_ORDER: tuple[str, ...] = ("screens", "phone", "web", "sandbox")
# Groups that open along with another: tools for screens (hand_to_user, do_steps,
# view_past_screens) come with the first screen capability.
OPENS_WITH: dict[str, str] = {"phone": "screens", "web": "screens"}


class ToolGroups:
    def __init__(self, tools: Sequence[AgentTool], preload: Iterable[str] = ()) -> None:
        self._tools = list(tools)
        self.open: set[str] = set()
        self.opened_order: list[str] = []
        for group in preload:
            self.open_group(group)

    @property
    def groups(self) -> set[str]:
        return {t.group for t in self._tools if t.group}

    def open_group(self, group: str) -> list[str]:
        """Open `group` (and what opens with it); returns the groups newly opened."""
        newly: list[str] = []
        for g in (group, OPENS_WITH.get(group)):
            if g and g not in self.open and g in self.groups:
                self.open.add(g)
                self.opened_order.append(g)
                newly.append(g)
        return newly

    def on_call(self, tool: AgentTool) -> list[str]:
        """A call to `tool` was made; open its group unless it is an ALONE entry."""
        if tool.group is None or tool.entry is EntryKind.ALONE:
            return []
        return self.open_group(tool.group)

    def offered(self) -> list[tuple[AgentTool, bool]]:
        """(tool, folded) in the fixed order: always-on first, then groups by GROUP_ORDER."""
        out: list[tuple[AgentTool, bool]] = [(t, False) for t in self._tools if t.group is None]
        ordered = list(GROUP_ORDER) + sorted(self.groups - set(GROUP_ORDER))
        for g in ordered:
            members = [t for t in self._tools if t.group == g]
            if g in self.open:
                out.extend((t, False) for t in members)
            else:
                out.extend((t, True) for t in members if t.entry is not EntryKind.MEMBER)
        return out

    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(t.spec(folded) for t, folded in self.offered())
