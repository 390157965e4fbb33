"""The CNXN identity string, kept to what this adbd actually speaks.

The world writes the banner (product, model, device, features). If it ever lists a
feature whose protocol this wire does not implement, the host would switch to that
protocol (abb_exec, delayed-ack windows, compressed sync) and every command would break
in confusing ways, so such features are dropped here. shell_v2 (mika/sim/adbd/shell_v2.py)
and the sync v2 requests (sync_v2.py) are spoken and pass.
"""

from __future__ import annotations

from .packet import MAX_PAYLOAD_V1

UNSPOKEN_FEATURES = frozenset(
    {
        "abb_exec",
        "delayed_ack",
        "sendrecv_v2_brotli",
        "sendrecv_v2_lz4",
        "sendrecv_v2_zstd",
    }
)


class BannerError(ValueError):
    """The world's banner can't be sent as a CNXN payload."""


def wire_banner(banner: str) -> bytes:
    kind, sep, rest = banner.partition(":")
    if not sep or kind not in ("device", "recovery", "sideload", "rescue", "bootloader"):
        raise BannerError(f"banner must start with 'device::', got {banner[:40]!r}")
    serial, _, props = rest.partition(":")
    kept = []
    for prop in props.split(";"):
        key, eq, value = prop.partition("=")
        if key == "features" and eq:
            value = ",".join(f for f in value.split(",") if f and f not in UNSPOKEN_FEATURES)
            prop = f"features={value}"
        if prop:
            kept.append(prop)
    data = f"{kind}:{serial}:{';'.join(kept)}".encode()
    if len(data) > MAX_PAYLOAD_V1:
        # adb sends CNXN before maxdata is known, so it must fit the old 4 KiB limit.
        raise BannerError(f"banner is {len(data)} bytes; it must fit {MAX_PAYLOAD_V1}")
    return data
