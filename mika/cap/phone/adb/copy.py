"""The user-facing sentences about phones and ADB, in English and Chinese.

The language follows `mika.config.language.ui_language()` (MIKA_LANGUAGE, settings, locale).
Texts for the model (tool results) stay English; these are for people.
"""

from __future__ import annotations

from mika.config.language import ui_language

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "no_device": "No phone is attached. Plug one in with USB debugging on, or `mika connect HOST:PORT` / "
        "`mika pair HOST:PORT CODE` for wireless debugging — or use the simulated phone with --device sim.",
        "several": "{count} phones are attached ({serials}). Pick one with --device SERIAL.",
        "not_found": "No phone {wanted!r} is attached (attached: {listed}). Check `mika devices`.",
        "not_ready": "The phone {serial} is {state}. {hint}",
        "hint_unauthorized": "Unlock the phone and accept the USB debugging prompt.",
        "hint_offline": "Reconnect the cable or Wi-Fi; adb sees it but it does not answer.",
        "hint_other": "Wait until `mika devices` shows it as device.",
        "none_attached": "none",
        "no_devices_listed": "No phones attached. Plug one in with USB debugging on, or use `mika connect` / `mika pair`.",
        "server_no_answer": "The adb server did not answer: {error}",
        "connect_failed": "Could not connect to {address}: {error}",
        "connect_pair_first": "Could not connect to {address}: {answer}. Pair it first with `mika pair HOST:PORT CODE`.",
        "disconnect_failed": "Could not disconnect: {error}",
        "none_connected": "No Wi-Fi phones were connected.",
        "pair_usage": 'Give HOST:PORT and the 6-digit code from "Pair device with pairing code", or use --qr.',
        "bad_code": '{raw!r} is not a pairing code: it must be the 6 digits shown under "Pair device with pairing code".',
        "bad_address": "{address!r} is not HOST:PORT (for example 192.168.1.23:37123).",
        "pair_failed": "Pairing with {address} failed: {error}. Get a fresh code on the phone and try again.",
        "pair_refused": "Pairing with {address} failed: {answer}. Check the code (it changes each time the dialog "
        "opens) and that both are on the same Wi-Fi.",
        "qr_scan": "On the phone: Developer options › Wireless debugging › Pair device with QR code, then scan this.",
        "qr_timeout": "The phone did not show up within {seconds:g} s. Check that both are on the same Wi-Fi and that "
        "the network allows mDNS; or pair with `mika pair HOST:PORT CODE`.",
        "qr_no_connect": "Paired, but the phone did not offer a connection; use `mika connect HOST:PORT` with the port "
        "shown on its wireless debugging page.",
        "pair_server_failed": "The adb server failed during pairing: {error}",
        "bad_server_socket": "ADB_SERVER_SOCKET={spec!r} is not of the form tcp:PORT or tcp:HOST:PORT; fix or unset it.",
        "bad_server_port": "ANDROID_ADB_SERVER_PORT={port!r} is not a port number; fix or unset it.",
        "no_adb": "No adb binary was found: adbutils ships none for this platform and none is on PATH. "
        "Install Android platform-tools.",
        "no_server": "No adb server answers at {host}:{port}. Start it there (adb start-server) or unset "
        "ANDROID_ADB_SERVER_HOST / ADB_SERVER_SOCKET.",
        "server_start_failed": "Could not start the adb server on port {port} with {exe}: {detail}.",
    },
    "zh": {
        "no_device": "没有连接手机。请用 USB 连接并打开 USB 调试，或用 `mika connect 主机:端口` / `mika pair 主机:端口 配对码` "
        "走无线调试；也可以用 --device sim 使用模拟手机。",
        "several": "连接了 {count} 台手机（{serials}）。请用 --device 序列号 选一台。",
        "not_found": "没有连接名为 {wanted!r} 的手机（已连接：{listed}）。请查看 `mika devices`。",
        "not_ready": "手机 {serial} 的状态是 {state}。{hint}",
        "hint_unauthorized": "请解锁手机，并在 USB 调试提示里点「允许」。",
        "hint_offline": "请重新插线或连上 Wi-Fi：adb 看得到它，但它没有响应。",
        "hint_other": "请等到 `mika devices` 显示它为 device。",
        "none_attached": "无",
        "no_devices_listed": "没有连接手机。请用 USB 连接并打开 USB 调试，或使用 `mika connect` / `mika pair`。",
        "server_no_answer": "adb 服务没有响应：{error}",
        "connect_failed": "无法连接 {address}：{error}",
        "connect_pair_first": "无法连接 {address}：{answer}。请先用 `mika pair 主机:端口 配对码` 配对。",
        "disconnect_failed": "无法断开：{error}",
        "none_connected": "没有通过 Wi-Fi 连接的手机。",
        "pair_usage": "请给出 主机:端口 和「使用配对码配对设备」里显示的 6 位配对码，或使用 --qr。",
        "bad_code": "{raw!r} 不是配对码：应为「使用配对码配对设备」下显示的 6 位数字。",
        "bad_address": "{address!r} 不是 主机:端口 的格式（例如 192.168.1.23:37123）。",
        "pair_failed": "与 {address} 配对失败：{error}。请在手机上获取新的配对码后重试。",
        "pair_refused": "与 {address} 配对失败：{answer}。请检查配对码（每次打开配对窗口都会变），并确认两者在同一个 Wi-Fi。",
        "qr_scan": "在手机上打开：开发者选项 › 无线调试 › 使用二维码配对设备，然后扫描这个二维码。",
        "qr_timeout": "{seconds:g} 秒内没有发现手机。请确认两者在同一个 Wi-Fi、网络允许 mDNS；或改用 `mika pair 主机:端口 配对码`。",
        "qr_no_connect": "已配对，但手机没有提供连接；请用 `mika connect 主机:端口`，端口见手机的无线调试页面。",
        "pair_server_failed": "配对时 adb 服务出错：{error}",
        "bad_server_socket": "ADB_SERVER_SOCKET={spec!r} 不是 tcp:端口 或 tcp:主机:端口 的格式；请改正或删除它。",
        "bad_server_port": "ANDROID_ADB_SERVER_PORT={port!r} 不是端口号；请改正或删除它。",
        "no_adb": "找不到 adb：adbutils 没有为这个平台附带，PATH 里也没有。请安装 Android platform-tools。",
        "no_server": "{host}:{port} 上没有 adb 服务在响应。请在那台机器上运行 adb start-server，或删除 "
        "ANDROID_ADB_SERVER_HOST / ADB_SERVER_SOCKET。",
        "server_start_failed": "无法用 {exe} 在端口 {port} 启动 adb 服务：{detail}。",
    },
}


def say(key: str, **fields: object) -> str:
    table = TEXTS.get(ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)
