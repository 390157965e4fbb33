"""Pure parsers for the text the ADB shell commands print.

No I/O here: each function takes what `adb shell …` returned (bytes or str, in any of
the encodings real setups produce — see `decode.shell_text`) and returns frozen values.
Unknown or missing fields become None rather than errors, because output formats vary
by Android version and vendor; only input that cannot be the command's output at all
raises `ShellOutputError`.
"""

from mika.cap.phone.adb.parse.activity import ResumedActivity, parse_resumed_activities
from mika.cap.phone.adb.parse.battery import BatteryState, parse_battery
from mika.cap.phone.adb.parse.decode import ShellOutputError, shell_text
from mika.cap.phone.adb.parse.display import DisplayInfo, parse_display
from mika.cap.phone.adb.parse.getprop import parse_getprop, sdk_level
from mika.cap.phone.adb.parse.input_dump import InputState, parse_input
from mika.cap.phone.adb.parse.input_method import parse_input_shown
from mika.cap.phone.adb.parse.packages import parse_packages
from mika.cap.phone.adb.parse.power import parse_wakefulness
from mika.cap.phone.adb.parse.surfaceflinger import SfDisplay, parse_surfaceflinger_displays
from mika.cap.phone.adb.parse.usage import CommandUsage, parse_usage
from mika.cap.phone.adb.parse.window import Component, FocusReport, WindowFocus, parse_window_focus
from mika.cap.phone.adb.parse.wm import DensityOverride, SizeOverride, parse_wm_density, parse_wm_size

__all__ = [
    "BatteryState",
    "CommandUsage",
    "Component",
    "DensityOverride",
    "DisplayInfo",
    "FocusReport",
    "InputState",
    "ResumedActivity",
    "SfDisplay",
    "ShellOutputError",
    "SizeOverride",
    "WindowFocus",
    "parse_battery",
    "parse_display",
    "parse_getprop",
    "parse_input",
    "parse_input_shown",
    "parse_packages",
    "parse_resumed_activities",
    "parse_surfaceflinger_displays",
    "parse_usage",
    "parse_wakefulness",
    "parse_window_focus",
    "parse_wm_density",
    "parse_wm_size",
    "sdk_level",
    "shell_text",
]
