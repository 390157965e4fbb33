"""The scrcpy video stream → pictures: real H.264 encoded here with PyAV's libx264,
split the way Android's encoder hands it over (config packet, then frames), framed in
scrcpy 3.3.4's socket bytes, parsed and decoded by the product's decoder."""

from __future__ import annotations

import io
import socket
import threading

import pytest
from PIL import Image, ImageDraw

from mika.cap.phone.display.h264_encode import encode_all
from mika.cap.phone.display.packets import (
    FLAG_CONFIG,
    FLAG_KEY_FRAME,
    HEADER,
    StreamHead,
    VideoPacket,
    VideoStreamError,
    encode_stream,
    parse_stream,
)
from mika.cap.phone.display.video import VideoDecoder

W, H = 360, 800


def pictures(n: int, size=(W, H)) -> list[Image.Image]:
    """A bar that moves down the screen and a colour that changes: each frame differs."""
    out = []
    for i in range(n):
        im = Image.new("RGB", size, (20, 20 + 10 * i, 60))
        ImageDraw.Draw(im).rectangle([0, i * 20, size[0], i * 20 + 40], fill=(250, 250, 250))
        out.append(im)
    return out


def test_a_real_stream_decodes_to_pictures_of_the_display_size():
    packets = list(encode_all(pictures(12)))
    assert packets[0].config and not packets[0].key  # SPS/PPS came apart from the key frame
    assert packets[1].key and not packets[1].config
    decoder = VideoDecoder()
    frames = [f for p in packets for f in decoder.feed(p)]
    assert len(frames) == 12
    assert all(f.size == (W, H) for f in frames)
    # The last picture's bar is at y = 220..260: white there, dark above it.
    last = frames[-1].image
    assert min(last.getpixel((W // 2, 240))) > 200
    assert max(last.getpixel((W // 2, 100))) < 200
    assert decoder.stats().frames == 12 and decoder.stats().bad_packets == 0


def test_the_config_packet_is_carried_into_the_next_frame_not_decoded_alone():
    packets = list(encode_all(pictures(3)))
    decoder = VideoDecoder()
    assert decoder.feed(packets[0]) == []  # config: held, nothing decoded yet
    assert decoder.stats().bad_packets == 0
    assert len(decoder.feed(packets[1])) == 1


def test_a_key_frame_without_its_config_is_an_error_said_not_a_crash():
    packets = list(encode_all(pictures(3)))
    decoder = VideoDecoder()
    assert decoder.feed(packets[1]) == []
    assert decoder.stats().bad_packets == 1
    assert "undecodable video packet" in decoder.error and "pts 0" in decoder.error
    # The stream picks up again once a config + key frame arrive.
    assert len(decoder.feed(packets[0])) == 0 and len(decoder.feed(packets[1])) == 1


def test_garbage_and_a_cut_payload_in_the_middle_of_a_stream_do_not_stop_it():
    packets = list(encode_all(pictures(6)))
    decoder = VideoDecoder()
    for p in packets[:3]:
        decoder.feed(p)
    decoder.feed(VideoPacket(99, False, False, b"\x00\x00\x00\x01\x41" + bytes(range(256)) * 3))
    decoder.feed(VideoPacket(100, False, False, packets[3].data[: len(packets[3].data) // 3]))
    # Whatever the decoder made of the broken ones, it is alive and still turns out pictures.
    before = decoder.stats().frames
    for p in encode_all(pictures(2)):
        decoder.feed(p)
    assert decoder.stats().frames > before
    assert decoder.latest().size == (W, H)


def test_the_newest_frame_wins_and_old_ones_are_dropped_not_queued():
    decoder = VideoDecoder()
    for p in encode_all(pictures(10)):
        decoder.feed(p)
    latest = decoder.latest()
    assert latest.number == 10
    assert decoder.stats().dropped == 9  # nobody read 1..9: they were replaced, not kept
    assert decoder.wait_newer(10, timeout=0.01) is None  # nothing newer than what was read
    for p in encode_all(pictures(1)):
        decoder.feed(p)
    assert decoder.wait_newer(10, timeout=1).number == 11
    assert decoder.stats().dropped == 9


def test_a_worker_decodes_a_socket_stream_and_reports_a_truncated_frame():
    """Loopback socket carrying the server's bytes; the stream is cut inside a frame."""
    head = StreamHead("Pixel 8", "h264", W, H)
    packets = list(encode_all(pictures(8)))
    wire = encode_stream(head, packets)
    cut = wire[: len(wire) - len(packets[-1].data) // 2]
    server, client = socket.socketpair()
    threading.Thread(target=lambda: (server.sendall(cut), server.close()), daemon=True).start()
    got_head, stream = parse_stream(client)
    assert got_head == head
    decoder = VideoDecoder()
    decoder.start(stream)
    assert decoder.wait_ended(timeout=30)
    client.close()
    assert "video stream ended inside the frame payload" in decoder.error
    assert decoder.latest() is not None and decoder.latest().number >= 6
    stats = decoder.stats()
    assert stats.decode_ms_median > 0 and stats.decode_ms_p95 >= stats.decode_ms_median


class TestSocketBytes:
    def test_hand_built_bytes_parse_as_the_real_layout(self):
        name = b"SM-S918B".ljust(64, b"\x00")
        meta = (0x68323634).to_bytes(4, "big") + (1080).to_bytes(4, "big") + (2340).to_bytes(4, "big")
        config = FLAG_CONFIG.to_bytes(8, "big") + (3).to_bytes(4, "big") + b"SPS"
        frame = (FLAG_KEY_FRAME | 123456).to_bytes(8, "big") + (4).to_bytes(4, "big") + b"IDR!"
        delta = (123789).to_bytes(8, "big") + (1).to_bytes(4, "big") + b"P"
        head, packets = parse_stream(b"\x00" + name + meta + config + frame + delta)
        assert head == StreamHead("SM-S918B", "h264", 1080, 2340)
        assert list(packets) == [
            VideoPacket(-1, True, False, b"SPS"),
            VideoPacket(123456, False, True, b"IDR!"),
            VideoPacket(123789, False, False, b"P"),
        ]

    def test_headers_are_twelve_bytes_and_round_trip(self):
        p = VideoPacket(42, False, True, b"abc")
        assert len(p.header()) == HEADER.size == 12
        head = StreamHead("x", "h264", 2, 2)
        assert list(parse_stream(encode_stream(head, [p]))[1]) == [p]

    def test_without_dummy_byte_or_device_meta(self):
        meta = (0x68323634).to_bytes(4, "big") + (8).to_bytes(4, "big") + (16).to_bytes(4, "big")
        head, packets = parse_stream(io.BytesIO(meta), dummy_byte=False, device_meta=False)
        assert (head.codec, head.width, head.height, head.device_name) == ("h264", 8, 16, "")
        assert list(packets) == []

    @pytest.mark.parametrize(
        ("wire", "says"),
        [
            (b"", "dummy byte"),
            (b"\x01" + bytes(76), "not scrcpy's dummy byte"),
            (b"\x00" + bytes(30), "device name: expected 64 bytes, got 30"),
            (b"\x00" + bytes(64) + b"\x00\x00", "codec meta"),
            (b"\x00" + bytes(64) + b"abcd" + bytes(8), "unknown video codec id 0x61626364"),
        ],
    )
    def test_a_broken_head_is_a_clear_error(self, wire, says):
        with pytest.raises(VideoStreamError, match=says.replace("(", r"\(")):
            parse_stream(wire)

    def test_other_real_codec_ids_are_named(self):
        head, _ = parse_stream(b"\x00" + bytes(64) + b"h265" + bytes(8))
        assert head.codec == "h265"

    def test_a_cut_header_or_payload_and_an_absurd_size_are_errors(self):
        head = StreamHead("x", "h264", 2, 2)
        wire = encode_stream(head, [VideoPacket(1, False, True, b"abcdef")])
        with pytest.raises(VideoStreamError, match="frame payload: expected 6 bytes, got 2"):
            list(parse_stream(wire[:-4])[1])
        with pytest.raises(VideoStreamError, match="frame header: expected 12 bytes, got 5"):
            list(parse_stream(wire[: 77 + 5])[1])
        huge = encode_stream(head, []) + (1).to_bytes(8, "big") + (0xFFFFFFFF).to_bytes(4, "big")
        with pytest.raises(VideoStreamError, match="out of step"):
            list(parse_stream(huge)[1])
