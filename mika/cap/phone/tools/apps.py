"""Apps and links: phone_launch_app, phone_list_apps, phone_open_link, phone_share_text."""

from __future__ import annotations

import re
from typing import Any

from mika.cap.phone.adb.labels import match_app
from mika.cap.phone.session import PhoneSession
from mika.cap.phone.tools.base import PhoneTool, current_screen, screen_text
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ActionTarget, EntryKind, Risk, ToolOutcome
from mika.uistate import UntilWait

LAUNCH_WAIT_S = 8.0
_LINK = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
_PACKAGE = re.compile(r"^[A-Za-z][\w]*(\.[A-Za-z0-9_]+)+$")


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
    opens_app = True
    entry = EntryKind.OPENS
    batchable = True
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {"app": {"type": "string", "description": "The app's name as the user says it, or its package."}},
        "required": ["app"],
    }

    async def target(self, args: dict[str, Any], ctx: ToolContext) -> ActionTarget:
        # An app is no payment step; a component ("pkg/.CheckoutActivity") names a page and
        # is checked as a place.
        query = str(args.get("app", ""))
        return ActionTarget(label=query if "/" in query else "", app=query.split("/")[0], kind="launch")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        query = str(args["app"]).strip()
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
        result = await session.port.launch_app(session.display, package)
        if result.exit_code != 0:
            return ToolOutcome.error("launch_failed", f"{package} could not be opened: {result.output.strip()[:300]}")
        waited = await wait_for_app(session, ctx, package)
        label = (session.apps or {}).get(package, package)
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


class PhoneListApps(PhoneTool):
    name = "phone_list_apps"
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
        lines = [f"{label} · {pkg}" for pkg, label in items]
        head = f"{len(lines)} app(s)" + (f" matching {wanted!r}" if wanted else "") + ":"
        # App names are chosen by whoever made the app: fenced like anything else the phone shows.
        listed = fence("\n".join(lines), {"source": "app_list"}) if lines else ""
        return ToolOutcome(text="\n".join(p for p in (head, listed) if p), data={"count": len(lines)})


class PhoneOpenLink(PhoneTool):
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
        # Where the link leads is the target: a checkout / pay / order link (or an app
        # component named so) is a payment step, checked like the button.
        screen = await current_screen(self.session(ctx))
        place = " ".join(str(args.get(k) or "") for k in ("url", "app")).strip()
        return ActionTarget(
            label=place,
            app=str(args.get("app") or _link_host(str(args.get("url", "")))),
            kind="link",
            screen_text=screen_text(screen),
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        url = str(args["url"]).strip()
        if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", url):
            return ToolOutcome.error("bad_arguments", f"{url!r} is not a link (it needs a scheme like https://).")
        if url.split(":", 1)[0].lower() in ("file", "content", "javascript", "intent"):
            return ToolOutcome.error("bad_arguments", "Only web and app links can be opened this way.")
        result = await session.port.start_activity(
            session.display, action="android.intent.action.VIEW", data=url, package=args.get("app") or None
        )
        if result.exit_code != 0:
            return ToolOutcome.error("cannot_open", f"No app on the phone opened {url}: {result.output.strip()[:300]}")
        return ToolOutcome(text=f"Opened {url}.")


class PhoneShareText(PhoneTool):
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
        # Shared text lands in another app, links and all: the app it goes to and any link
        # in the text are checked as places (a checkout link shared into a browser is one).
        session = self.session(ctx)
        package, _ = await resolve_app(session, str(args.get("app", "")).strip())
        links = " ".join(_LINK.findall(str(args.get("text", ""))))
        screen = await current_screen(session)
        return ActionTarget(
            label=" ".join(p for p in (package or str(args.get("app", "")), links) if p),
            app=package or "",
            kind="share",
            screen_text=screen_text(screen),
        )

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


def _link_host(url: str) -> str:
    m = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)", url.strip())
    return m.group(1).lower() if m else ""
