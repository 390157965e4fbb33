"""`PhoneCapability` and `open_phone`: the phone capability as a run meets it (the
package's names; see mika/cap/phone/__init__.py for why they live here)."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from mika.action.pace import GesturePacing, TypingPacing
from mika.cap.phone.adb.devices import DeviceChoiceError, pick_serial
from mika.cap.phone.adb.port import AdbPort, Borrower
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.cap.phone.adb.server import AdbServerError, adb_client
from mika.cap.phone.display.life import VIRTUAL, DisplayKeeper, DisplayState
from mika.cap.phone.gated_port import GatedPort
from mika.cap.phone.model_picture import FORMAT, LONG_SIDE
from mika.cap.phone.port import AndroidPort
from mika.cap.phone.preload import phone_reason, tier_reason
from mika.cap.phone.reader import OcrReader, ScreenReader
from mika.cap.phone.session import PhoneSession
from mika.cap.phone.surface import PhoneSurface
from mika.cap.phone.tools.apps import PhoneLaunchApp, PhoneListApps, PhoneOpenLink, PhoneReadLink, PhoneShareText
from mika.cap.phone.tools.collect import PhoneCollect
from mika.cap.phone.tools.diagnose import PhoneDiagnose
from mika.cap.phone.tools.dialog import PhoneDialog
from mika.cap.phone.tools.do_steps import DoSteps
from mika.cap.phone.tools.event import PhoneEvent
from mika.cap.phone.tools.extract import PhoneExtract
from mika.cap.phone.tools.find import PhoneFind
from mika.cap.phone.tools.gesture import PhoneGesture
from mika.cap.phone.tools.keys import PhoneBack, PhonePressKey
from mika.cap.phone.tools.more import PhoneMore
from mika.cap.phone.tools.observe import PhoneListElements, PhoneObserve, PhoneQuery, PhoneScreenshot
from mika.cap.phone.tools.obstacle import HandleObstacle
from mika.cap.phone.tools.pull import PhonePullFile
from mika.cap.phone.tools.run import PhoneRun
from mika.cap.phone.tools.system_actions import PhoneAddCalendarEvent, PhoneSetAlarm, PhoneSetTimer, PhoneShowAlarms
from mika.cap.phone.tools.system_command import PhoneSystemCommand
from mika.cap.phone.tools.text import PhoneClearText, PhoneTypeText
from mika.cap.phone.tools.touch import PhoneLongPress, PhoneScroll, PhoneSwipe, PhoneTap
from mika.cap.phone.tools.vision import PhoneDescribe, PhoneFindVisually
from mika.cap.phone.tools.wait import PhoneWait
from mika.cap.phone.tools.wheel import PhoneSetWheel
from mika.model.base import Model
from mika.resources import prompt
from mika.tool.declaration import AgentTool

if TYPE_CHECKING:
    from mika.action.input_gate import InputGate
    from mika.knowledge.catalog import KnowledgeCatalog
    from mika.runtypes.spec import RunSpec

log = logging.getLogger(__name__)

__all__ = ["DeviceChoiceError", "PhoneCapability", "PhoneOpenError", "open_phone"]


class PhoneOpenError(Exception):
    """The phone could not be opened (no adb server, no device, several); the message says what to do."""


class _Closable(Protocol):
    serial: str

    def close(self) -> None: ...


class LedgerBorrower(Borrower):
    """Writes what the port borrowed (the IME) into the run's BorrowedLedger."""

    def __init__(self, ledger: Any) -> None:
        self.ledger = ledger

    def borrow(self, kind: str, key: str, restore: dict[str, Any]) -> str:
        return self.ledger.borrow(kind, key, restore)

    def give_back(self, item_id: str) -> None:
        if item_id:
            self.ledger.give_back(item_id)


class PhoneCapability:
    id = "phone"
    group = "phone"

    def __init__(
        self,
        port: AndroidPort,
        *,
        display: int = 0,
        ocr: OcrReader | None = None,
        on_app_seen: Callable[[str], None] | None = None,
        redact: Callable[[str], None] | None = None,
        owned: Sequence[_Closable] = (),
        display_mode: str = "main",
        keep_apps: bool = False,
        vision: Model | None = None,
        pace: str = "fast",
        workspaces: Path | None = None,
        picture_long_side: int = LONG_SIDE,
        picture_format: str = FORMAT,
        warm_ocr: Callable[[], object] | None = None,
    ) -> None:
        self.port = port
        # Starts loading the OCR model in the background when a run starts (None: no OCR,
        # or an OCR that needs no loading).
        self.warm_ocr = warm_ocr if ocr is not None else None
        self.reader = ScreenReader(port, display, ocr=ocr, on_app_seen=on_app_seen)
        self.session = PhoneSession(
            port,
            self.reader,
            display,
            redact=redact,
            picture_long_side=picture_long_side,
            picture_format=picture_format,
        )
        # [general] pace: typing in growing prefixes (the dwell is the action entry's).
        rng = random.Random()
        self.session.typing = TypingPacing.for_pace(pace, rng)
        self.session.gestures = GesturePacing.instant() if pace == "fast" else GesturePacing(rng)
        self._owned = list(owned)
        self._emit: Callable[[Any], None] | None = None
        self._run_ids = ("", "")
        self.keeper: DisplayKeeper | None = None
        if display_mode == VIRTUAL and isinstance(port, AdbPort):
            # The agent's own display: made by the first phone call of a run that acts.
            self.keeper = DisplayKeeper(
                port, mode=VIRTUAL, notify=self._notify, on_state=self._chosen, keep_apps=keep_apps
            )
            port.displays = self.keeper
            self.session.keeper = self.keeper
        phone_tools: list[AgentTool] = [
            PhoneObserve(),
            PhoneListElements(),
            PhoneTap(),
            PhoneLongPress(),
            PhoneTypeText(),
            PhoneClearText(),
            PhoneScroll(),
            PhoneSwipe(),
            PhoneGesture(),
            PhoneBack(),
            PhonePressKey(),
            PhoneLaunchApp(),
            PhoneOpenLink(),
            PhoneShareText(),
            PhoneListApps(),
            PhoneScreenshot(),
            PhoneQuery(),
            PhoneWait(),
            PhoneEvent(),
            PhoneSetAlarm(),
            PhoneSetTimer(),
            PhoneShowAlarms(),
            PhoneAddCalendarEvent(),
            PhoneSystemCommand(),
            PhoneSetWheel(),
            PhoneDiagnose(),
            PhoneDialog(),
            HandleObstacle(),
            PhoneCollect(),
            PhoneFind(),
            PhoneExtract(),
            # Where its copies land: the conversation's workspace under this state folder.
            PhonePullFile(workspaces),
        ]
        if vision is not None:
            # Looking at the picture only when the user chose a vision model (roles.vision).
            phone_tools += [PhoneDescribe(vision), PhoneFindVisually(vision)]
        by_name = {t.name: t for t in phone_tools}
        self._tools = [*phone_tools, DoSteps(by_name), PhoneRun(by_name), PhoneMore()]
        self.surface = PhoneSurface(self.session, {t.name: t for t in self._tools}, pace=pace)

    @property
    def serial(self) -> str:
        return self.port.serial

    def bind_gate(self, gate: InputGate) -> None:
        """The run's InputGate judges every input the phone tools send: their port becomes
        a GatedPort over the device's (mika.cap.phone.gated_port). The screen reader, the
        display keeper and the faces keep the device's own port: they read, or act for
        the user (a takeover from the preview), not for the agent."""
        self.session.port = GatedPort(self.port, gate, self.reader)

    def bind_run(
        self,
        emit: Callable[[Any], None],
        run_id: str,
        conversation_id: str = "",
        *,
        read_only: bool = False,
        links_in_browser: bool = False,
    ) -> None:
        """The run this capability serves: its notices and display events go to `emit`;
        a read-only run works on the main screen and never makes a display.
        `links_in_browser`: the run has Mika's browser (a LinkReader), so a read-only run
        is offered phone_open_link as a read that reads web links there (issue 15)."""
        self._emit = emit
        self._run_ids = (run_id, conversation_id)
        self.session.read_only = read_only
        if read_only and links_in_browser:
            self._tools = [PhoneReadLink() if isinstance(t, PhoneOpenLink) else t for t in self._tools]
            self.surface.tools = {t.name: t for t in self._tools}

    @property
    def display_plan(self) -> dict[str, object]:
        """The display the run is to use, for its first event (id -1: not made yet)."""
        return self.session.display_state.as_dict()

    def _notify(self, level: str, text: str) -> None:
        log.info("display notice (%s): %s", level, text)
        if self._emit is not None:
            from mika.record.events import Notice

            self._emit(Notice(run_id=self._run_ids[0], conversation_id=self._run_ids[1], level=level, text=text))

    def _chosen(self, state: DisplayState) -> None:
        if self._emit is not None:
            from mika.record.events import DisplayChosen

            self._emit(
                DisplayChosen(
                    run_id=self._run_ids[0],
                    conversation_id=self._run_ids[1],
                    mode=state.mode,
                    display_id=state.id,
                    reason=state.reason,
                )
            )

    async def start(self) -> Sequence[str]:
        """The run starts (TaskRun awaits this once): the OCR model begins loading in a
        thread of its own, so the first screen that needs it does not pay the whole load
        and a screen that does not need it never waits for it (issue 35)."""
        if self.warm_ocr is not None:
            self.warm_ocr()
        return ()

    def tools(self) -> Sequence[AgentTool]:
        return list(self._tools)

    def prompt_section(self) -> str | None:
        return prompt("capabilities/phone.md")

    def preload(self, spec: RunSpec, knowledge: KnowledgeCatalog | None = None) -> tuple[str, ...]:
        """The groups to open from the first request: the phone's when the task's words
        name an app or a phone action (mika.cap.phone.preload), so request 2 keeps request
        1's prefix instead of unfolding the group after the first call; with its tier too
        when they ask to read a whole chat (phone_collect)."""
        tier = tier_reason(spec.goal)
        if tier:
            log.info("run %s preloads the phone's less common tools: the task is %s", spec.id, tier)
            return ("phone_more", self.group)
        reason = phone_reason(spec.goal, knowledge)
        if reason:
            log.info("run %s preloads the phone tools: the task names %s", spec.id, reason)
            return (self.group,)
        return ()

    def services(self) -> Sequence[object]:
        return (self.session,)

    async def close(self) -> None:
        try:
            if self.keeper is not None:
                try:
                    await self.keeper.close()
                except Exception:  # the run is over; the helper dies with its adb stream anyway
                    log.exception("stopping the agent's display failed")
            await self.port.close()
        finally:
            for thing in self._owned:
                try:
                    thing.close()
                except Exception:  # closing is best effort; the run is over
                    log.exception("closing %r failed", thing)
            self._owned.clear()


def _default_ocr() -> OcrReader:
    from mika.cap.phone.ocr import read_text

    return read_text


def _warm_default_ocr() -> object:
    from mika.cap.phone.ocr import warm

    return warm()


def open_phone(
    device: str | None,
    *,
    state_dir: Path | str | None = None,
    start_sim: Callable[[], _Closable] | None = None,
    backend: str = "auto",
    ocr: bool = True,
    reconnect: ReconnectPolicy | None = None,
    on_app_seen: Callable[[str], None] | None = None,
    redact: Callable[[str], None] | None = None,
    display: str = "main",
    keep_apps: bool = False,
    vision: Model | None = None,
    pace: str = "fast",
    picture_long_side: int = LONG_SIDE,
    picture_format: str = FORMAT,
) -> PhoneCapability:
    """The phone capability for `device`: a serial, "sim", or None for the only attached phone.

    `display` is "virtual" (the agent works on a display of its own, made on its first
    phone call) or "main" (display 0); `keep_apps` (`[phone] keep_apps_after_run`) moves the
    run's apps to the main screen at its end instead of closing them. "sim" needs `start_sim` (the CLI passes `mika.sim.launch.start_sim`; this package may
    not import the simulated phone). Raises PhoneOpenError with a sentence for the user.
    """
    owned: list[_Closable] = []
    try:
        client = adb_client()
        if device == "sim":
            if start_sim is None:
                raise PhoneOpenError("The simulated phone can't be started from here; run it with `mika sim`.")
            running = start_sim()
            owned.append(running)
            serial = running.serial
        else:
            serial = pick_serial(client, device)
    except (AdbServerError, DeviceChoiceError) as exc:
        raise PhoneOpenError(str(exc)) from None
    except Exception as exc:  # the sim's launch errors carry their own sentence
        for thing in owned:
            thing.close()
        if isinstance(exc, PhoneOpenError):
            raise
        raise PhoneOpenError(f"The phone could not be opened: {exc}") from None
    borrower = Borrower()
    if state_dir is not None:
        from mika.run.borrowed import BorrowedLedger

        borrower = LedgerBorrower(BorrowedLedger(state_dir))
    port = AdbPort(serial, client, backend=backend, reconnect=reconnect, borrower=borrower)
    return PhoneCapability(
        port,
        ocr=_default_ocr() if ocr else None,
        warm_ocr=_warm_default_ocr if ocr else None,
        on_app_seen=on_app_seen,
        redact=redact,
        owned=owned,
        display_mode=display,
        keep_apps=keep_apps,
        vision=vision,
        pace=pace,
        picture_long_side=picture_long_side,
        picture_format=picture_format,
    )
