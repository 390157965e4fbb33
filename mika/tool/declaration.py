"""Tools are declarations: one class per tool; code acts on these attributes, never on names."""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from mika.model.messages import ToolSpec
from mika.resources import has_prompt, prompt
from mika.tool.outcome import ToolOutcome

if TYPE_CHECKING:
    from mika.tool.context import ToolContext


class Risk(enum.Enum):
    READ = "read"  # reads only; goes through execute_read
    WRITE = "write"  # changes something on the device or in Mika
    EXTERNAL = "external"  # reaches outside (sends, posts, pays): outward checks apply


class EntryKind(enum.Enum):
    MEMBER = "member"  # part of a group, offered once the group is open
    OPENS = "opens"  # offered while folded; calling it opens its group
    ALONE = "alone"  # offered while folded; enough on its own, opens nothing
    # Offered only while its group (a tier) is folded, listing the members by name with
    # their short texts; calling it opens the group (mika.tool.groups).
    INDEX = "index"


@dataclass(frozen=True)
class ActionTarget:
    """What an action would touch, for the irreversible/payment check.

    Filled by the tool from the screen the model acted on; the core never reads a
    platform tree itself."""

    label: str = ""  # text / description of the element or button
    app: str = ""  # package or registrable domain
    kind: str = ""  # tap, type, key, launch…
    screen_text: str = ""  # the visible text of that screen (amounts are looked up here)
    on_screen: bool = True
    # The tool can't tell for sure what the action would hit (a point between elements,
    # Enter with nothing focused) while a payment screen is in front: refused, not asked.
    unclear: bool = False
    # Where the input leads besides its label (a link's address), judged as a place.
    place: str = ""
    # Where the screen itself is (its activity, its page's address): a checkout-like screen
    # makes an unlabeled button or a secret field a payment step.
    screen_place: str = ""
    # The element under the input can be pressed (a button, a link): an unlabeled one
    # beside an amount due is judged as the payment button it likely is.
    actionable: bool = False
    # A secret field (a payment password): typing into it on a payment screen is paying.
    secret: bool = False


class AnchorMissing(Exception):
    """`from_anchor`: the route's place or element is not on the current screen (or is
    there twice); the message says what differs, for the hand-over note."""


class AgentTool(abc.ABC):
    """Base of every tool. Subclasses set the ClassVars and implement `run`."""

    name: ClassVar[str]
    capability: ClassVar[str]
    risk: ClassVar[Risk] = Risk.READ
    # None: always offered. Otherwise the group it folds into (phone, web, sandbox, screens).
    group: ClassVar[str | None] = None
    entry: ClassVar[EntryKind] = EntryKind.MEMBER
    batchable: ClassVar[bool] = False
    # Pure waits and vision-only calls: ended early by a new user message.
    yields_to_steer: ClassVar[bool] = False
    # Needs a person to answer (ask_user, hand_to_user, request_confirmation): removed
    # from unattended runs.
    needs_user: ClassVar[bool] = False
    # Creates schedules or edits the user's profile: removed from unattended runs.
    unattended_ok: ClassVar[bool] = True
    # A control call (wait, ask, confirm, hand over): counted neither as reading nor acting.
    control: ClassVar[bool] = False
    # Ends a run that could not finish (end_not_done): the only tool of a budgeted run's last round.
    gives_up: ClassVar[bool] = False
    # Brings its own pacing between screens (the web's page dwell, seed §6 页面节奏): the
    # action entry's app dwell and screen cap, made for phone apps, are not added on top.
    paces_itself: ClassVar[bool] = False
    # Seed §9: a verified run's calls of this tool may be recorded into a route and
    # replayed (by the anchor it acted on, never by coordinates). Off unless a tool says so.
    replayable: ClassVar[bool] = False
    # Seed §6 SandboxBridge: callable from inside the sandbox as `mika phone <op> '<json>'`
    # (each call still goes through the action entry, with Origin.SANDBOX).
    sandbox_callable: ClassVar[bool] = False
    # Its short name there (`mika phone tap`); None: the tool name without its capability's
    # prefix (phone_swipe → swipe).
    sandbox_name: ClassVar[str | None] = None
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

    @classmethod
    def sandbox_op(cls) -> str:
        """The name a sandbox command calls this tool by (`mika <capability> <op>`)."""
        if cls.sandbox_name:
            return cls.sandbox_name
        prefix = f"{cls.capability}_"
        return cls.name[len(prefix) :] if cls.name.startswith(prefix) else cls.name

    @abc.abstractmethod
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        """Do the work. Writes reach here only through the ActionExecutor."""

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget | None:
        """What this call would touch, for the risk check; None when nothing outward."""
        return None

    # -- routes (seed §9): what a call acted on, and acting on it again ----------

    async def anchor(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any] | None:
        """Called before a replayable call runs, when the run records routes: where it acts
        and on what, from the screen the call uses — {"place": {...}, "anchor": {...}},
        the anchor {} when the call needs no element (launch, a key). None: the tool can't
        say (a point instead of an element), and the run yields no route. The default:
        a call whose arguments point at nothing on a screen needs no anchor."""
        if any(k in args for k in ("element", "x", "y", "x1", "y1")):
            return None
        return {"place": {}, "anchor": {}}

    async def from_anchor(
        self, step_args: dict[str, Any], anchor: dict[str, Any], ctx: ToolContext
    ) -> dict[str, Any] | None:
        """At replay: the step's arguments re-targeted onto the current screen (an element
        number of this screen for the anchor), or None / AnchorMissing(why) when the place
        differs or the anchor is not there, is there twice, or is stale. The default: a
        step with no anchor runs with its arguments as they are."""
        if anchor.get("anchor"):
            return None
        return dict(step_args)

    # -- how the model sees it --------------------------------------------------

    @classmethod
    def description(cls) -> str:
        return prompt(f"tools/{cls.name}.md")

    @classmethod
    def entry_description(cls) -> str:
        if has_prompt(f"entries/{cls.name}.md"):
            return prompt(f"entries/{cls.name}.md")
        return cls.description()

    @classmethod
    def spec(cls, folded: bool = False) -> ToolSpec:
        text = cls.entry_description() if folded else cls.description()
        return ToolSpec(cls.name, text, cls.parameters)
