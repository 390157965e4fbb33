"""Tool groups fold until first use (seed §4 "工具分两层").

Always-on tools come first, then the groups in a fixed order. While a group is folded
only its entry tools are offered, with their short entry texts. Calling an `OPENS` entry
(or any member the model remembers) opens the group: from the next request on its full
definitions are offered. Opening a group changes the offered list only from that group
on, so the request prefix breaks at most once per group.

A tier (`TIER_OF`) is a second fold inside an open group: the phone's less common tools
(`phone_more`) stay out of the phone's full text and are offered, once the phone is
open, as one `INDEX` entry that names each of them with its short text; the general
tools most runs never call (`more`: schedules, child runs, older turns) likewise, from
the first request. Calling the index (or a member by name) opens the tier. A run that
reads a long chat pays one model turn to open it; every other phone run saves those
definitions in every request (issue 16).

Groups may be open from the first request (`preload`): those the last turn used
(`RunSpec.preload_groups`) and those a capability judges the task's words to need for sure
(`preload(spec, knowledge)`, asked by TaskRun; the phone's: the task names an app or a phone
action). Then request 2 reuses request 1 whole instead of breaking at the unfold.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mika.model.messages import ToolSpec
from mika.tool.declaration import AgentTool, EntryKind

# The general tier (`more`) comes last: opening it changes only the end of the list.
GROUP_ORDER: tuple[str, ...] = ("screens", "phone", "phone_more", "web", "sandbox", "more")
# Groups that open along with another: tools for screens (hand_to_user, do_steps,
# view_past_screens) come with the first screen capability; a tier brings its group.
OPENS_WITH: dict[str, str] = {"phone": "screens", "web": "screens", "phone_more": "phone"}
# A tier offers nothing, not even its index, while the group it belongs to is folded:
# the folded phone shows only its entries. The general tier belongs to no group (None):
# its index is there from the first request.
TIER_OF: dict[str, str | None] = {"phone_more": "phone", "more": None}


def opens_along(group: str) -> list[str]:
    """`group` and every group opening with it, in opening order (phone_more → phone → screens)."""
    chain = [group]
    while (nxt := OPENS_WITH.get(chain[-1])) and nxt not in chain:
        chain.append(nxt)
    return chain


def index_text(index: AgentTool, members: Sequence[AgentTool]) -> str:
    """The index entry's text: its own short text, then one line per folded member."""
    lines = [index.entry_description().rstrip()]
    lines += [f"- {m.name}: {' '.join(m.entry_description().split())}" for m in members]
    return "\n".join(lines)


class ToolGroups:
    def __init__(self, tools: Sequence[AgentTool], preload: Iterable[str] = ()) -> None:
        self._tools = list(tools)
        self.open: set[str] = set()
        # The specs for each set of open groups: every request asks (twice, with the size
        # estimate), and building the index text reads prompt files.
        self._specs: dict[frozenset[str], tuple[ToolSpec, ...]] = {}
        self.opened_order: list[str] = []
        for group in preload:
            self.open_group(group)

    @property
    def groups(self) -> set[str]:
        return {t.group for t in self._tools if t.group}

    def open_group(self, group: str) -> list[str]:
        """Open `group` (and what opens with it); returns the groups newly opened."""
        newly: list[str] = []
        for g in opens_along(group):
            if g not in self.open and g in self.groups:
                self.open.add(g)
                self.opened_order.append(g)
                newly.append(g)
        return newly

    def on_call(self, tool: AgentTool) -> list[str]:
        """A call to `tool` was made; open its group unless it is an ALONE entry."""
        if tool.group is None or tool.entry is EntryKind.ALONE:
            return []
        return self.open_group(tool.group)

    def members(self, group: str) -> list[AgentTool]:
        """The group's tools that are offered once it is open (its index is not)."""
        return [t for t in self._tools if t.group == group and t.entry is not EntryKind.INDEX]

    def _index_shown(self, tier: str) -> bool:
        """A folded tier's index is offered once its group is open (always, for a tier of
        no group) and while the run has at least one of its tools."""
        group = TIER_OF[tier]
        return (group is None or group in self.open) and bool(self.members(tier))

    def offered(self) -> list[tuple[AgentTool, bool]]:
        """(tool, folded) in the fixed order: always-on first, then groups by GROUP_ORDER."""
        out: list[tuple[AgentTool, bool]] = [(t, False) for t in self._tools if t.group is None]
        ordered = list(GROUP_ORDER) + sorted(self.groups - set(GROUP_ORDER))
        for g in ordered:
            members = [t for t in self._tools if t.group == g]
            if g in self.open:
                out.extend((t, False) for t in members if t.entry is not EntryKind.INDEX)
            elif g in TIER_OF and not self._index_shown(g):
                continue
            else:
                out.extend((t, True) for t in members if t.entry is not EntryKind.MEMBER)
        return out

    def specs(self) -> tuple[ToolSpec, ...]:
        key = frozenset(self.open)
        if key not in self._specs:
            self._specs[key] = self._build_specs()
        return self._specs[key]

    def _build_specs(self) -> tuple[ToolSpec, ...]:
        out = []
        for t, folded in self.offered():
            if t.entry is EntryKind.INDEX:
                listed = [m for m in self.members(t.group or "") if m.entry is EntryKind.MEMBER]
                out.append(ToolSpec(t.name, index_text(t, listed), t.parameters))
            else:
                out.append(t.spec(folded))
        return tuple(out)
