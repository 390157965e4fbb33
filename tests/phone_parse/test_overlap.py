"""Merging screens by overlap (mika.cap.phone.overlap): rows are whole content, so
repeated texts survive; a screen with no shared row is counted as a gap."""

from __future__ import annotations

from mika.cap.phone.overlap import Merge, Row, ScreenRow, overlap, structured, usable


def msg(sender: str, time: str, text: str, day: str = "") -> Row:
    fields = ([("day_header", day)] if day else []) + [("sender", sender), ("msg_time", time), ("message_text", text)]
    return Row(tuple(fields))


A = msg("王芳", "09:00", "收到", day="12月1日 周二")
B = msg("李雷", "09:00", "收到")  # same text, same minute, another sender
C = msg("王芳", "09:05", "收到")  # same sender and text, another time
D = msg("Tom", "09:06", "OK")
E = msg("Tom", "09:07", "OK")


def test_same_text_rows_by_other_senders_or_times_all_stay():
    m = Merge()
    m.add([C, D, E], toward_start=True)  # the newest screen first
    assert m.add([A, B, C], toward_start=True) == 2  # scrolled up: C repeats
    assert m.rows == [A, B, C, D, E] and m.gaps == 0


def test_down_appends_after_the_overlap():
    m = Merge()
    m.add([A, B, C], toward_start=False)
    m.add([C, D, E], toward_start=False)
    assert m.rows == [A, B, C, D, E]


def test_the_longest_overlap_wins_over_a_shorter_coincidence():
    x = msg("Tom", "10:00", "+1")
    assert overlap([x, x, D], [A, x, x], toward_start=True) == 2


def test_no_shared_row_is_a_gap_not_a_silent_join():
    m = Merge()
    m.add([D, E], toward_start=True)
    m.add([A, B], toward_start=True)
    assert m.rows == [A, B, D, E] and m.gaps == 1


def test_an_outgoing_row_differs_from_an_incoming_one_with_the_same_text():
    mine = Row((("msg_time", "09:06"), ("message_text", "OK")), outgoing=True)
    theirs = Row((("msg_time", "09:06"), ("message_text", "OK")), outgoing=False)
    assert overlap([mine], [theirs], toward_start=True) == 0


def test_edge_rows_merge_only_where_told():
    rows = [ScreenRow(A, True, False), ScreenRow(B, False, False), ScreenRow(C, False, True)]
    assert usable(rows, True, leading=False, trailing=False) == [B]
    assert usable(rows, True, leading=True, trailing=False) == [A, B]
    assert usable(rows, False, leading=False, trailing=True) == [A, B]


def test_a_day_header_carries_to_the_rows_after_it():
    out = structured([A, B, C])
    assert [r["day"] for r in out] == ["12月1日 周二"] * 3
    assert [(r["sender"], r["time"], r["text"]) for r in out] == [
        ("王芳", "09:00", "收到"),
        ("李雷", "09:00", "收到"),
        ("王芳", "09:05", "收到"),
    ]
