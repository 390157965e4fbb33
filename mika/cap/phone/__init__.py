"""The phone capability: operate Android apps over ADB.

`PhoneCapability` (mika.cap.phone.capability) gives the run its phone tools (group
"phone", plus `do_steps` in "screens"), the prompt section, the shared session and the
SurfaceLayer. `open_phone` picks the device (the only one attached, the one named, or the
simulated phone) and builds it; the assembly and the CLI call that.

The package itself imports nothing: its names load with mika.cap.phone.capability at
first use. So the tools' declarations (mika.cap.phone.tools.*: names, descriptions,
schemas, risk) can be read without the phone stack (adbutils, uiautomator2, requests),
which is how `mika mcp` lists them before its phone is attached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mika.cap.phone.adb.devices import DeviceChoiceError
    from mika.cap.phone.capability import LedgerBorrower, PhoneCapability, PhoneOpenError, open_phone

__all__ = ["DeviceChoiceError", "LedgerBorrower", "PhoneCapability", "PhoneOpenError", "open_phone"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from mika.cap.phone import capability

        return getattr(capability, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
