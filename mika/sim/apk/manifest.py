"""What PackageManager learns from an APK file before it installs it.

The checks run in the order a phone's installer fails them, each with the failure code
`pm install` prints: not a zip / no manifest (INSTALL_PARSE_FAILED_NOT_APK), a manifest
that doesn't parse or has no package (INSTALL_PARSE_FAILED_BAD_MANIFEST), no signature
(INSTALL_PARSE_FAILED_NO_CERTIFICATES), a minSdk above the phone's (INSTALL_FAILED_OLDER_SDK).
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass

from .arsc import resolve_string
from .axml import Element, Reference, parse
from .chunks import ChunkError

MAIN = "android.intent.action.MAIN"
INPUT_METHOD = "android.view.InputMethod"
LAUNCHER = "android.intent.category.LAUNCHER"
# The APK Signature Scheme v2+ block sits just before the zip's central directory.
_SIG_BLOCK_MAGIC = b"APK Sig Block 42"
_V1_SIGNATURES = (".RSA", ".DSA", ".EC")


class ApkError(Exception):
    """An APK the package manager refuses; `code` is the INSTALL_… name it prints."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class ApkInfo:
    package: str
    version_code: int
    version_name: str | None
    label: str
    min_sdk: int
    target_sdk: int
    launcher_activity: str | None  # the full class name of MAIN/LAUNCHER, if any
    size: int
    input_methods: tuple[str, ...] = ()  # full class names of its InputMethodService(s)
    split: str | None = None  # a split APK's name (config.xxhdpi…); None for the base APK


def read_apk(data: bytes, where: str, sdk: int) -> ApkInfo:
    """`where` is the path the phone names the file by in its messages."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = set(archive.namelist())
        manifest = archive.read("AndroidManifest.xml")
    except (zipfile.BadZipFile, KeyError, OSError, EOFError) as exc:
        raise ApkError(
            "INSTALL_PARSE_FAILED_NOT_APK", f"Failed to parse {where}: Failed to load asset path {where}"
        ) from exc
    try:
        root = parse(manifest)
    except (ChunkError, struct.error, IndexError) as exc:
        raise ApkError(
            "INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION",
            f"Failed to parse {where}: Failed to read manifest from {where}",
        ) from exc
    package = root.attrs.get("package")
    if root.tag != "manifest" or not isinstance(package, str) or not package:
        raise ApkError(
            "INSTALL_PARSE_FAILED_BAD_MANIFEST",
            f"Failed to parse {where}: <manifest> does not specify package",
        )
    if _SIG_BLOCK_MAGIC not in data and not any(
        n.startswith("META-INF/") and n.upper().endswith(_V1_SIGNATURES) for n in names
    ):
        raise ApkError(
            "INSTALL_PARSE_FAILED_NO_CERTIFICATES",
            f"Failed to collect certificates from {where}: Attempt to get length of null array",
        )
    uses_sdk = root.iter("uses-sdk")
    min_sdk = _int(uses_sdk[0].attrs.get("minSdkVersion"), 1) if uses_sdk else 1
    target_sdk = _int(uses_sdk[0].attrs.get("targetSdkVersion"), min_sdk) if uses_sdk else min_sdk
    if min_sdk > sdk:
        raise ApkError(
            "INSTALL_FAILED_OLDER_SDK",
            f"Failed parse during installPackageLI: {where} (at Binary XML file line #7): "
            f"Requires newer sdk version #{min_sdk} (current version is #{sdk})",
        )
    version_name = root.attrs.get("versionName")
    resources = archive.read("resources.arsc") if "resources.arsc" in names else b""
    return ApkInfo(
        package=package,
        version_code=_int(root.attrs.get("versionCode"), 0),
        version_name=_text(version_name, resources),
        label=_label(root, resources) or package,
        min_sdk=min_sdk,
        target_sdk=target_sdk,
        launcher_activity=_launcher(root, package),
        size=len(data),
        input_methods=_input_methods(root, package),
        split=_text(root.attrs.get("split"), b"") or None,
    )


def _int(value: object, default: int) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return default


def _text(value: object, resources: bytes) -> str | None:
    if isinstance(value, Reference):
        return resolve_string(resources, value.id)
    return None if value is None else str(value)


def _label(root: Element, resources: bytes) -> str | None:
    apps = root.iter("application")
    return _text(apps[0].attrs.get("label"), resources) if apps else None


def _launcher(root: Element, package: str) -> str | None:
    for tag in ("activity", "activity-alias"):
        for activity in root.iter(tag):
            for intent in activity.iter("intent-filter"):
                actions = {a.attrs.get("name") for a in intent.iter("action")}
                categories = {c.attrs.get("name") for c in intent.iter("category")}
                if MAIN in actions and LAUNCHER in categories:
                    name = activity.attrs.get("name")  # an alias is started by its own name
                    if isinstance(name, str) and name:
                        return package + name if name.startswith(".") else name
    return None


def _full(name: object, package: str) -> str | None:
    if not isinstance(name, str) or not name:
        return None
    return package + name if name.startswith(".") else name


def _input_methods(root: Element, package: str) -> tuple[str, ...]:
    """Services the system lists as keyboards: those filtering android.view.InputMethod."""
    found = []
    for service in root.iter("service"):
        actions = {a.attrs.get("name") for intent in service.iter("intent-filter") for a in intent.iter("action")}
        name = _full(service.attrs.get("name"), package)
        if INPUT_METHOD in actions and name:
            found.append(name)
    return tuple(found)
