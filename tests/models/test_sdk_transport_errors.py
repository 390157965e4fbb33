"""Transport errors of either HTTP client map to a ModelError, though sdk_errors imports neither.

httpx (the Gemini adapter's client) is looked up among the loaded modules instead of
imported: importing it drags its command line's dependencies (rich, pygments) into every
headless start-up (issue 16, target 5).
"""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import httpx2
import pytest

from mika.model.adapters.sdk_errors import translate
from mika.model.errors import ModelErrorKind


@pytest.mark.parametrize("error", [httpx.ConnectError("refused"), httpx2.ConnectError("refused")])
def test_a_connect_error_of_either_client_is_a_network_error(error):
    got = translate(error, provider="p", model="m", started=False)
    assert got.kind is ModelErrorKind.NETWORK and "ConnectError" in str(got)


@pytest.mark.parametrize("error", [httpx.RemoteProtocolError("cut"), httpx2.RemoteProtocolError("cut")])
def test_a_broken_stream_of_either_client_is_an_incomplete_stream(error):
    assert translate(error, provider="p", model="m", started=True).kind is ModelErrorKind.STREAM_INCOMPLETE


def test_an_error_that_is_not_a_transport_one_is_raised_again():
    with pytest.raises(KeyError):
        translate(KeyError("x"), provider="p", model="m", started=False)


def test_the_openai_adapter_loads_neither_httpx_nor_its_command_line():
    probe = (
        "import json, sys\n"
        "import mika.model.adapters.openai_chat, mika.model.adapters.sdk_errors\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'rich', 'pygments'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout) == []
