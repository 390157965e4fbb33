"""Phone tests run against the simulated phone through a real adb server (tests/adb_env)."""

from __future__ import annotations

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy


@pytest.fixture(params=["dump", "u2"])
def phone_cap(request, sim_phone):
    """A PhoneCapability on a fresh simulated phone, no OCR, once per hierarchy backend:
    plain `uiautomator dump` + `input`, and uiautomator2's server (set-text for CJK)."""
    port = AdbPort(
        sim_phone.serial,
        sim_phone.server.client(),
        backend=request.param,
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
    )
    return PhoneCapability(port)
