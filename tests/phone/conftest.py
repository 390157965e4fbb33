"""Phone tests run against the simulated phone through a real adb server (tests/adb_env)."""

from __future__ import annotations

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy


@pytest.fixture
def phone_cap(sim_phone):
    """A PhoneCapability on a fresh simulated phone, plain `uiautomator dump`, no OCR."""
    port = AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump",
                   reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0))
    return PhoneCapability(port)
