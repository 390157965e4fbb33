"""`pm install` / `cmd package install…` / `pm uninstall`: the package manager's side of
`adb install`, `adb install-multiple`, `adb uninstall` and adbutils' / uiautomator2's
`pm install PATH`.

adb 36 streams an APK as `exec:cmd package 'install' -S SIZE` with the bytes on stdin
(no abb_exec here), or as an install-create / install-write / install-commit session.
The sim can't run an APK's code, so installing one records what PackageManager would
learn from its manifest (mika/sim/apk): the package with its label, version and
launcher activity joins the phone's apps, its APK is kept at `pm path`'s place, and
launching it opens an empty window of that app (titled with its label). An APK the
phone would refuse fails with the same `Failure [INSTALL_…]` line.
"""

from __future__ import annotations

import posixpath
import random
import zlib

from mika.sim.apk.manifest import ApkError, ApkInfo, read_apk
from mika.sim.shell.context import Ctx
from mika.sim.world.installed import AppDef, ScreenDef
from mika.sim.world.props import sdk_int

SUBCOMMANDS = frozenset(
    {"install", "install-create", "install-write", "install-commit", "install-abandon", "uninstall"}
)
DEFAULT_IME = "com.android.inputmethod.latin/.LatinIME"
_COLORS = ("#3367d6", "#0b8043", "#d50000", "#f4511e", "#8e24aa", "#039be5")


def apk_path(package: str, system: bool) -> str:
    """Where `pm path` says a package's base APK is."""
    if system:
        name = package.rsplit(".", 1)[-1].capitalize()
        return f"/system/priv-app/{name}/{name}.apk"
    return f"/data/app/~~{zlib.crc32(package.encode()) % 10**8:08d}==/{package}-1/base.apk"


async def run(ctx: Ctx, sub: str, args: list[str]) -> int:
    if sub == "install":
        return await _install(ctx, args)
    if sub == "install-create":
        return _create(ctx)
    if sub == "install-write":
        return await _write(ctx, args)
    if sub == "install-commit":
        return _commit(ctx, args)
    if sub == "install-abandon":
        return _abandon(ctx, args)
    return _uninstall(ctx, args)


def _options(args: list[str]) -> tuple[set[str], int | None, list[str]]:
    """(flags, -S size, the rest); options that take a value have theirs skipped."""
    flags: set[str] = set()
    size: int | None = None
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-S" and i + 1 < len(args):
            size = int(args[i + 1]) if args[i + 1].isdigit() else -1
            i += 2
            continue
        if a in ("-i", "--user", "--install-location", "-p", "--originating-uri", "--referrer", "--abi"):
            i += 2
            continue
        if a.startswith("-") and a != "-":
            flags.add(a)
        else:
            rest.append(a)
        i += 1
    return flags, size, rest


async def _stdin(ctx: Ctx, size: int) -> bytes:
    """`-S SIZE` with no file: SIZE bytes of the command's input (the APK adb streams)."""
    if ctx.stdin:
        return ctx.stdin[:size]
    if ctx.host_stdin is not None:
        return (await ctx.host_stdin())[:size]
    data = bytearray()
    while ctx.stream is not None and len(data) < size:
        chunk = await ctx.stream.read()
        if not chunk:
            break
        data += chunk
    return bytes(data[:size])


def _tmp_path() -> str:
    # Where PackageInstaller stages a session's APK; its name is in every parse failure.
    return f"/data/app/vmdl{random.randint(10**8, 2**31 - 1)}.tmp/base.apk"


async def _install(ctx: Ctx, args: list[str]) -> int:
    flags, size, rest = _options(args)
    if size is not None and size >= 0 and (not rest or rest == ["-"]):
        data = await _stdin(ctx, size)
        if len(data) < size:
            ctx.print("Failure [INSTALL_FAILED_INVALID_APK: Failed to write all bytes]\n")
            return 1
    elif rest:
        path = rest[-1]
        stored = ctx.phone.files.read(posixpath.normpath(path))
        if stored is None:
            # PackageManagerShellCommand.setParamsSize prints the error, then throws it.
            ctx.error(
                f"Error: Can't open file: {path}\nException occurred while executing 'install':\n"
                f"java.lang.IllegalArgumentException: Error: Can't open file: {path}"
            )
            return 255
        data = stored
    else:
        ctx.error("Error: must either specify a package size or an APK file")
        return 1
    return _commit_apk(ctx, data, flags)


def _commit_apk(ctx: Ctx, data: bytes, flags: set[str]) -> int:
    world = ctx.phone.world
    try:
        info = read_apk(data, _tmp_path(), sdk_int(world.props))
    except ApkError as exc:
        ctx.print(f"Failure [{exc}]\n")
        return 1
    old = world.apps.get(info.package)
    if old is not None and old.installed_at is None:
        # A built-in app is signed by the platform; no APK of ours carries that key.
        ctx.print(
            f"Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package {info.package} "
            "signatures do not match newer version; ignoring!]\n"
        )
        return 1
    if old is not None and (old.version_code or 0) > info.version_code and "-d" not in flags:
        ctx.print(
            f"Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code "
            f"{info.version_code} is older than current {old.version_code}]\n"
        )
        return 1
    _record(ctx, info, data, old)
    ctx.print("Success\n")
    return 0


def _record(ctx: Ctx, info: ApkInfo, data: bytes, old: AppDef | None) -> None:
    world = ctx.phone.world
    if old is not None:
        world.force_stop(info.package)  # an update stops the running app, as on a phone
    activity = info.launcher_activity or f"{info.package}.MainActivity"
    short = activity[len(info.package) :] if activity.startswith(info.package + ".") else activity
    spec = {"activity": short, "title": info.label, "body": []}
    uid = old.uid if old is not None else max((a.uid for a in world.apps.values()), default=10099) + 1
    app = AppDef(
        package=info.package,
        label=info.label,
        label_zh=info.label,
        main="Main",
        launcher=info.launcher_activity is not None,
        color=_COLORS[uid % len(_COLORS)],
        screens={"Main": ScreenDef("Main", short, spec)},
        uid=uid,
        version_code=info.version_code,
        version_name=info.version_name,
        min_sdk=info.min_sdk,
        target_sdk=info.target_sdk,
        installed_at=world.clock.now(),
        input_methods=tuple(_component(info.package, name) for name in info.input_methods),
    )
    # world.apps may be the app files' shared table: this phone gets its own copy.
    world.apps = {**world.apps, info.package: app}
    if old is not None:
        ctx.phone.files.remove(posixpath.dirname(apk_path(info.package, False)), recursive=True)
    ctx.phone.files.write(apk_path(info.package, False), data, 0o100644, int(world.clock.now()))
    world.changed()


def _component(package: str, name: str) -> str:
    short = name[len(package) :] if name.startswith(package + ".") else name
    return f"{package}/{short}"


def _create(ctx: Ctx) -> int:
    sessions = ctx.phone.install_sessions
    sid = random.randint(10**8, 2**31 - 1)
    while sid in sessions:
        sid += 1
    sessions[sid] = {}
    ctx.print(f"Success: created install session [{sid}]\n")
    return 0


def _session(ctx: Ctx, raw: str) -> dict[str, bytes] | None:
    sessions = ctx.phone.install_sessions
    if raw.isdigit() and int(raw) in sessions:
        return sessions[int(raw)]
    ctx.error(
        f"Exception occurred while executing '{ctx.args[-1] if ctx.args else 'install'}':\n"
        f"java.lang.SecurityException: Caller has no access to session {raw}"
    )
    return None


async def _write(ctx: Ctx, args: list[str]) -> int:
    _flags, size, rest = _options(args)
    if len(rest) < 2:
        ctx.error("Error: must specify a session ID and split name")
        return 1
    session = _session(ctx, rest[0])
    if session is None:
        return 255
    name, source = rest[1], rest[2] if len(rest) > 2 else "-"
    if source == "-":
        data = await _stdin(ctx, size if size is not None and size >= 0 else 1 << 31)
    else:
        stored = ctx.phone.files.read(posixpath.normpath(source))
        if stored is None:
            ctx.error(f"Error: Can't open file: {source}")
            return 1
        data = stored
    session[name] = data
    ctx.print(f"Success: streamed {len(data)} bytes\n")
    return 0


def _commit(ctx: Ctx, args: list[str]) -> int:
    session = _session(ctx, args[0] if args else "")
    if session is None:
        return 255
    del ctx.phone.install_sessions[int(args[0])]
    if not session:
        ctx.print("Failure [INSTALL_FAILED_INVALID_APK: No packages staged in session]\n")
        return 1
    # The base APK is the one whose manifest names no split; the splits (densities,
    # languages, ABIs) add nothing the sim records. Without a base the first one speaks.
    return _commit_apk(ctx, _base(ctx, list(session.values())), set())


def _base(ctx: Ctx, apks: list[bytes]) -> bytes:
    sdk = sdk_int(ctx.phone.world.props)
    for data in apks:
        try:
            if read_apk(data, "", sdk).split is None:
                return data
        except ApkError:
            continue
    return apks[0]


def _abandon(ctx: Ctx, args: list[str]) -> int:
    if _session(ctx, args[0] if args else "") is None:
        return 255
    del ctx.phone.install_sessions[int(args[0])]
    ctx.print("Success\n")
    return 0


def _uninstall(ctx: Ctx, args: list[str]) -> int:
    _flags, _size, rest = _options(args)
    if not rest:
        ctx.error("Error: package name not specified")
        return 1
    world = ctx.phone.world
    app = world.apps.get(rest[-1])
    if app is None or not world.uninstall(app.package):
        # PackageManagerShellCommand.runUninstall for an absent or system package.
        ctx.print("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
        return 1
    for ime in app.input_methods:  # its keyboards go with it; the default one comes back
        if ime in world.imes:
            world.imes.remove(ime)
        if world.ime_id == ime:
            world.ime_id = DEFAULT_IME
            world.extra_settings["secure"]["default_input_method"] = DEFAULT_IME
    ctx.phone.files.remove(posixpath.dirname(apk_path(app.package, False)), recursive=True)
    world.changed()
    ctx.print("Success\n")
    return 0
