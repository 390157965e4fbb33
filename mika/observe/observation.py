"""Observations: the one unit the core consumes from anything it reads."""

from __future__ import annotations

import enum
import itertools
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mika.model.messages import Image
from mika.observe.untrusted import CLOSE, fence


class ObsKind(enum.Enum):
    READ = "read"  # something read from a screen, page, file
    OUTPUT = "output"  # output of a command
    REPLY = "reply"  # a reply from a child run or another agent
    USER_SAID = "user_said"
    ATTACHMENT = "attachment"
    FACT = "fact"  # a remembered fact


class Trust(enum.Enum):
    TRUSTED = "trusted"  # the user's own words, Mika's own state
    UNTRUSTED = "untrusted"  # content from pages, other apps, child runs


@dataclass(frozen=True)
class Place:
    """Where an observation was made; knowledge is looked up by place."""

    kind: str  # app | site | page | command | file
    id: str  # package, registrable domain, URL, command line, path
    label: str = ""

    @staticmethod
    def app(package: str, label: str = "") -> Place:
        return Place("app", package, label)

    @staticmethod
    def site(domain: str) -> Place:
        return Place("site", domain)

    @staticmethod
    def page(url: str, title: str = "") -> Place:
        return Place("page", url, title)

    @staticmethod
    def command(line: str) -> Place:
        return Place("command", line)

    @staticmethod
    def file(path: str) -> Place:
        return Place("file", path)

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "id": self.id, "label": self.label}


UNTRUSTED_OPEN = "<untrusted>"
UNTRUSTED_CLOSE = CLOSE


def wrap_untrusted(text: str, attrs: Mapping[str, str] | None = None) -> str:
    """Wrap content Mika did not write so the model treats it as data, not orders.

    Applied once, where the observation is built. Text that already looks wrapped is
    wrapped again (its tags defused): a prefix check would let content that starts and
    ends with the tags smuggle a closing tag through.
    """
    return fence(text, attrs)


_ids = itertools.count(1)


@dataclass(frozen=True)
class Observation:
    kind: ObsKind
    source: str  # capability id: phone, web, sandbox, general, user
    text: str
    title: str = ""
    place: Place | None = None
    image: Image | None = None
    trust: Trust = Trust.UNTRUSTED
    step: int = 0
    at: float = field(default_factory=time.time)
    id: str = ""

    @staticmethod
    def build(
        kind: ObsKind,
        source: str,
        text: str,
        *,
        trust: Trust = Trust.UNTRUSTED,
        run_prefix: str = "o",
        fence_attrs: Mapping[str, str] | None = None,
        head: str = "",
        tail: str = "",
        **kw: Any,
    ) -> Observation:
        """The one constructor capabilities use: it numbers the observation and wraps
        untrusted text exactly once.

        `fence_attrs` say where the content came from (default: the source, and the app
        of an app place). `head` and `tail` are Mika's own lines around the content (a
        listing's header, its notes): they stay outside the fence.
        """
        if trust is Trust.UNTRUSTED and text:
            place = kw.get("place")
            attrs = dict(fence_attrs) if fence_attrs is not None else {"source": source}
            if fence_attrs is None and place is not None and place.kind == "app":
                attrs["app"] = place.id
            body = wrap_untrusted(text, attrs)
        else:
            body = text  # Mika's own words, or nothing to fence (an empty screen)
        body = "\n".join(p for p in (head, body, tail) if p)
        return Observation(kind, source, body, trust=trust, id=f"{run_prefix}{next(_ids)}", **kw)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "source": self.source,
            "title": self.title,
            "place": self.place.as_dict() if self.place else None,
            "text": self.text,
            "has_image": self.image is not None,
            "trust": self.trust.value,
            "step": self.step,
            "at": self.at,
        }
