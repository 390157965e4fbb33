"""phone_more: the index of the phone's less common tools (the `phone_more` tier).

Their full definitions stay out of every request until a run needs one; the index names
each with its short text (mika.tool.groups builds that list)."""

from __future__ import annotations

from mika.tool.tier_index import TierIndex


class PhoneMore(TierIndex):
    name = "phone_more"
    capability = "phone"
    group = "phone_more"
