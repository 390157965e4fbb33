"""The OCR model loads in the background when a run with a phone starts, and a screen that
does not need it never waits for it (issue 35: the first phone_type_text of a run took
3.3 s, nearly all of it loading OCR for a browser's empty start page).

The engine is the real rapidocr one; only *when* its build may finish is held by the test
(a threading.Event before the real build), so "did anything wait for the load" is
answered by the run finishing, not by a clock.
"""

from __future__ import annotations

import subprocess
import sys
import threading

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.ocr import OcrEngine, _rapidocr
from mika.cap.phone.picture import Picture
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run


async def test_the_first_type_on_a_sparse_screen_does_not_wait_for_the_ocr_load(tmp_path, sim_phone):
    release = threading.Event()
    built_in: list[str] = []

    def held_real_engine():
        built_in.append(threading.current_thread().name)
        release.wait()  # the load may finish only once the test says so
        return _rapidocr()

    engine = OcrEngine(held_real_engine)
    early: list[tuple[int, int]] = []

    def ocr(picture: Picture) -> tuple:
        if not engine.ready:
            early.append(picture.size)  # a read that would have waited for the load
            return ()
        return engine.read_text(picture)

    warmed: list[threading.Thread | None] = []
    # uiautomator2's dump (the default backend) has the keyboard's window: what it covers
    # is the keyboard's, not a blank part of the page (the plain dump cannot see it).
    cap = PhoneCapability(
        AdbPort(sim_phone.serial, sim_phone.server.client(), backend="u2"),
        ocr=ocr,
        warm_ocr=lambda: warmed.append(engine.warm()),
    )
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Browser"),
            step("phone_type_text", pick="Search or type web address", text="example.org"),
            "typed",
        ]
    )
    try:
        await make_run(tmp_path, cap, driver).run()
        # The run is over and the model is still not loaded: nothing in it waited.
        assert not engine.ready
        assert early == [], "the start page is blank in the tree and in the pixels: no OCR read"
        assert "example.org" in driver.results[1], driver.results[1]
        assert '"Search or type web address"' in driver.results[1] or "example.org" in driver.results[1]
    finally:
        release.set()
    # It was loading all along, started by the run's start, in a thread of its own.
    assert len(warmed) == 1 and warmed[0] is not None
    warmed[0].join()
    assert engine.ready and built_in == ["ocr-warm"] and engine.built_in == "ocr-warm"


async def test_a_screen_that_needs_ocr_gets_the_model_loaded_once_off_the_event_loop(tmp_path, sim_phone):
    builds: list[str] = []

    def counted_real_engine():
        builds.append(threading.current_thread().name)
        return _rapidocr()

    engine = OcrEngine(counted_real_engine)
    cap = PhoneCapability(
        AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump"),
        ocr=engine.read_text,
        warm_ocr=engine.warm,
    )
    driver = ListingDriver([step("phone_launch_app", app="Reading Report"), step("phone_observe"), "read"])
    await make_run(tmp_path, cap, driver).run()
    # The report's text is only pixels: read with the model the run's start began loading
    # (a read that came first waited for that build, never made a second one).
    assert "K7-4192" in driver.results[1].replace(" ", ""), driver.results[1]
    assert len(builds) == 1 and builds[0] != threading.main_thread().name, builds


def test_a_process_that_ends_during_the_warm_up_waits_for_it_instead_of_aborting():
    # Seen on quick headless runs: the process ended while onnxruntime built its session in
    # the warm-up thread and aborted in C++ ("terminate called without an active
    # exception", exit 134) about one time in five. The child here ends at once after
    # warm(), its first model request out (so the build begins at once): the build's log
    # line shows its exit waited for the build to finish.
    code = (
        "import logging; logging.basicConfig(level=logging.INFO)\n"
        "from mika.model.first_request import request_sent\n"
        "from mika.cap.phone import ocr\n"
        "request_sent()\n"
        "assert ocr.warm() is not None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "OCR engine built in" in done.stderr, done.stderr[-2000:]
    assert "terminate called" not in done.stderr


def test_a_process_that_ends_before_its_first_model_request_does_not_begin_the_build():
    """The warm-up waits for the first model request (so it does not slow it); a process
    that ends first does not begin a build it would then have to wait for."""
    code = (
        "import logging; logging.basicConfig(level=logging.INFO)\n"
        "from mika.cap.phone import ocr\n"
        "assert ocr.warm() is not None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "OCR engine built in" not in done.stderr and "terminate called" not in done.stderr
