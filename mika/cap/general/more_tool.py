"""more_tools: the index of the general tools most runs never call (the `more` tier):
scheduling, child runs, reading older turns. Each is named with a line; their full
definitions come once asked for (mika.tool.groups)."""

from __future__ import annotations

from mika.tool.tier_index import TierIndex


class MoreTools(TierIndex):
    name = "more_tools"
    capability = "general"
    group = "more"
