"""`dumpsys` for the services the ADB layer reads: window, activity, display,
SurfaceFlinger, input_method, power, alarm, battery."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

from mika.sim.apps.frame import IME_PKG, build_frame
from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command
from mika.sim.world.display import Activity, Display, Task
from mika.sim.world.packages import version_code, version_name
from mika.sim.world.props import sdk_int
from mika.sim.world.world import LAUNCHER, World

SHELL_UID = 2000
# Display.FLAG_* names a shell-made virtual display carries, by the Android it runs on: what
# scrcpy 3.3.4 asks for, minus what the framework refuses uid 2000 (TRUSTED and the flags
# that need it from Android 13, OWN_FOCUS from 14; SYSTEM_DECORATIONS is stripped when not
# trusted). Sources: scrcpy NewDisplayCapture.java, AOSP VirtualDisplayAdapter/DisplayManagerService.
_VD_FLAGS_33 = (
    "FLAG_PRESENTATION",
    "FLAG_SHOULD_SHOW_SYSTEM_DECORATIONS",
    "FLAG_TRUSTED",
    "FLAG_OWN_DISPLAY_GROUP",
    "FLAG_ALWAYS_UNLOCKED",
    "FLAG_TOUCH_FEEDBACK_DISABLED",
)
_BUILT_IN_FLAGS = ("FLAG_SECURE", "FLAG_SUPPORTS_PROTECTED_BUFFERS", "FLAG_TRUSTED")


def display_flags(world: World, display: Display) -> tuple[str, ...]:
    if display.id == 0:
        return _BUILT_IN_FLAGS
    sdk = sdk_int(world.props)
    if display.owner != "com.android.shell" or sdk < 33:
        return ("FLAG_PRESENTATION",)
    return _VD_FLAGS_33 + (("FLAG_OWN_FOCUS",) if sdk >= 34 else ())


def _has_own_focus(world: World, display: Display) -> bool:
    """DisplayContent.hasOwnFocus: per-display focus is off on phones, so only a display with
    FLAG_OWN_FOCUS (Android 14) keeps a focused window while another display is on top."""
    return "FLAG_OWN_FOCUS" in display_flags(world, display)


def _focus_of(world: World, display: Display) -> str:
    """mCurrentFocus of one display: the top focused display's window, else null unless the
    display has its own focus (RootWindowContainer.updateFocusedWindowLocked)."""
    if display.id == world.focused_display or _has_own_focus(world, display):
        return _focus_window(world, display.id)
    return "null"


def _virtual_unique_id(display: Display) -> str:
    return f"virtual:{display.owner},{SHELL_UID},{display.name},{display.id - 1}"


def _hex(n: int) -> str:
    return format((n * 2654435761) & 0xFFFFFFF, "07x")


def _record(world: World, task: Task, act: Activity) -> str:
    comp = world.apps[act.package].activity_component(act.screen)
    return f"ActivityRecord{{{act.token} u0 {comp} t{task.id}}}"


def _focus_window(world: World, display_id: int) -> str:
    windows = build_frame(world, display_id)
    if (world.locked or world.shade_open) and display_id == 0:
        return "Window{5c1a7e2 u0 NotificationShade}"
    for window in reversed(windows):
        if window.kind == "dialog":
            if window.package == "android":
                return "Window{3f2b19d u0 AlertDialog}"
            if window.title.endswith("Activity"):
                return f"Window{{{_hex(7)} u0 {window.package}/{window.package}.{window.title}}}"
            continue  # an app's own dialog window carries its activity's name
        if window.kind == "app":
            return f"Window{{{_hex(zlib.crc32(window.title.encode()) & 0xFFFF)} u0 {_full(window.title)}}}"
    return "null"


def _full(title: str) -> str:
    pkg, _, act = title.partition("/")
    return f"{pkg}/{pkg}{act}" if act.startswith(".") else title


def _window(ctx: Ctx, args: list[str]) -> None:
    world = ctx.phone.world
    sections = args[:1] or ["all"]
    section = sections[0]
    if section in ("all", "windows", "w"):
        ctx.print("WINDOW MANAGER WINDOWS (dumpsys window windows)\n")
        n = 0
        task_word = "rootTask" if sdk_int(world.props) >= 31 else "stack"  # renamed in Android 12
        for display in world.displays.values():
            for window in reversed(build_frame(world, display.id)):
                name = _full(window.title) if window.kind == "app" else window.title
                ty = {
                    "app": "BASE_APPLICATION",
                    "status": "STATUS_BAR",
                    "ime": "INPUT_METHOD",
                    "dialog": "APPLICATION",
                    "keyguard": "NOTIFICATION_SHADE",
                    "shade": "NOTIFICATION_SHADE",
                    "toast": "TOAST",
                    "popup": "APPLICATION_SUB_PANEL",
                }[window.kind]
                l, t, r, b = window.root.bounds  # noqa: E741 (left, top, right, bottom)
                ctx.print(
                    f"  Window #{n} Window{{{_hex(n + 7)} u0 {name}}}:\n"
                    f"    mDisplayId={display.id} {task_word}Id={display.top_task.id if display.top_task else -1} mSession=Session{{{_hex(n + 99)} 2202:u0a10086}}\n"
                    f"    mAttrs={{({l},{t})({r - l}x{b - t}) ty={ty} fmt=TRANSLUCENT{' fl=SECURE' if window.secure else ''}}}\n"
                    f"    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false\n"
                    f"    isOnScreen=true\n    isVisible=true\n"
                )
                n += 1
        ctx.print("\n")
        fd = world.focused_display
        ime_target = _focus_window(world, fd)
        ctx.print(
            "  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw392dp w392dp h872dp 440dpi nrml long port finger -keyb/v/h -nav/h}\n"
        )
        if sdk_int(world.props) < 29:
            # Android 9 has one focus for the whole phone, printed once (no per-display focus).
            top = world.displays[fd].top_task
            token = (
                f"AppWindowToken{{{_hex(3)} token=Token{{{_hex(5)} {_record(world, top, top.top)}}}}}"
                if top
                else "null"
            )
            ctx.print(f"  mHasPermanentDpad=false\n  mCurrentFocus={ime_target}\n  mFocusedApp={token}\n")
            ctx.print(f"  mInputMethodTarget={ime_target}\n  mInTouchMode=true\n")
        else:
            ctx.print(f"  mHasPermanentDpad=false\n  mTopFocusedDisplayId={fd}\n")
            ctx.print(
                f"  imeLayeringTarget in display# {fd} {ime_target}\n  imeInputTarget in display# {fd} {ime_target}\n"
            )
            ctx.print("  mInTouchMode=true\n")
    if section in ("all", "policy", "p"):
        locked = "true" if world.locked else "false"
        ctx.print(
            "WINDOW MANAGER POLICY STATE (dumpsys window policy)\n"
            f"    mAwake={'true' if world.screen_on else 'false'}\n    mScreenOnEarly={'true' if world.screen_on else 'false'}\n"
            f"    mShowingDream=false mDreamingLockscreen={locked} mDreamingSleepToken=null\n"
            f"    mKeyguardDelegate\n      KeyguardServiceDelegate\n        showing={locked}\n"
            f"        inputRestricted={locked}\n        secure={'true' if world.pin else 'false'}\n"
        )
    if section in ("all", "displays", "d"):
        ctx.print("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n")
        for display in world.displays.values():
            w, h = display.size
            dens = display.override_density or display.density
            ctx.print(
                f"  Display: mDisplayId={display.id} {'rootTasks' if sdk_int(world.props) >= 31 else 'stacks'}={len(display.tasks)}\n"
                f"    init={display.width}x{display.height} {display.density}dpi cur={w}x{h} app={w}x{h} rng={w}x{w - 63}-{h}x{h - 63}\n"
                f"    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion()\n"
                f'    mDisplayInfo=DisplayInfo{{"{display.name}", displayId {display.id}, real {w} x {h}, largest app {h} x {h}, '
                f"smallest app {w} x {w}, density {dens} ({dens}.0 x {dens}.0) dpi, rotation {display.rotation}, state {'ON' if world.screen_on else 'OFF'}}}\n"
            )
            if sdk_int(world.props) < 29:
                continue  # Android 9 prints the one focus in the windows section
            top = display.top_task
            ctx.print(
                f"  mCurrentFocus={_focus_of(world, display)}\n  mFocusedApp={_record(world, top, top.top) if top else 'null'}\n"
            )


def _task_line(world: World, task: Task, visible: bool) -> str:
    ty = "home" if task.package == LAUNCHER else "standard"
    return (
        f"Task{{{_hex(task.id)} #{task.id} type={ty} A={world.apps[task.package].uid}:{task.package} U=0 "
        f"visible={'true' if visible else 'false'} visibleRequested={'true' if visible else 'false'} mode=fullscreen translucent=false sz={len(task.stack)}}}"
    )


def _activity(ctx: Ctx, args: list[str]) -> None:
    world = ctx.phone.world
    section = args[0] if args else "activities"
    if section in ("activities", "a", "recents", "r"):
        ctx.print("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n")
        if sdk_int(world.props) < 29:
            _activities_android9(ctx, world)
            return
        for display in world.displays.values():
            ctx.print(f"Display #{display.id} (activities from top to bottom):\n")
            for task in reversed(display.tasks):
                visible = task is display.top_task
                ctx.print(f"  * {_task_line(world, task, visible)}\n")
                for i, act in reversed(list(enumerate(task.stack))):
                    comp = world.apps[act.package].activity_component(act.screen)
                    ctx.print(
                        f"    * Hist  #{i}: {_record(world, task, act)}\n"
                        f"      packageName={act.package} processName={act.package}\n"
                        f"      Intent {{ act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 cmp={comp} }}\n"
                        f"      mActivityComponent={comp}\n"
                    )
            t = display.top_task
            if t:
                ctx.print("\n  Resumed activities in task display areas (from top to bottom):\n")
                ctx.print(f"    Resumed: {_record(world, t, t.top)}\n")
            ctx.print("\n")
        fd = world.focused_display
        t = world.displays[fd].top_task
        if t:
            rec = _record(world, t, t.top)
            ctx.print(f"  ResumedActivity: {rec}\n  mResumedActivity: {rec}\n")
            ctx.print(f"  topDisplayFocusedRootTask={_task_line(world, t, True)}\n")
            ctx.print(f"  mFocusedApp={rec}\n")
        return
    if section == "top":
        ctx.print("TASK com.android.activity id=0 userId=0\n")
        for display in world.displays.values():
            t = display.top_task
            if not t:
                continue
            comp = world.apps[t.package].activity_component(t.top.screen)
            ctx.print(
                f"TASK {world.apps[t.package].uid}:{t.package} id={t.id} userId=0\n"
                f"  ACTIVITY {comp} {t.top.token} pid={_pid(world, t.package)}\n"
                f"    Local Activity {t.top.token} State:\n      mResumed=true mStopped=false mFinished=false\n"
                f"      mDisplayId={display.id}\n"
            )
        return
    ctx.print(f"ACTIVITY MANAGER {section.upper()} (dumpsys activity {section})\n")


def _activities_android9(ctx: Ctx, world: World) -> None:
    """Android 9's stacks: one `Stack #N` per task here, `mResumedActivity:` on the top one of
    each display, and one `ResumedActivity:` for the focused display (ActivityStackSupervisor)."""
    for display in world.displays.values():
        ctx.print(f"Display #{display.id} (activities from top to bottom):\n")
        for task in reversed(display.tasks):
            ty = "home" if task.package == LAUNCHER else "standard"
            record = (
                f"TaskRecord{{{_hex(task.id)} #{task.id} A={task.package} U=0 StackId={task.id} sz={len(task.stack)}}}"
            )
            ctx.print(
                f"  Stack #{task.id}: type={ty} mode=fullscreen\n  isSleeping=false\n  mBounds=Rect(0, 0 - 0, 0)\n"
            )
            ctx.print(f"    Task id #{task.id}\n    * {record}\n")
            for i, act in reversed(list(enumerate(task.stack))):
                ctx.print(
                    f"      * Hist #{i}: {_record(world, task, act)}\n"
                    f"          packageName={act.package} processName={act.package}\n"
                )
            ctx.print(f"\n    Running activities (most recent first):\n      {record}\n")
            for i, act in reversed(list(enumerate(task.stack))):
                ctx.print(f"        Run #{i}: {_record(world, task, act)}\n")
            if task is display.top_task:
                ctx.print(f"\n    mResumedActivity: {_record(world, task, task.top)}\n")
            ctx.print("\n")
    t = world.displays[world.focused_display].top_task
    if t:
        ctx.print(f" ResumedActivity: {_record(world, t, t.top)}\n")
        ctx.print(
            f"  mFocusedStack=ActivityStack{{{_hex(t.id + 1)} stackId={t.id} type=standard mode=fullscreen visible=true}}\n"
        )


def _pid(world: World, package: str) -> int:
    return 3000 + world.apps[package].uid % 1000 if package in world.apps else 0


def _display(ctx: Ctx) -> None:
    world = ctx.phone.world
    state = "ON" if world.screen_on else "OFF"
    ctx.print("DISPLAY MANAGER (dumpsys display)\n  mOnlyCode=false\n  mSafeMode=false\n")
    ctx.print(f"  mGlobalDisplayState={state}\n")
    ports = ", ".join(
        f"DisplayViewport{{type={'INTERNAL' if d.id == 0 else 'VIRTUAL'}, valid=true, isActive=true, displayId={d.id}, "
        f"uniqueId='{_unique_id(d)}', physicalPort={d.id if d.id == 0 else 'null'}, orientation={d.rotation}, logicalFrame=Rect(0, 0 - {d.size[0]}, {d.size[1]}), "
        f"physicalFrame=Rect(0, 0 - {d.size[0]}, {d.size[1]}), deviceWidth={d.size[0]}, deviceHeight={d.size[1]}}}"
        for d in world.displays.values()
    )
    ctx.print(f"  mViewports=[{ports}]\n\n")
    ctx.print("Display Adapters: size=4\n  LocalDisplayAdapter\n  VirtualDisplayAdapter\n")
    ctx.print("  OverlayDisplayAdapter\n    mCurrentOverlaySetting=\n    mOverlays: size=0\n  WifiDisplayAdapter\n\n")
    ctx.print(f"Display Devices: size={len(world.displays)}\n")
    for d in world.displays.values():
        flags = ", ".join(display_flags(world, d))
        if d.id == 0:
            ctx.print(
                f'  DisplayDeviceInfo{{"{d.name}": uniqueId="local:0", {d.width} x {d.height}, modeId 1, defaultModeId 1, '
                f"density {d.density}, {d.density}.0 x {d.density}.0 dpi, touch INTERNAL, rotation 0, type INTERNAL, "
                f"state {state}, FLAG_ALLOWED_TO_BE_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, {flags}}}\n"
                "    mAdapter=LocalDisplayAdapter\n    mUniqueId=local:0\n"
            )
        else:
            ctx.print(
                f'  DisplayDeviceInfo{{"{d.name}": uniqueId="{_unique_id(d)}", {d.width} x {d.height}, modeId {d.id + 1}, '
                f"defaultModeId {d.id + 1}, density {d.density}, {d.density}.0 x {d.density}.0 dpi, touch VIRTUAL, rotation 0, "
                f"type VIRTUAL, state ON, owner {d.owner} (uid {SHELL_UID}), {flags}}}\n"
                f"    mAdapter=VirtualDisplayAdapter\n    mUniqueId={_unique_id(d)}\n"
                # VirtualDisplayDevice.dumpLocked: the power controller's state lands here;
                # the info's `state` follows VirtualDisplay.setDisplayState (recent AOSP),
                # which scrcpy never calls, so it stays ON when the framework powers it off.
                f"    mFlags={_vd_flag_bits(d)}\n    mDisplayState={d.state}\n    mStopped=false\n"
            )
    ctx.print(f"\nLogicalDisplayMapper:\n  Logical Displays: size={len(world.displays)}\n")
    for d in world.displays.values():
        w, h = d.size
        dens = d.override_density or d.density
        flags = ", ".join(display_flags(world, d))
        kind = "INTERNAL" if d.id == 0 else "VIRTUAL"
        owner = f", owner {d.owner} (uid {SHELL_UID})" if d.id else ""
        on = state if d.id == 0 else "ON"
        ctx.print(
            f"  Display {d.id}:\n    mDisplayId={d.id}\n    mLayerStack={d.id}\n    mHasContent={'true' if d.tasks else 'false'}\n"
            f"    mPrimaryDisplayDevice={d.name}\n"
            f'    mBaseDisplayInfo=DisplayInfo{{"{d.name}", displayId {d.id}", displayGroupId {d.id}, {flags}, real {d.width} x {d.height}, '
            f"rotation 0, state {on}, type {kind}, density {d.density} ({d.density}.0 x {d.density}.0) dpi{owner}}}\n"
            f'    mOverrideDisplayInfo=DisplayInfo{{"{d.name}", displayId {d.id}", displayGroupId {d.id}, {flags}, real {w} x {h}, '
            f"largest app {h} x {h}, smallest app {w} x {w}, appVsyncOff 1000000, presDeadline 16666666, mode {d.id + 1}, "
            f"defaultMode {d.id + 1}, modes [{{id={d.id + 1}, width={d.width}, height={d.height}, fps=60.0, alternativeRefreshRates=[]}}], "
            f'rotation {d.rotation}, state {on}, type {kind}, uniqueId "{_unique_id(d)}", app {w} x {h}, '
            f"density {dens} ({dens}.0 x {dens}.0) dpi, layerStack {d.id}{owner}, removeMode {1 if d.destroy_content else 0}}}\n"
        )


def _vd_flag_bits(display: Display) -> int:
    # scrcpy's flags (see the research notes): PUBLIC|PRESENTATION|OWN_CONTENT_ONLY|
    # SUPPORTS_TOUCH|ROTATES_WITH_CONTENT, DESTROY_CONTENT_ON_REMOVAL when asked for.
    return 0x1 | 0x2 | 0x8 | 0x40 | 0x80 | (0x100 if display.destroy_content else 0)


def _unique_id(display: Display) -> str:
    return "local:0" if display.id == 0 else _virtual_unique_id(display)


def _surfaceflinger(ctx: Ctx, args: list[str]) -> None:
    world = ctx.phone.world
    if args[:1] in (["--display-id"], ["--displays"]):
        for d in world.displays.values():
            ctx.print(
                f'Display {4619827259835644672 + d.id} (HWC display {d.id}): port={130 + d.id} pnpId=MKA displayName="{d.name}"\n'
            )
        return
    ctx.print("SurfaceFlinger global state:\n")
    for d in world.displays.values():
        w, h = d.size
        ctx.print(f"Display {4619827259835644672 + d.id} HWC layers: {w}x{h}\n")


def _input_method(ctx: Ctx) -> None:
    world = ctx.phone.world
    fd = world.focused_display
    top = world.top_activity(fd)
    shown = bool(top and top.focus and world.ime_visible and not world.locked)
    ctx.print("Current Input Method Manager state:\n  Input Methods:\n")
    for ime in world.imes:
        ctx.print(f"    InputMethod #{world.imes.index(ime)}:\n      mId={ime}\n")
    ctx.print(f"  mCurMethodId={world.ime_id}\n  mCurFocusedWindowSoftInputMode=STATE_UNSPECIFIED|ADJUST_RESIZE\n")
    ctx.print(
        f"  mCurClient=ClientState{{{_hex(7)} mUid={world.apps[top.package].uid if top else 0}}}\n"
        if top
        else "  mCurClient=null\n"
    )
    ctx.print(
        f"  mInputShown={'true' if shown else 'false'}\n  mShowRequested={'true' if shown else 'false'}\n"
        f"  mImeWindowVis={'0x3' if shown else '0x0'}\n  mIsInputViewShown={'true' if shown else 'false'}\n"
        f"  mServedInputConnection={'true' if top and top.focus else 'false'}\n  inputMethodPackage={IME_PKG}\n"
    )


def _power(ctx: Ctx) -> None:
    world = ctx.phone.world
    awake = world.screen_on
    ctx.print(
        f"POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n"
        f"  mWakefulness={'Awake' if awake else 'Asleep'}\n  mWakefulnessChanging=false\n"
        f"  mIsPowered=true\n  mPlugType=2\n  mBatteryLevel=100\n  mStayOn=false\n"
        f"  mHoldingDisplaySuspendBlocker={'true' if awake else 'false'}\n"
        f"  Display Power: state={'ON' if awake else 'OFF'}\n  mScreenOffTimeoutSetting=30000\n"
    )


def _alarm(ctx: Ctx) -> None:
    world = ctx.phone.world
    from mika.sim.world.alarms import next_alarm

    ctx.print("Current Alarm Manager state:\n")
    now = world.clock.local()
    ctx.print(f"  nowRTC={int(world.clock.now() * 1000)}={now.strftime('%Y-%m-%d %H:%M:%S')}\n")
    nxt = next_alarm(world)
    if nxt is None:
        ctx.print("  Next alarm clock information: none\n")
    else:
        when, alarm = nxt
        ctx.print(
            f"  Next alarm clock information:\n    user:0 pendingSend:false time:{int(when.timestamp() * 1000)} "
            f"= {when.strftime('%Y-%m-%d %H:%M:%S')} = +{int((when - now).total_seconds())}s\n"
            f"    com.google.android.deskclock label={alarm.get('label', '')!r}\n"
        )
    ctx.print("  Pending alarm batches: 0\n")


def _battery(ctx: Ctx) -> None:
    ctx.print(
        "Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n"
        "  Dock powered: false\n  Max charging current: 500000\n  Max charging voltage: 5000000\n"
        "  Charge counter: 4000000\n  status: 2\n  health: 2\n  present: true\n  level: 100\n  scale: 100\n"
        "  voltage: 4350\n  temperature: 250\n  technology: Li-ion\n  Charging state: 1\n  Charging policy: 1\n"
        "  Capacity level: 4\n"
    )


def _input(ctx: Ctx) -> None:
    world = ctx.phone.world
    ctx.print(
        f"INPUT MANAGER (dumpsys input)\n\nInput Manager State:\n  Interactive: {'true' if world.screen_on else 'false'}\n"
        "  System UI Lights Out: false\n  Pointer Speed: 0\n\nEvent Hub State:\n  BuiltInKeyboardId: -2\n\n"
        "Input Reader State:\n  Configuration:\n    Viewports:\n      ViewportInternal:\n"
    )
    for d in world.displays.values():
        w, h = d.size
        kind = "INTERNAL" if d.id == 0 else "VIRTUAL"
        ctx.print(
            f"        Viewport: displayId={d.id}, orientation={d.rotation}, uniqueId='local:{d.id}', type={kind}, "
            f"logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {w}, {h}], deviceSize=[{w}, {h}], isActive=true\n"
        )
    ctx.print("\nInput Dispatcher State:\n  DispatchEnabled: true\n  DispatchFrozen: false\n  FocusedApplications:\n")
    for d in world.displays.values():
        t = d.top_task
        if t:
            ctx.print(f"    displayId={d.id}, name='{_record(world, t, t.top)}', dispatchingTimeout=5000ms\n")
    ctx.print("  FocusedWindows:\n")
    for d in world.displays.values():
        focus = _focus_of(world, d)
        if focus != "null":
            ctx.print(f"    displayId={d.id}, name='{focus[len('Window{') : -1]}'\n")
    ctx.print(f"  TopFocusedDisplayId: {world.focused_display}\n")


def _package(ctx: Ctx, args: list[str]) -> None:
    world = ctx.phone.world
    app = world.apps.get(args[0]) if args else None
    if app is None:
        ctx.print("Unable to find package: " + (args[0] if args else "") + "\n")
        return
    flags = "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA" if app.system else "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
    code, name = version_code(app), version_name(app)
    installed = "2026-11-05 10:00:00"
    updated = "2026-11-20 09:30:00"
    if app.installed_at is not None:  # installed from an APK: the phone's clock then
        installed = updated = datetime.fromtimestamp(app.installed_at, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")
    ctx.print(
        f"Packages:\n  Package [{app.package}] ({_hex(app.uid)}):\n    userId={app.uid}\n"
        f"    pkg=Package{{{_hex(app.uid + 1)} {app.package}}}\n"
        f"    versionCode={code} minSdk={app.min_sdk or 26} targetSdk={app.target_sdk or 34}\n"
        f"    versionName={name}\n    flags=[ {flags} ]\n    pkgFlags=[ {flags} ]\n"
        f"    timeStamp={installed}\n    firstInstallTime={installed}\n    lastUpdateTime={updated}\n"
        f"    signatures=PackageSignatures{{{_hex(app.uid + 2)} version:3, signatures:[{_hex(app.uid + 3)}], past signatures:[]}}\n"
        f"    PackageSignatures{{{_hex(app.uid + 2)} [{_hex(app.uid + 3)}]}}\n"
    )


def _extra(value: str, noredact: bool) -> str:
    # NotificationManagerService redacts extras' strings unless --noredact is given.
    return f"String ({value})" if noredact else f"String [length={len(value)}]"


def _notification(ctx: Ctx, args: list[str]) -> None:
    """`dumpsys notification [--noredact]`: the posted records, oldest first (posting order)."""
    world = ctx.phone.world
    world.tick()
    noredact = "--noredact" in args
    ctx.print("Current Notification Manager state:\n  Notification List:\n")
    for note in world.data.get("notifications", []):
        pkg = str(note.get("package", "android"))
        app = world.apps.get(pkg)
        uid = app.uid if app is not None else 1000
        nid, key = note.get("id", 0), note.get("key", "")
        when = int(float(note.get("posted", world.clock.now())) * 1000)
        category = "msg" if pkg == "com.google.android.apps.messaging" else "status"
        ctx.print(
            f"    NotificationRecord(0x{_hex(uid + int(nid))}: pkg={pkg} user=UserHandle{{0}} id={nid} tag=null "
            f"importance=4 key={key}: Notification(channel=default pri=1 contentView=null vibrate=null sound=null "
            f"defaults=0x0 flags=0x10 color=0x00000000 category={category} vis=PRIVATE))\n"
            f"      uid={uid} userId=0\n      opPkg={pkg}\n"
            f"      icon=Icon(typ=RESOURCE pkg={pkg} id=0x7f080{uid % 1000:03d})\n"
            f"      flags=0x10\n      pri=1\n      key={key}\n      seen=false\n      groupKey=0|{pkg}|g:default\n"
            f"      notification=\n        pri=1\n        when={when}\n"
            "        tickerText=null\n"
            f"        extras={{\n"
            f"          android.title={_extra(str(note.get('title', '')), noredact)}\n"
            f"          android.text={_extra(str(note.get('text', '')), noredact)}\n"
            f"          android.subText=null\n          android.showWhen=Boolean (true)\n        }}\n"
            f"      mCreationTimeMs={when}\n      mUpdateTimeMs={when}\n      mInterruptionTimeMs={when}\n"
        )
    ctx.print("\n  mSnoozedNotifications:\n")


@command("dumpsys")
async def dumpsys(ctx: Ctx) -> int:
    args = ctx.args[1:]
    if not args:
        ctx.print(
            "Currently running services:\n  activity\n  alarm\n  battery\n  display\n  input_method\n  notification\n  power\n  SurfaceFlinger\n  window\n"
        )
        return 0
    service, rest = args[0], args[1:]
    if service == "window":
        _window(ctx, rest)
    elif service == "activity":
        _activity(ctx, rest)
    elif service == "display":
        _display(ctx)
    elif service == "SurfaceFlinger":
        _surfaceflinger(ctx, rest)
    elif service == "input_method":
        _input_method(ctx)
    elif service == "power":
        _power(ctx)
    elif service == "alarm":
        _alarm(ctx)
    elif service == "battery":
        _battery(ctx)
    elif service == "package":
        _package(ctx, rest)
    elif service == "input":
        _input(ctx)
    elif service == "notification":
        _notification(ctx, rest)
    else:
        ctx.print(f"Can't find service: {service}\n")
    return 0


def print_get_displays(ctx: Ctx) -> None:
    """`cmd display get-displays` (Android 11+): one `Display id N: DisplayInfo{…}` line
    per display that is on, as DisplayManagerShellCommand prints them. Clients pick the
    display to capture from its `state ON` and `uniqueId` fields."""
    world = ctx.phone.world
    ctx.print("Displays:\n")
    for d in world.displays.values():
        if d.id == 0 and not world.screen_on:
            continue
        w, h = d.size
        dens = d.override_density or d.density
        flags = ", ".join(display_flags(world, d))
        kind = "INTERNAL" if d.id == 0 else "VIRTUAL"
        ctx.print(
            f'  Display id {d.id}: DisplayInfo{{"{d.name}", displayId {d.id}", displayGroupId {d.id}, {flags}, '
            f"real {w} x {h}, largest app {h} x {h}, smallest app {w} x {w}, appVsyncOff 1000000, "
            f"presDeadline 16666666, mode {d.id + 1} 60.0, defaultMode {d.id + 1}, rotation {d.rotation}, state ON, "
            f'committedState ON, type {kind}, uniqueId "{_unique_id(d)}", app {w} x {h}, '
            f"density {dens} ({dens}.0 x {dens}.0) dpi, layerStack {d.id}, removeMode {1 if d.destroy_content else 0}}}\n"
        )
