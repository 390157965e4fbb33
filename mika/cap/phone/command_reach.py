"""What a shell line reaches that the input gate must judge: the risky settings it
changes, and the places (deep links, activities, apps) it would start.

The command rules (mika/cap/phone/command_rules.py) decide whether a line may run at all;
this module reads the same parsed commands for what a person would want to be asked
about. A `settings put secure lockscreen.disabled 1` may run — it is a setting — but it
turns the lock screen off, so the gated port asks first (mika/cap/phone/gated_port.py).
An `am start -d mikashop://checkout` never runs (it starts an activity), but when the
place it names is a checkout, the refusal is the payment rule's, so an unattended run
exits 5 like any other payment step that was held back.

A line that can't be read raises nothing here: the command rules refuse it anyway, and
what can't be read is never run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.cap.phone.shell_line import ShellLineError, SimpleCommand
from mika.cap.phone.shell_wrappers import commands_in


@dataclass(frozen=True)
class SettingChange:
    key: str  # the setting as written ("lockscreen.disabled"), or "every secure setting"
    namespace: str
    value: str  # "" for delete / reset
    meaning: str  # what the change does, in a few words (shown to the person)

    @property
    def described(self) -> str:
        what = f"settings {self.namespace} {self.key}"
        if self.value:
            what += f" = {self.value}"
        return f"{what} ({self.meaning})"


# Settings whose change weakens the phone's protection or hands it to another program.
# Keys as Android names them (Settings.Secure / Global / System, the lock settings
# database); a key matches exactly, or by the prefix given with a trailing dot / underscore.
_RISKY: tuple[tuple[str, str], ...] = (
    ("lockscreen.", "the lock screen"),
    ("lockscreen_", "the lock screen"),
    ("lock_screen_", "the lock screen"),
    ("lock_pattern_", "the lock screen"),
    ("lock_to_app_", "screen pinning"),
    ("screen_lock", "the lock screen"),
    ("trust_agents_initialized", "the lock screen's trust agents"),
    ("enabled_trust_agents", "the lock screen's trust agents"),
    ("install_non_market_apps", "installing apps from unknown sources"),
    ("unknown_sources_default_reversed", "installing apps from unknown sources"),
    ("package_verifier_enable", "checking installed apps for harm"),
    ("package_verifier_user_consent", "checking installed apps for harm"),
    ("verifier_verify_adb_installs", "checking apps installed over USB for harm"),
    ("upload_apk_enable", "checking installed apps for harm"),
    ("enabled_accessibility_services", "an accessibility service (it can read and operate the screen)"),
    ("accessibility_enabled", "accessibility services (they can read and operate the screen)"),
    ("touch_exploration_enabled", "accessibility services (they can read and operate the screen)"),
    ("accessibility_shortcut_target_service", "an accessibility shortcut"),
    ("accessibility_button_targets", "an accessibility shortcut"),
    ("enabled_notification_listeners", "an app that reads every notification"),
    ("enabled_notification_policy_access_packages", "an app that controls Do Not Disturb"),
    ("device_provisioned", "device setup (device admin)"),
    ("user_setup_complete", "device setup (device admin)"),
    ("development_settings_enabled", "developer options"),
    ("mock_location", "fake locations"),
    ("mock_location_app", "fake locations"),
    ("stay_on_while_plugged_in", "the screen staying unlocked while charging"),
)
_NAMESPACES = ("system", "secure", "global")


def _risky_meaning(key: str) -> str:
    k = key.lower()
    for name, meaning in _RISKY:
        if k == name or (name[-1] in "._" and k.startswith(name)):
            return meaning
    return ""


def _after_options(args: list[str]) -> list[str]:
    """The words after `settings`' options (`--user 0`, `--lineage`)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("--user", "-u") else 1
    return args[i:]


def _settings_words(cmd: SimpleCommand) -> list[str] | None:
    """The arguments of a `settings …` or `cmd settings …` command; None for other commands."""
    words = [w.text for w in cmd.words]
    if not words:
        return None
    name = cmd.name
    if name == "settings":
        return words[1:]
    if name == "cmd" and len(words) > 1 and words[1] == "settings":
        return words[2:]
    return None


def _changes_in(cmd: SimpleCommand) -> list[SettingChange]:
    args = _settings_words(cmd)
    if args is None:
        return []
    rest = _after_options(args)
    if not rest:
        return []
    verb, rest = rest[0], _after_options(rest[1:])
    if verb not in ("put", "delete", "reset") or not rest:
        return []
    namespace = rest[0].lower()
    if namespace not in _NAMESPACES:
        return []
    if verb == "reset":
        # `settings reset secure [package | untrusted_defaults …]`: many settings at once,
        # the lock screen's and the install sources' among them.
        return [SettingChange(f"every {namespace} setting", namespace, "", "resets settings to their defaults")]
    if len(rest) < 2:
        return []
    key = rest[1]
    meaning = _risky_meaning(key)
    if not meaning:
        return []
    value = rest[2] if verb == "put" and len(rest) > 2 else ""
    return [SettingChange(key, namespace, value, meaning)]


def settings_changed(line: str) -> list[SettingChange]:
    """The risky settings `line` would change, in order; [] when it changes none (or
    can't be read: then the command rules refuse it)."""
    if "settings" not in line:
        return []  # the cheap way out for the port's own reads (dumpsys, getprop …)
    try:
        commands = commands_in(line)
    except ShellLineError:
        return []
    return [change for cmd in commands for change in _changes_in(cmd)]


_COMPONENT = re.compile(r"^[A-Za-z][\w.]*(?:/[\w.$]+)?$")


def places_started(line: str) -> list[str]:
    """The places an `am start` / `cmd activity start` / `monkey -p` in `line` would open:
    its data URI (`-d`), its component (`-n`), its package, in order."""
    try:
        commands = commands_in(line)
    except ShellLineError:
        return []
    places: list[str] = []
    for cmd in commands:
        words = [w.text for w in cmd.words]
        if cmd.name == "cmd" and len(words) > 1 and words[1] == "activity":
            words = words[1:]
        elif cmd.name not in ("am", "monkey"):
            continue
        places += _places_in(words[1:])
    return places


def _places_in(args: list[str]) -> list[str]:
    found: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-d", "--dat", "-n", "--es", "--eu", "-p", "--package") and i + 1 < len(args):
            if a == "--es" or a == "--eu":
                if i + 2 < len(args):
                    found.append(args[i + 2])  # an extra's value may be the link it opens
                i += 3
                continue
            found.append(args[i + 1])
            i += 2
            continue
        if "://" in a or (_COMPONENT.match(a) and "." in a and a not in ("start", "start-activity")):
            found.append(a)
        i += 1
    return found
