"""`svc` (wifi, bluetooth, data, power) and the network commands scripts read an IP from."""

from __future__ import annotations

from mika.sim.shell.context import Ctx
from mika.sim.shell.registry import command

WLAN_IP = "192.168.1.23"


@command("svc")
async def svc(ctx: Ctx) -> int:
    args = ctx.args[1:]
    world = ctx.phone.world
    if len(args) >= 2 and args[0] in ("wifi", "bluetooth") and args[1] in ("enable", "disable"):
        world.data["settings"][args[0]] = args[1] == "enable"
        world.changed()
        return 0
    if len(args) >= 2 and args[0] in ("data", "power", "usb", "nfc"):
        return 0
    ctx.print(
        "Available commands:\n    help     Show information about the subcommands\n"
        "    power    Control the power manager\n    data     Control mobile data connectivity\n"
        "    wifi     Control the Wi-Fi manager\n    bluetooth Control Bluetooth service\n"
    )
    return 0 if not args else 1


@command("ifconfig")
async def ifconfig(ctx: Ctx) -> int:
    iface = ctx.args[1] if len(ctx.args) > 1 else "wlan0"
    if iface != "wlan0":
        ctx.error(f"ifconfig: {iface}: No such device")
        return 1
    up = ctx.phone.world.data["settings"].get("wifi")
    ctx.print(
        "wlan0     Link encap:UNSPEC    Driver mika_wifi\n"
        + (f"          inet addr:{WLAN_IP}  Bcast:192.168.1.255  Mask:255.255.255.0 \n" if up else "")
        + f"          {'UP BROADCAST RUNNING MULTICAST' if up else 'BROADCAST MULTICAST'}  MTU:1500  Metric:1\n"
    )
    return 0


@command("ip")
async def ip(ctx: Ctx) -> int:
    up = ctx.phone.world.data["settings"].get("wifi")
    ctx.print(
        "47: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 3000\n"
        "    link/ether 02:00:00:44:55:66 brd ff:ff:ff:ff:ff:ff\n"
        + (
            f"    inet {WLAN_IP}/24 brd 192.168.1.255 scope global wlan0\n       valid_lft forever preferred_lft forever\n"
            if up
            else ""
        )
    )
    return 0
