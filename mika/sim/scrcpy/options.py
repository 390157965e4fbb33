"""The server's `key=value` arguments, parsed as scrcpy 3.3.4's Options.parse does.

Errors carry the exact sentence the real server throws (it prints it as
`[server] ERROR: …` with a Java stack trace and exits 1); unknown keys only warn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

VERSION = "3.3.4"
LEVELS = ("VERBOSE", "DEBUG", "INFO", "WARN", "ERROR")
VIDEO_CODECS = {"h264": 0x68323634, "h265": 0x68323635, "av1": 0x00617631}
IME_POLICIES = ("local", "fallback", "hide")
# Keys the real server accepts that change nothing the simulated phone models.
_ACCEPTED = {
    "audio_codec",
    "video_source",
    "audio_source",
    "audio_dup",
    "video_bit_rate",
    "audio_bit_rate",
    "angle",
    "crop",
    "show_touches",
    "screen_off_timeout",
    "video_codec_options",
    "audio_codec_options",
    "video_encoder",
    "audio_encoder",
    "clipboard_autosync",
    "downsize_on_error",
    "power_on",
    "list_encoders",
    "list_displays",
    "list_cameras",
    "list_camera_sizes",
    "list_apps",
    "camera_id",
    "camera_size",
    "camera_facing",
    "camera_ar",
    "camera_fps",
    "camera_high_speed",
    "capture_orientation",
}


class OptionError(ValueError):
    """What Options.parse throws: `java_class` and the message the server prints."""

    def __init__(self, message: str, java_class: str = "java.lang.IllegalArgumentException") -> None:
        super().__init__(message)
        self.java_class = java_class


@dataclass(frozen=True)
class NewDisplay:
    size: tuple[int, int] | None  # None: the main display's size
    dpi: int  # 0: scaled from the main display's density


@dataclass
class Options:
    scid: int = -1
    log_level: str = "INFO"
    video: bool = True
    audio: bool = True
    control: bool = True
    video_codec: str = "h264"
    max_size: int = 0
    max_fps: float = 0.0
    tunnel_forward: bool = False
    display_id: int = 0
    stay_awake: bool = False
    power_off_on_close: bool = False
    cleanup: bool = True
    new_display: NewDisplay | None = None
    vd_destroy_content: bool = True
    vd_system_decorations: bool = True
    display_ime_policy: str | None = None
    send_device_meta: bool = True
    send_frame_meta: bool = True
    send_dummy_byte: bool = True
    send_codec_meta: bool = True
    unknown: list[str] = field(default_factory=list)  # warned about, as the real server does

    @property
    def socket_name(self) -> str:
        # DesktopConnection.getSocketName: "scrcpy" without scid, else "scrcpy_%08x".
        return "scrcpy" if self.scid == -1 else f"scrcpy_{self.scid:08x}"


def _bool(value: str) -> bool:
    return value.lower() == "true"  # Boolean.parseBoolean


def _int(value: str, radix: int = 10) -> int:
    """Integer.parseInt, with its NumberFormatException sentence."""
    text = value[1:] if value[:1] in "+-" else value
    digits = "0123456789abcdef"[:radix]
    if not text or any(c not in digits for c in text.lower()):
        suffix = "" if radix == 10 else f" under radix {radix}"
        raise OptionError(f'For input string: "{value}"{suffix}', "java.lang.NumberFormatException")
    number = int(value, radix)
    if not -(2**31) <= number < 2**31:
        suffix = "" if radix == 10 else f" under radix {radix}"
        raise OptionError(f'For input string: "{value}"{suffix}', "java.lang.NumberFormatException")
    return number


def _float(key: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise OptionError(f'Invalid float value for {key}: "{value}"') from None


def _size(text: str) -> tuple[int, int]:
    tokens = text.split("x")
    if len(tokens) != 2:
        raise OptionError(f'Invalid size format (expected <width>x<height>): "{text}"')
    width, height = _int(tokens[0]), _int(tokens[1])
    if width <= 0 or height <= 0:
        raise OptionError(f'Invalid non-positive size dimension: "{text}"')
    return width, height


def _new_display(value: str) -> NewDisplay:
    # "", "WxH/dpi", "WxH" or "/dpi"
    if not value:
        return NewDisplay(None, 0)
    tokens = value.split("/")
    size = _size(tokens[0]) if tokens[0] else None
    dpi = 0
    if len(tokens) >= 2:
        dpi = _int(tokens[1])
        if dpi <= 0:
            raise OptionError(f"Invalid non-positive dpi: {tokens[1]}")
    return NewDisplay(size, dpi)


def parse(args: list[str]) -> Options:
    if not args:
        raise OptionError("Missing client version")
    if args[0] != VERSION:
        raise OptionError(f"The server version ({VERSION}) does not match the client ({args[0]})")
    o = Options()
    for arg in args[1:]:
        key, eq, value = arg.partition("=")
        if not eq:
            raise OptionError(f'Invalid key=value pair: "{arg}"')
        if key == "scid":
            o.scid = _int(value, 16)
            if o.scid < -1:
                raise OptionError(f"scid may not be negative (except -1 for 'none'): {o.scid}")
        elif key == "log_level":
            if value.upper() not in LEVELS:
                raise OptionError(f"No enum constant com.genymobile.scrcpy.util.Ln.Level.{value.upper()}")
            o.log_level = value.upper()
        elif (
            key in ("video", "audio", "control", "tunnel_forward", "stay_awake", "power_off_on_close", "cleanup")
            or key in ("vd_destroy_content", "vd_system_decorations")
            or key in ("send_device_meta", "send_frame_meta", "send_dummy_byte", "send_codec_meta")
        ):
            setattr(o, key, _bool(value))
        elif key == "raw_stream":
            if _bool(value):
                o.send_device_meta = o.send_frame_meta = o.send_dummy_byte = o.send_codec_meta = False
        elif key == "video_codec":
            if value not in VIDEO_CODECS:
                raise OptionError(f"Video codec {value} not supported")
            o.video_codec = value
        elif key == "max_size":
            o.max_size = _int(value) & ~7  # a multiple of 8
        elif key == "max_fps":
            o.max_fps = _float("max_fps", value)
        elif key == "display_id":
            o.display_id = _int(value)
        elif key == "new_display":
            o.new_display = _new_display(value)
        elif key == "display_ime_policy":
            if value not in IME_POLICIES:
                raise OptionError(f"Invalid display IME policy: {value}")
            o.display_ime_policy = value
        elif key in _ACCEPTED:
            pass
        else:
            o.unknown.append(key)
    return o
