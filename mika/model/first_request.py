"""The moment this process's first model request has gone out (its reply's headers are in).

Start-up work that a run wants soon, but not before that request, waits for it: the OCR
model's load (1-3 s of CPU, mika.cap.phone.ocr) begun at the run's start competed with
the start-up for a two-core machine and delayed the first request by ~0.2 s (issue 35,
benchmarks/first_answer.py). Every adapter says when its request is out.
"""

from __future__ import annotations

import threading

_sent = threading.Event()


def request_sent() -> None:
    _sent.set()


def wait_for_first_request(timeout: float) -> bool:
    """True once a request is out; False when `timeout` seconds passed first (a run whose
    model is not called over HTTP, or whose first call is still being prepared)."""
    return _sent.wait(timeout)
