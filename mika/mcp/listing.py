"""What `mika mcp` tells a client before anything is asked of the phone: its `initialize`
answer and its tool list, in the wire's own JSON, without the MCP SDK.

Both the front desk (mika.mcp.front_desk, which answers them while the SDK is still
loading) and the SDK-served face (mika.mcp.server) take them from here, so the two cannot
differ. The phone tools are the phone capability's declarations (their names,
descriptions from prompts/, schemas and risk are class attributes): listing them needs no
phone session. tests/mcp_server/test_mcp_first_answers.py holds the answers equal to the
SDK's own and the declarations to the phone session's tools.
"""

from __future__ import annotations

from typing import Any

from mika import __version__

# The phone's tools an MCP client may call itself: look, touch, type, move, open, and the
# system actions. (Batches, scripts and the vision tools stay the model's.)
PHONE_TOOLS = (
    "phone_observe",
    "phone_list_elements",
    "phone_tap",
    "phone_long_press",
    "phone_type_text",
    "phone_clear_text",
    "phone_scroll",
    "phone_swipe",
    "phone_back",
    "phone_press_key",
    "phone_launch_app",
    "phone_list_apps",
    "phone_screenshot",
    "phone_set_alarm",
    "phone_set_timer",
    "phone_show_alarms",
    "phone_add_calendar_event",
    "phone_system_command",
)

INSTRUCTIONS = (
    "Mika operates the user's Android phone. Prefer run_task for whole tasks; the phone_* tools "
    "act one step at a time on the numbered elements of the latest listing (phone_observe)."
)

RUN_TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "goal": {"type": "string", "description": "The task in the user's words, e.g. 'turn on dark mode'."},
        "conversation_id": {
            "type": "string",
            "description": "Continue this Mika conversation (its earlier turns are the context); omit for a new one.",
        },
        "max_steps": {"type": "integer", "minimum": 1, "description": "Stop after this many steps."},
        "read_only": {"type": "boolean", "description": "Only read the phone; change nothing."},
    },
    "required": ["goal"],
}

RUN_TASK_DESCRIPTION = (
    "Do a whole task on the user's Android phone with Mika's own agent: it reads the screen, "
    "acts step by step, checks its work and answers. Returns the answer, its sources, the outcome "
    "(answered, not_done, stopped, approval_refused, …) and the run id (read its record at "
    "mika://runs/{id}). Payment steps are asked through elicitation when this client supports it, "
    "refused otherwise; Mika never pays on its own."
)

# The MCP revisions reached through the `initialize` handshake, oldest first, as the SDK
# (mcp_types.version) has them; importing that module loads all of mcp_types (~0.3 s).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def negotiated_version(requested: object) -> str:
    """The SDK's rule: the client's revision when it is one of the handshake's, else the newest."""
    return requested if isinstance(requested, str) and requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def initialize_result(requested: object) -> dict[str, Any]:
    """The `initialize` answer of the face's server: tools and resources (no subscriptions,
    no change notices), its name, version and instructions."""
    return {
        "capabilities": {"resources": {"listChanged": False, "subscribe": False}, "tools": {"listChanged": False}},
        "instructions": INSTRUCTIONS,
        "protocolVersion": negotiated_version(requested),
        "serverInfo": {"name": "mika", "version": __version__},
    }


def _entry(name: str, description: str, schema: dict[str, Any], *, read: bool, external: bool) -> dict[str, Any]:
    return {
        "annotations": {"destructiveHint": not read, "openWorldHint": external, "readOnlyHint": read},
        "description": description,
        "inputSchema": schema,
        "name": name,
    }


def phone_declarations() -> list[Any]:
    """The phone tools' declarations (classes), in PHONE_TOOLS order. Imported here, when
    a phone is there to list them for."""
    from mika.cap.phone.tools.apps import PhoneLaunchApp, PhoneListApps
    from mika.cap.phone.tools.keys import PhoneBack, PhonePressKey
    from mika.cap.phone.tools.observe import PhoneListElements, PhoneObserve, PhoneScreenshot
    from mika.cap.phone.tools.system_actions import (
        PhoneAddCalendarEvent,
        PhoneSetAlarm,
        PhoneSetTimer,
        PhoneShowAlarms,
    )
    from mika.cap.phone.tools.system_command import PhoneSystemCommand
    from mika.cap.phone.tools.text import PhoneClearText, PhoneTypeText
    from mika.cap.phone.tools.touch import PhoneLongPress, PhoneScroll, PhoneSwipe, PhoneTap

    classes = [
        PhoneObserve, PhoneListElements, PhoneTap, PhoneLongPress, PhoneTypeText, PhoneClearText,
        PhoneScroll, PhoneSwipe, PhoneBack, PhonePressKey, PhoneLaunchApp, PhoneListApps,
        PhoneScreenshot, PhoneSetAlarm, PhoneSetTimer, PhoneShowAlarms, PhoneAddCalendarEvent,
        PhoneSystemCommand,
    ]  # fmt: skip
    by_name = {c.name: c for c in classes}
    return [by_name[name] for name in PHONE_TOOLS]


def tool_entries(has_phone: bool) -> list[dict[str, Any]]:
    """`tools/list`'s tools: run_task, and with a phone the phone tools a client may call."""
    from mika.tool.declaration import Risk

    entries = [_entry("run_task", RUN_TASK_DESCRIPTION, RUN_TASK_SCHEMA, read=False, external=True)]
    for tool in phone_declarations() if has_phone else []:
        entries.append(
            _entry(
                tool.name,
                tool.description(),
                dict(tool.parameters),
                read=tool.risk is Risk.READ,
                external=tool.risk is Risk.EXTERNAL,
            )
        )
    return entries
