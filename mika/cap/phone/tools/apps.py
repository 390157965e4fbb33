"""Apps and links: phone_launch_app, phone_list_apps, phone_open_link, phone_share_text."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from mika.action.risk import RiskClass, classify_place
from mika.cap.phone.adb.labels import label_for, match_app
from mika.cap.phone.chooser import Chooser, find_chooser
from mika.cap.phone.session import PhoneSession
from mika.cap.phone.tools.base import PhoneTool, current_screen, screen_text
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, EntryKind, Risk, ToolOutcome
from mika.tool.links import LinkReader
from mika.uistate import UntilWait

LAUNCH_WAIT_S = 8.0
_PACKAGE = re.compile(r"^[A-Za-z][\w]*(\.[A-Za-z0-9_]+)+$")
# "pkg/.MenuActivity" or "pkg/pkg.MenuActivity": one page of an app, also one with no
# launcher icon (app knowledge names such pages).
_COMPONENT = re.compile(r"^[A-Za-z]\w*(\.\w+)+/\.?[A-Za-z][\w.$]*$")


async def wait_for_app(session: PhoneSession, ctx: ToolContext, package: str, timeout: float = LAUNCH_WAIT_S):
    wait = UntilWait(expect_app=package, timeout_s=timeout, poll_s=0.3)
    return await wait.run(session.reader.read, ctx.inbox.steer_signal, sleep=ctx.sleep)


async def resolve_app(session: PhoneSession, query: str) -> tuple[str | None, list[str]]:
    apps = await session.app_list()
    if query in apps:
        return query, []
    hits = match_app(query, apps)
    if len(hits) == 1:
        return hits[0], []
    if not hits and _PACKAGE.match(query):
        return query, []  # not listed (other user, hidden): let the phone say
    return None, hits


class PhoneLaunchApp(PhoneTool):
    name = "phone_launch_app"
    replayable = True  # seed §9: a verified run may record it, by its anchor
    sandbox_callable = True
    sandbox_name = "launch"
    opens_app = True
    entry = EntryKind.OPENS
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "app": {"type": "string", "description": "The app's name as the user says it, or its package."},
            "profile": {
                "type": "string",
                "enum": ["main", "other"],
                "description": "For an app installed twice (dual apps, work profile): which copy to pick "
                "if the phone asks. Only when the user said.",
            },
        },
        "required": ["app"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        # For pacing: the app. What the launch opens (a component naming a checkout page)
        # is judged by the gated port as the launch is sent.
        return ActionTarget(app=str(args.get("app", "")).split("/")[0], kind="launch")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        query = str(args["app"]).strip()
        profile = args.get("profile")
        if profile is not None and profile not in ("main", "other"):
            return ToolOutcome.error(
                "bad_arguments",
                f'profile must be "main" or "other", not {profile!r}: leave it out unless the user said '
                "which copy of an app installed twice to open.",
            )
        component = query if _COMPONENT.match(query) else None
        package: str | None
        candidates: list[str] = []
        if component is not None:
            package = component.split("/")[0]
        else:
            package, candidates = await resolve_app(session, query)
        if package is None:
            if candidates:
                names = ", ".join(f"{(session.apps or {}).get(p, p)} ({p})" for p in candidates[:8])
                return ToolOutcome.error(
                    "ambiguous_app", f"Several apps match {query!r}: {names}. Call again with the package."
                )
            return ToolOutcome.error(
                "app_not_found", f"No app called {query!r} is installed. phone_list_apps shows what is."
            )
        holder = ctx.apps.claim(package) if ctx.apps is not None else None
        if holder is not None:
            return ToolOutcome.error(
                "app_busy",
                f"{package} is in use by another task running at the same time (run {holder}); it is free "
                "again when that run ends. Nothing was opened: do another part of the task first, or wait.",
                package=package,
                holder=holder,
            )
        if component is not None:
            result = await session.port.start_activity(session.display, component=component)
        else:
            result = await session.port.launch_app(session.display, package)
        if result.exit_code != 0 or (component is not None and "Error" in result.output):
            what = component or package
            return ToolOutcome.error("launch_failed", f"{what} could not be opened: {result.output.strip()[:300]}")
        label = (session.apps or {}).get(package) or label_for(package)
        chooser, arrived_ms = await wait_for_app_or_chooser(session, ctx, package, label)
        if chooser is not None:
            return await _on_chooser(session, ctx, package, label, chooser, profile, arrived_ms)
        front = session.reader.current
        if front is not None and front.foreground_package == package:
            # The wait above already saw it in front: no second read to see it again.
            return ToolOutcome(text=f"Opened {label} ({package}).", wait_ms=arrived_ms, data={"package": package})
        waited = await wait_for_app(session, ctx, package)
        if waited.met:
            return ToolOutcome(text=f"Opened {label} ({package}).", wait_ms=waited.waited_ms, data={"package": package})
        now = waited.screen.foreground_package if waited.screen else "?"
        return ToolOutcome(
            text=f"Asked the phone to open {label} ({package}), but {now} is in front "
            f"({waited.stopped}). Look at the screen.",
            ok=False,
            code="launch_not_seen",
            wait_ms=waited.waited_ms,
            data={"package": package},
        )


async def wait_for_app_or_chooser(
    session: PhoneSession, ctx: ToolContext, package: str, label: str, timeout: float = LAUNCH_WAIT_S
) -> tuple[Chooser | None, int]:
    """Until the app is in front or the system asks which copy to open; (chooser, ms waited).
    Neither within the time: (None, ms) and the ordinary wait reports what is in front."""
    start = time.monotonic()
    while True:
        screen = await session.reader.read()
        if screen.foreground_package == package:
            return None, int((time.monotonic() - start) * 1000)
        chooser = find_chooser(screen, label, package)
        if chooser is not None:
            return chooser, int((time.monotonic() - start) * 1000)
        if time.monotonic() - start >= timeout or ctx.inbox.steer_signal.is_set():
            return None, int((time.monotonic() - start) * 1000)
        await ctx.sleep(0.3)


def _chooser_data(chooser: Chooser) -> dict[str, Any]:
    return {
        "package": chooser.package,
        "options": [{"element": o.number, "label": o.label, "other": o.other} for o in chooser.options],
        "other": chooser.other.label if chooser.other else None,
    }


async def _on_chooser(
    session: PhoneSession,
    ctx: ToolContext,
    package: str,
    label: str,
    chooser: Chooser,
    profile: str | None,
    waited_ms: int,
) -> ToolOutcome:
    """The system asks which copy of an installed-twice app to open. The app counts as
    opened (the chooser in front is not "switched away"); pick only what is known."""
    options = "; ".join(f"[{o.number}] {o.label}" + (" (the other copy)" if o.other else "") for o in chooser.options)
    shown = fence(options, {"source": "chooser"})
    data = {"package": package, "chooser": _chooser_data(chooser)}
    if not chooser.clear:
        return ToolOutcome(
            text=f"The phone asks which copy of {label} ({package}) to open, but the options can't be told "
            f"apart (no dual/work marker):\n{shown}\nNothing was picked. Ask the user which one; don't open "
            "the app again.",
            ok=False,
            code="chooser_unclear",
            wait_ms=waited_ms,
            data=data,
        )
    if profile is None:
        return ToolOutcome(
            text=f"{label} ({package}) is installed twice; the phone asks which copy to open:\n{shown}\n"
            "Tap the one the user asked for; if they didn't say, the main one (not the other copy). "
            "Don't open the app again.",
            wait_ms=waited_ms,
            data=data,
        )
    option = chooser.pick(profile)
    assert option is not None  # a clear chooser has both
    element = next(e for e in (await session.reader.read()).elements if e.number == option.number)
    x, y = element.bounds.centre
    await session.port.tap(session.display, int(x), int(y))
    waited = await wait_for_app(session, ctx, package)
    which = "the other copy" if profile == "other" else "the main copy"
    data["profile"] = profile
    if waited.met:
        return ToolOutcome(
            text=f"Opened {which} of {label} ({package}) from the phone's chooser.",
            wait_ms=waited_ms + waited.waited_ms,
            data=data,
        )
    now = waited.screen.foreground_package if waited.screen else "?"
    return ToolOutcome(
        text=f"Picked {which} of {label} in the phone's chooser, but {now} is in front ({waited.stopped}). "
        "Look at the screen.",
        ok=False,
        code="launch_not_seen",
        wait_ms=waited_ms + waited.waited_ms,
        data=data,
    )


class PhoneListApps(PhoneTool):
    name = "phone_list_apps"
    sandbox_callable = True
    sandbox_name = "apps"
    entry = EntryKind.ALONE
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {"filter": {"type": "string", "description": "Only apps whose name or package contains this."}},
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        apps = await session.app_list()
        wanted = str(args.get("filter") or "").strip()
        items = sorted(apps.items(), key=lambda kv: kv[1].casefold())
        if wanted:
            hits = set(match_app(wanted, apps))
            items = [kv for kv in items if kv[0] in hits]
        also = await session.other_users_apps()
        lines = [f"{label} · {pkg}" + _also_in(also.get(pkg, ())) for pkg, label in items]
        head = f"{len(lines)} app(s)" + (f" matching {wanted!r}" if wanted else "") + ":"
        # App names are chosen by whoever made the app: fenced like anything else the phone shows.
        listed = fence("\n".join(lines), {"source": "app_list"}) if lines else ""
        marked = {pkg: [u for u, _ in also[pkg]] for pkg, _ in items if pkg in also}
        data: dict[str, Any] = {"count": len(lines)}
        if marked:
            data["also_in"] = marked
        return ToolOutcome(text="\n".join(p for p in (head, listed) if p), data=data)


class PhoneOpenLink(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_open_link"
    opens_app = True
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "http(s) link or an app's deep link."},
            "app": {"type": "string", "description": "Package to open it in; default the phone's choice."},
        },
        "required": ["url"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        # For pacing: the app or site and the screen. Where the link leads (a checkout,
        # however it is spelled, and the page the phone resolves it to) is judged by the
        # gated port as the intent is sent.
        screen = await current_screen(self.session(ctx))
        return ActionTarget(
            app=str(args.get("app") or _link_host(str(args.get("url", "")))),
            kind="link",
            screen_text=screen_text(screen),
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        url = str(args["url"]).strip()
        refused = _bad_link(url)
        if refused is not None:
            return refused
        reader = browser_for(url, ctx)
        if reader is not None:
            return await read_in_browser(reader, url)
        session = self.session(ctx)
        result = await session.port.start_activity(
            session.display, action="android.intent.action.VIEW", data=url, package=args.get("app") or None
        )
        if result.exit_code != 0:
            return ToolOutcome.error("cannot_open", f"No app on the phone opened {url}: {result.output.strip()[:300]}")
        return ToolOutcome(text=f"Opened {url}.")


class PhoneReadLink(PhoneOpenLink):
    """phone_open_link in a read-only run that has Mika's browser: a read, offered where
    the phone may change nothing. An http(s) link is read in the browser; anything else
    (an app's deep link) would need the phone to act, and is refused."""

    risk = Risk.READ
    changes_screen = False
    opens_app = False

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        url = str(args["url"]).strip()
        refused = _bad_link(url)
        if refused is not None:
            return refused
        reader = browser_for(url, ctx)
        if reader is None:
            return ToolOutcome.error(
                "read_only",
                f"This run is read-only: {url} is not a web page Mika's browser can read, and the phone "
                "may not open apps here.",
            )
        return await read_in_browser(reader, url)


def _bad_link(url: str) -> ToolOutcome | None:
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", url):
        return ToolOutcome.error("bad_arguments", f"{url!r} is not a link (it needs a scheme like https://).")
    if url.split(":", 1)[0].lower() in ("file", "content", "javascript", "intent"):
        return ToolOutcome.error("bad_arguments", "Only web and app links can be opened this way.")
    return None


def browser_for(url: str, ctx: ToolContext) -> LinkReader | None:
    """Mika's browser, when this link goes there instead of the phone: an http(s) link, a
    run that only reads (spec.read_only — the one thing the core knows for certain about
    a run's intent), and the web capability on (it brings the LinkReader)."""
    if not ctx.spec.read_only or urlsplit(url).scheme.lower() not in ("http", "https"):
        return None
    # Looked up directly, not through ctx.service: that one takes a concrete class and
    # LinkReader is an abstract base (its implementation lives in the web capability).
    found = ctx.services.get(LinkReader)
    return found if isinstance(found, LinkReader) else None


async def read_in_browser(reader: LinkReader, url: str) -> ToolOutcome:
    # A read-only run never takes a payment step: an address that leads to a checkout,
    # a payment or an order is not opened, however it is spelled (a GET can place one).
    if classify_place(url).risk is not RiskClass.NONE:  # escapes undone inside
        return ToolOutcome.error(
            "read_only",
            f"This run only reads: {url} leads to a checkout, payment or order step, so it was not opened "
            "(neither in Mika's browser nor on the phone).",
        )
    outcome = await reader.read_link(url)
    note = (
        f"Read {url} in Mika's own browser (this run only reads), not on the phone; the phone's screen is unchanged."
        if outcome.ok
        else f"Mika's own browser (this run only reads) could not read {url}; the phone was not used."
    )
    return replace(outcome, text=f"{note}\n{outcome.text}", data={**outcome.data, "opened_in": "browser"})


class PhoneShareText(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_share_text"
    opens_app = True
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "app": {"type": "string", "description": "The app to share into (name or package)."},
        },
        "required": ["text", "app"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        # For pacing: the app and the screen. The app it goes to and the links in the text
        # (a checkout link shared into a browser) are judged by the gated port as the
        # intent is sent.
        screen = await current_screen(self.session(ctx))
        return ActionTarget(app=str(args.get("app", "")).strip(), kind="share", screen_text=screen_text(screen))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        package, candidates = await resolve_app(session, str(args["app"]).strip())
        if package is None:
            return ToolOutcome.error(
                "app_not_found",
                f"No single app matches {args['app']!r}"
                + (f" (candidates: {', '.join(candidates[:8])})." if candidates else "."),
            )
        result = await session.port.start_activity(
            session.display,
            action="android.intent.action.SEND",
            mime="text/plain",
            package=package,
            extras={"android.intent.extra.TEXT": str(args["text"])},
        )
        if result.exit_code != 0:
            return ToolOutcome.error(
                "cannot_share", f"{package} does not take shared text: {result.output.strip()[:300]}"
            )
        label = (await session.app_list()).get(package, package)
        chooser, asked_ms = await wait_for_app_or_chooser(session, ctx, package, label)
        if chooser is not None:
            # Installed twice: the share page opens in the copy picked. The text went nowhere yet.
            shown = fence(
                "; ".join(
                    f"[{o.number}] {o.label}" + (" (the other copy)" if o.other else "") for o in chooser.options
                ),
                {"source": "chooser"},
            )
            return ToolOutcome(
                text=f"{label} ({package}) is installed twice; the phone asks which copy takes the text:\n{shown}\n"
                "Tap the copy the user meant, else the main one; don't share again. Nothing was sent.",
                wait_ms=asked_ms,
                data={"package": package, "chooser": _chooser_data(chooser)},
            )
        waited = await wait_for_app(session, ctx, package)
        # Say what actually came up: a chooser, another app or a lock screen may be in front
        # instead, and "opened X's share page" would then send the model to the wrong app.
        screen = waited.screen or await session.reader.read()
        front = screen.foreground_package
        if front != package:
            shown = f"{front} is in front" if front else "no app is in front"
            return ToolOutcome.error(
                "shared_elsewhere",
                f"Asked {package} to take the text, but {shown}, not {package}: the text did not reach "
                f"{package}'s share page. Nothing was sent. Look at the screen before going on; go back if "
                "this is not where the user wanted the text.",
                package=front,
                requested=package,
                waited_ms=waited.waited_ms,
            )
        return ToolOutcome(
            text=f"{package} came up with the text on its share page (checked: it is in front). "
            "Nothing was sent: pick the recipient and press send on that page.",
            wait_ms=waited.waited_ms,
            data={"package": package},
        )


def _also_in(users: tuple[tuple[int, str], ...]) -> str:
    # Installed in another user too: opening it may bring up the system's chooser.
    if not users:
        return ""
    return " · also_in: " + ", ".join(f"user {uid} ({name})" for uid, name in users)


def _link_host(url: str) -> str:
    m = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)", url.strip())
    return m.group(1).lower() if m else ""
