"""Which shell lines phone_system_command may run: an allow-list over every simple command
the line would run (mika/cap/phone/shell_line.py, shell_wrappers.py).

A line runs only when each of its commands is known to read state or change a setting
without touching the screen. Commands that tap, swipe, type, press keys, start
activities or services, broadcast or inject input are refused with the phone tool to use
(`use_phone_tool`): those tools read the screen before and after and run the payment
check, which a raw command would skip. Anything else this module can't place is refused
with its reason (`command_refused`) — not run.

Settings: `settings get/list/put/delete` run, because a setting changes the phone's
state, not what is tapped; the keys that hand the screen to another program (accessibility
services, the input method) or cut Mika's own connection (adb) are refused. `content
query/read` runs; `content insert/update/delete/call` is refused, since it writes an app's
data (messages, contacts, calendar) behind the tools that check it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from mika.cap.phone.shell_line import Redirect, ShellLineError, SimpleCommand, Word
from mika.cap.phone.shell_wrappers import commands_in

USE_PHONE_TOOL = "use_phone_tool"
REFUSED = "command_refused"
BAD = "bad_arguments"

TOUCH = "phone_tap / phone_long_press / phone_swipe / phone_scroll"
TYPE = "phone_type_text"
KEYS = "phone_press_key / phone_back"
LAUNCH = "phone_launch_app / phone_open_link"
SHARE = "phone_share_text"
SCREEN = "the phone tools (phone_tap, phone_type_text, phone_press_key, phone_launch_app)"

MAX_LINE = 8000


@dataclass(frozen=True)
class Verdict:
    runs: bool
    code: str = ""  # empty when the line runs
    reason: str = ""
    tool: str = ""  # the phone tool to use instead (use_phone_tool)
    command: str = ""  # the simple command that decided the refusal

    @staticmethod
    def ok() -> Verdict:
        return Verdict(True)


class _Refuse(Exception):
    def __init__(self, code: str, reason: str, tool: str = "") -> None:
        super().__init__(reason)
        self.code, self.reason, self.tool = code, reason, tool


def _acting(reason: str, tool: str) -> _Refuse:
    return _Refuse(USE_PHONE_TOOL, reason, tool)


def _unknown(reason: str) -> _Refuse:
    return _Refuse(REFUSED, reason)


def judge(line: str) -> Verdict:
    """Whether `line` may run as it is, and if not, why and what to use instead."""
    if len(line) > MAX_LINE:
        return Verdict(
            False,
            BAD,
            f"the command is {len(line):,} characters long; this tool takes up to "
            f"{MAX_LINE:,}. Send a shorter command.",
        )
    try:
        commands = commands_in(line)
    except ShellLineError as exc:
        return Verdict(False, BAD if exc.syntax else REFUSED, exc.reason)
    if not commands:
        return Verdict(False, BAD, "the command is empty (only blanks or comments).")
    first: Verdict | None = None
    for cmd in commands:
        try:
            _check(cmd)
        except _Refuse as r:
            verdict = Verdict(False, r.code, r.reason, r.tool, cmd.show())
            if r.code == USE_PHONE_TOOL:
                return verdict  # the screen-acting part is the one worth naming
            first = first or verdict
    return first or Verdict.ok()


# --- one simple command ----------------------------------------------------------------------

# Variables that change which program runs or what it loads.
_DANGEROUS_VARS = {
    "PATH",
    "IFS",
    "ENV",
    "BASH_ENV",
    "CLASSPATH",
    "BOOTCLASSPATH",
    "SYSTEMSERVERCLASSPATH",
    "SHELL",
    "CDPATH",
    "FPATH",
    "HISTFILE",
}


def _check(cmd: SimpleCommand) -> None:
    for name, _ in cmd.assigns:
        if name in _DANGEROUS_VARS or name.startswith("LD_"):
            raise _unknown(f"`{name}=` changes which program runs or what it loads; leave it out.")
    for r in cmd.redirects:
        _check_redirect(r)
    if not cmd.words:
        return
    name = cmd.name
    args = list(cmd.words[1:])
    kind = _ACTING_PROGRAMS.get(name)
    if kind is not None:
        kind(cmd, args)  # raises
    if not cmd.in_system_bin:
        raise _unknown(
            f"`{cmd.words[0].text}` is a program outside the phone's system folders "
            f"({', '.join(('/system/bin', '/vendor/bin'))} …); only system commands run here."
        )
    rule = _RULES.get(name)
    if rule is None:
        raise _unknown(
            f"`{name}` is not a command this tool runs: it runs only commands that read the phone's "
            "state or change a setting (getprop, dumpsys, pm list, settings, wm size, ls, cat, grep …)."
        )
    if name not in _PURE_READERS:
        for w in args:
            if not w.literal:
                raise _unknown(
                    f"`{w.text}` in `{cmd.show()}` is decided only when the line runs, and `{name}` "
                    "acts on its arguments; write the value out."
                )
        if cmd.more_args:
            raise _unknown(
                f"`xargs {name}` takes arguments from its input, and `{name}` acts on them; "
                "run it with the arguments written out."
            )
    if name not in _READS_DEVICES:
        for w in args:
            if _input_device(w.text):
                raise _acting(f"`{cmd.show()}` uses the input device {w.text}, which injects input", SCREEN)
    rule(cmd, [w.text for w in args])


def _input_device(text: str) -> bool:
    t = text.split("=", 1)[-1]  # dd of=/dev/input/…
    if not t.startswith("/") and ("dev/input" in t or "dev/uinput" in t):
        t = "/" + t
    norm = posixpath.normpath(t) if t.startswith("/") else t
    return norm.startswith(("/dev/input", "/dev/uinput", "/dev/hid"))


_HARMLESS_DEVICES = {"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/full"}


def _check_redirect(r: Redirect) -> None:
    if not r.writes:
        return
    target = r.target
    if not target.literal:
        raise _unknown(
            f"the redirection `{r.op} {target.text}` writes to a file decided only when the line runs; name the file."
        )
    if not target.text.startswith("/"):
        raise _unknown(
            f"the redirection `{r.op} {target.text}` writes to a relative path; give the full path (e.g. /sdcard/…)."
        )
    path = posixpath.normpath(target.text)
    if path in _HARMLESS_DEVICES:
        return
    if _input_device(path):
        raise _acting(f"writing to {path} injects input", SCREEN)
    if path.startswith(("/dev/", "/sys/", "/proc/")) or path in ("/dev", "/sys", "/proc"):
        raise _unknown(
            f"`{r.op} {target.text}` writes to a device or kernel file; only ordinary files "
            "(e.g. /sdcard/…) can be written."
        )


# --- programs that act on the screen -----------------------------------------------------------

_INPUT_KIND = {
    "tap": ("taps the screen", TOUCH),
    "swipe": ("swipes the screen", TOUCH),
    "draganddrop": ("drags on the screen", TOUCH),
    "motionevent": ("injects touches", TOUCH),
    "press": ("presses the trackball", TOUCH),
    "roll": ("rolls the trackball", TOUCH),
    "scroll": ("scrolls the screen", TOUCH),
    "text": ("types text", TYPE),
    "keyevent": ("presses keys", KEYS),
    "keycombination": ("presses keys", KEYS),
}


def _input(cmd: SimpleCommand, args: list[Word]) -> None:
    for w in args:
        if w.text in _INPUT_KIND:
            what, tool = _INPUT_KIND[w.text]
            raise _acting(f"`{cmd.show()}` {what}", tool)
    raise _acting(f"`{cmd.show()}` injects input (every `input` command does)", TOUCH + ", " + TYPE + ", " + KEYS)


_AM_ACTING = {
    "start",
    "start-activity",
    "startservice",
    "start-service",
    "start-foreground-service",
    "startforegroundservice",
    "broadcast",
    "instrument",
    "stack",
    "task",
    "display",
    "start-in-vsync",
    "switch-user",
    "start-user",
    "monitor",
    "profile",
    "crash",
    "restart",
}
_SHARE_ACTIONS = ("android.intent.action.SEND", "android.intent.action.SEND_MULTIPLE")
_INTENT_TOOLS = {
    "android.intent.action.SET_ALARM": "phone_set_alarm",
    "android.intent.action.SET_TIMER": "phone_set_timer",
    "android.intent.action.SHOW_ALARMS": "phone_show_alarms",
    "android.intent.action.INSERT": "phone_add_calendar_event",
    "android.intent.action.VIEW": "phone_open_link",
}


def _subcommand(args: list[str]) -> tuple[str, list[str]]:
    """The first word that is not an option (`--user 0` is skipped), and what follows it."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("--user", "-u") else 1
    return (args[i], args[i + 1 :]) if i < len(args) else ("", [])


def _am(cmd: SimpleCommand, args: list[Word]) -> None:
    texts = [w.text for w in args]
    sub, rest = _subcommand(texts)
    if not all(w.literal for w in args[: len(texts) - len(rest)]):
        raise _unknown(f"the `am` subcommand in `{cmd.show()}` is decided only when the line runs; write it out.")
    if sub in _AM_ACTING and not (sub == "stack" and rest == ["list"]):
        if sub in ("start", "start-activity"):
            action = _option_value(rest, "-a")
            if action in _SHARE_ACTIONS:
                raise _acting(f"`{cmd.show()}` shares text", SHARE)
            if action in _INTENT_TOOLS:
                raise _acting(f"`{cmd.show()}` starts an activity", _INTENT_TOOLS[action])
            raise _acting(f"`{cmd.show()}` starts an activity", LAUNCH)
        if sub == "broadcast" and any("ADB_INPUT" in t for t in rest):
            raise _acting(f"`{cmd.show()}` types through a keyboard app", TYPE)
        raise _acting(f"`am {sub}` starts or steers apps, services or tasks", LAUNCH)


def _option_value(args: list[str], option: str) -> str:
    for i, a in enumerate(args[:-1]):
        if a == option:
            return args[i + 1]
    return ""


def _cmd(cmd: SimpleCommand, args: list[Word]) -> None:
    if not args:
        return
    if not args[0].literal:
        raise _unknown(f"the service in `{cmd.show()}` is decided only when the line runs; write it out.")
    service = args[0].text
    rest = args[1:]
    if service == "input":
        _input(cmd, rest)
    if service == "activity":
        _am(cmd, rest)
    if service in ("statusbar", "media_session", "uimode", "overlay", "accessibility", "uiautomation"):
        raise _acting(f"`cmd {service}` drives the screen or its inputs", SCREEN)


def _monkey(cmd: SimpleCommand, args: list[Word]) -> None:
    raise _acting(f"`{cmd.show()}` launches apps and sends events", LAUNCH)


def _injects(what: str) -> Callable[[SimpleCommand, list[Word]], None]:
    def rule(cmd: SimpleCommand, args: list[Word]) -> None:
        raise _acting(f"`{cmd.show()}` {what}", SCREEN)

    return rule


def _uiautomator(cmd: SimpleCommand, args: list[Word]) -> None:
    if args and args[0].literal and args[0].text == "dump":
        return
    raise _acting(f"`{cmd.show()}` runs UI automation on the screen", SCREEN)


def _service(cmd: SimpleCommand, args: list[Word]) -> None:
    if args and args[0].literal and args[0].text == "call":
        raise _acting(f"`{cmd.show()}` calls a system service directly (input, activity …), past every check", SCREEN)


def _screencap(cmd: SimpleCommand, args: list[Word]) -> None:
    raise _acting(f"`{cmd.show()}` takes a screenshot", "phone_screenshot")


_ACTING_PROGRAMS: dict[str, Callable[[SimpleCommand, list[Word]], None]] = {
    "input": _input,
    "am": _am,
    "cmd": _cmd,
    "monkey": _monkey,
    "sendevent": _injects("writes raw input events"),
    "app_process": _injects("runs Java code on the phone"),
    "app_process32": _injects("runs Java code on the phone"),
    "app_process64": _injects("runs Java code on the phone"),
    "uiautomator": _uiautomator,
    "service": _service,
    "screencap": _screencap,
    "screenrecord": _screencap,
}


# --- programs that run, with what they may be given ------------------------------------------------

Rule = Callable[[SimpleCommand, list[str]], None]


def _any(cmd: SimpleCommand, args: list[str]) -> None:
    return None


def _no_options(*banned: str) -> Rule:
    def rule(cmd: SimpleCommand, args: list[str]) -> None:
        for a in args:
            if a in banned or any(a.startswith(b + "=") for b in banned if b.startswith("--")):
                raise _unknown(f"`{cmd.name} {a}` writes or runs something; this tool doesn't run that.")

    return rule


def _subcommands(allowed: set[str], why: str) -> Rule:
    def rule(cmd: SimpleCommand, args: list[str]) -> None:
        sub, _ = _subcommand(args)
        if sub not in allowed:
            raise _unknown(f"`{cmd.name} {sub}` {why}; this tool runs only `{cmd.name} {'|'.join(sorted(allowed))}`.")

    return rule


_PM_READ = {
    "list",
    "path",
    "dump",
    "resolve-activity",
    "query-activities",
    "query-services",
    "query-receivers",
    "get-install-location",
    "has-feature",
    "list-features",
}
# Settings never changed from here: they switch the keyboard the phone tools type through
# or cut Mika's connection. (Risky settings a person may allow — the lock screen,
# accessibility, install sources, developer options — run after the gated port asked:
# mika/cap/phone/command_reach.py.)
_SETTINGS_GUARDED = {
    "default_input_method",
    "enabled_input_methods",
    "selected_input_method_subtype",
    "adb_enabled",
    "adb_wifi_enabled",
}


def _settings(cmd: SimpleCommand, args: list[str]) -> None:
    sub, rest = _subcommand(args)
    if sub in ("get", "list"):
        return
    if sub in ("put", "delete", "reset"):
        if any(r in _SETTINGS_GUARDED for r in rest):
            key = next(r for r in rest if r in _SETTINGS_GUARDED)
            raise _unknown(
                f"`settings {sub} … {key}` would hand the screen to another program or cut Mika's "
                "connection; that setting is the user's to change."
            )
        return
    raise _unknown(f"`settings {sub}` is not one this tool runs (get, list, put, delete).")


def _wm(cmd: SimpleCommand, args: list[str]) -> None:
    sub, _ = _subcommand(args)
    if sub not in ("size", "density"):
        raise _unknown(f"`wm {sub}` changes the screen's windows; this tool runs only `wm size` and `wm density`.")


def _content(cmd: SimpleCommand, args: list[str]) -> None:
    sub, _ = _subcommand(args)
    if sub not in ("query", "read", "gettype"):
        raise _unknown(
            f"`content {sub}` writes an app's data (messages, contacts, calendar …) behind the tools "
            "that check it; this tool runs only `content query`."
        )


def _svc(cmd: SimpleCommand, args: list[str]) -> None:
    if len(args) == 2 and args[0] in ("wifi", "data", "bluetooth", "nfc") and args[1] in ("enable", "disable"):
        return
    raise _unknown(f"`svc {' '.join(args)}` is not one this tool runs (svc wifi|data|bluetooth|nfc enable|disable).")


def _cmd_rule(cmd: SimpleCommand, args: list[str]) -> None:
    if not args:
        raise _unknown("`cmd` needs a service name.")
    service, rest = args[0], args[1:]
    sub_rules: dict[str, Rule] = {
        "package": _PM,
        "settings": _settings,
        "window": _wm,
        "activity": _subcommands(
            {"stack", "get-current-user", "get-config", "force-stop", "kill"}, "starts or steers apps"
        ),
    }
    if service not in sub_rules:
        raise _unknown(
            f"`cmd {service}` is not a service this tool knows what it does with; it runs `cmd package`, "
            "`cmd settings`, `cmd window` and `cmd activity` reads."
        )
    sub_rules[service](cmd, rest)


_PM = _subcommands(_PM_READ, "changes apps")


def _test(cmd: SimpleCommand, args: list[str]) -> None:
    # Numeric comparisons are evaluated as arithmetic by mksh, which can run commands.
    if any(a in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge") for a in args):
        raise _unknown(
            f"`{cmd.name}` with a numeric comparison evaluates arithmetic, which can run commands; "
            "compare strings instead (=, !=)."
        )


def _uniq(cmd: SimpleCommand, args: list[str]) -> None:
    if len([a for a in args if not a.startswith("-")]) > 1:
        raise _unknown("`uniq IN OUT` writes a file; this tool doesn't run that.")


def _ip(cmd: SimpleCommand, args: list[str]) -> None:
    if any(a in ("add", "del", "delete", "set", "flush", "change", "replace", "append", "exec") for a in args):
        raise _unknown("`ip` that changes the network is not run here; `ip addr` and `ip route` are.")


def _short(limit: int) -> Rule:
    def rule(cmd: SimpleCommand, args: list[str]) -> None:
        if len(args) > limit:
            raise _unknown(f"`{cmd.name}` with arguments changes the network; run it with at most {limit}.")

    return rule


def _alone(cmd: SimpleCommand, args: list[str]) -> None:
    # Wrappers reach here only when they run nothing else: `env` prints, `toybox` lists.
    if cmd.name in ("env", "toybox", "busybox", "command") or not args:
        return
    raise _unknown(f"`{cmd.show()}` is not something this tool runs.")


def _date(cmd: SimpleCommand, args: list[str]) -> None:
    if any(a in ("-s", "--set") or a.startswith("--set=") for a in args):
        raise _unknown("`date -s` sets the clock; this tool doesn't run that.")


_RULES: dict[str, Rule] = {
    **dict.fromkeys(
        (
            "getprop",
            "dumpsys",
            "ls",
            "cat",
            "echo",
            "print",
            "printf",
            "grep",
            "egrep",
            "fgrep",
            "head",
            "tail",
            "wc",
            "stat",
            "file",
            "basename",
            "dirname",
            "readlink",
            "realpath",
            "pwd",
            "true",
            "false",
            "sleep",
            "id",
            "whoami",
            "uname",
            "uptime",
            "df",
            "du",
            "ps",
            "top",
            "free",
            "nproc",
            "getenforce",
            "which",
            "md5sum",
            "sha1sum",
            "sha256sum",
            "cut",
            "tr",
            "base64",
            "od",
            "hexdump",
            "netstat",
            "ping",
            "getevent",
            "lsof",
            "cd",
            "pidof",
            "pgrep",
            ":",
        ),
        _any,
    ),
    "date": _date,
    "test": _test,
    "[": _test,
    "logcat": _no_options("-f", "--file"),
    "find": _no_options("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"),
    "sort": _no_options("-o", "--output"),
    "uniq": _uniq,
    "ip": _ip,
    "ifconfig": _short(1),
    "env": _alone,
    "toybox": _alone,
    "busybox": _alone,
    "command": _alone,
    "pm": _PM,
    "settings": _settings,
    "wm": _wm,
    "am": _subcommands({"force-stop", "kill", "get-current-user", "get-config", "stack"}, "starts or steers apps"),
    "cmd": _cmd_rule,
    "content": _content,
    "service": _subcommands({"list", "check"}, "talks to a system service directly"),
    "svc": _svc,
    "ime": _subcommands({"list"}, "switches the keyboard the phone tools type through"),
    "uiautomator": _subcommands({"dump"}, "runs UI automation"),
}

# Commands that only print what they are given or read: a value decided at run time
# (`echo $PATH`, `ls $DIR`) can't make them do anything else.
_PURE_READERS = {
    "echo",
    "print",
    "printf",
    "ls",
    "cat",
    "grep",
    "egrep",
    "fgrep",
    "head",
    "tail",
    "wc",
    "stat",
    "basename",
    "dirname",
    "getprop",
    "ps",
    "df",
    "du",
    "id",
    "uname",
    "sleep",
    "true",
    "false",
    "pwd",
    "whoami",
    "uptime",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "file",
    "which",
    "readlink",
    "realpath",
    "cut",
    "tr",
    "getenforce",
    "free",
    "nproc",
    "cd",
    "pidof",
    "pgrep",
    ":",
}
# Commands that may name an input device: they read it or list it, never write it.
_READS_DEVICES = {"ls", "cat", "stat", "getevent", "file", "readlink", "realpath", "dumpsys"}
