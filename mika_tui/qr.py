"""A QR code drawn with half blocks, so a phone's camera can read it off the terminal."""

from __future__ import annotations

import qrcode


def qr_text(payload: str) -> str:
    qr = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_L)
    qr.add_data(payload)
    qr.make(fit=True)
    matrix = qr.get_matrix()  # True = dark module
    if len(matrix) % 2:
        matrix.append([False] * len(matrix[0]))
    lines = []
    for top, bottom in zip(matrix[0::2], matrix[1::2], strict=False):
        # Light modules are drawn as full blocks: scanners want dark-on-light.
        line = ""
        for t, b in zip(top, bottom, strict=False):
            line += {(False, False): "█", (True, True): " ", (False, True): "▀", (True, False): "▄"}[(t, b)]
        lines.append(line)
    return "\n".join(lines)
