"""System properties of the simulated phone (what `getprop` and the CNXN banner say)."""

from __future__ import annotations

PRODUCT = "mika_sim"
MODEL = "Mika Sim Phone"
DEVICE = "mika_sim"

# Features the host may use with us. shell_v2 gives real exit codes and stderr apart;
# stat_v2, ls_v2 and sendrecv_v2 make adb use the sync v2 requests, as with any phone
# since Android 11. Left out on purpose: abb_exec, delayed_ack and compressed sync
# (sendrecv_v2_brotli/lz4/zstd), so the host uses exec: and uncompressed transfers.
FEATURES = (
    "shell_v2",
    "cmd",
    "stat_v2",
    "ls_v2",
    "fixed_push_mkdir",
    "apex",
    "fixed_push_symlink_timestamp",
    "remount_shell",
    "track_app",
    "sendrecv_v2",
    "sendrecv_v2_dry_run_send",
)


def default_props(serial: str, build: dict[str, str] | None = None) -> dict[str, str]:
    """The phone's properties; `build` (a scenario's "props") overrides some, e.g. an older
    Android's ro.build.version.sdk / release / id, and the fingerprint follows them."""
    props = {
        "ro.product.name": PRODUCT,
        "ro.product.model": MODEL,
        "ro.product.device": DEVICE,
        "ro.product.brand": "Mika",
        "ro.product.manufacturer": "Mika",
        "ro.product.board": "sim",
        "ro.product.cpu.abi": "arm64-v8a",
        "ro.product.cpu.abilist": "arm64-v8a,armeabi-v7a,armeabi",
        "ro.build.version.release": "14",
        "ro.build.version.sdk": "34",
        "ro.build.version.security_patch": "2026-11-05",
        "ro.build.id": "UQ1A.240205.004",
        "ro.build.type": "user",
        "ro.build.tags": "release-keys",
        "ro.build.fingerprint": f"Mika/{PRODUCT}/{DEVICE}:14/UQ1A.240205.004/11269751:user/release-keys",
        "ro.build.display.id": "UQ1A.240205.004",
        "ro.serialno": serial,
        "ro.boot.serialno": serial,
        "ro.sf.lcd_density": "440",
        "ro.hardware": "sim",
        "ro.kernel.qemu": "0",
        "ro.secure": "1",
        "ro.debuggable": "0",
        "persist.sys.locale": "en-US",
        "persist.sys.timezone": "UTC",
        "sys.boot_completed": "1",
        "dev.bootcomplete": "1",
        "init.svc.adbd": "running",
        "service.adb.root": "0",
        "gsm.operator.alpha": "Mika Mobile",
        "net.bt.name": "Android",
    }
    if build:
        props.update(build)
        release, build_id = props["ro.build.version.release"], props["ro.build.id"]
        props["ro.build.display.id"] = build_id
        props["ro.build.fingerprint"] = f"Mika/{PRODUCT}/{DEVICE}:{release}/{build_id}/11269751:user/release-keys"
    return props


def sdk_int(props: dict[str, str]) -> int:
    """ro.build.version.sdk as a number (what the framework's Build.VERSION.SDK_INT says)."""
    value = props.get("ro.build.version.sdk", "")
    return int(value) if value.isdigit() else 34


def banner(props: dict[str, str]) -> str:
    return (
        f"device::ro.product.name={props['ro.product.name']};"
        f"ro.product.model={props['ro.product.model']};"
        f"ro.product.device={props['ro.product.device']};"
        f"features={','.join(FEATURES)}"
    )
