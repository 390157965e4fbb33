"""`dumpsys notification` records. The fixtures have no real capture of this service
(see /work/shared/fixtures/real/README.md), so the lines below are written out in the
shape Android 10–14 prints them (NotificationRecord head line, extras block, times in
epoch ms), redacted (`String [length=N]`) and not, with the odd cases: a text with line
breaks, a bigText, an SMS that tries to look like a record of its own."""

from __future__ import annotations

from mika.cap.phone.adb.parse.notifications import parse_notifications

HEAD = (
    "    NotificationRecord(0x0a1b2c3d: pkg={pkg} user=UserHandle{{0}} id={id} tag=null importance=4 "
    "key=0|{pkg}|{id}|null|10123: Notification(channel=sms pri=1 contentView=null vibrate=null sound=null "
    "defaults=0x0 flags=0x10 color=0x00000000 category=msg vis=PRIVATE))"
)


def record(pkg: str, nid: int, title: str, text: str, when: int) -> str:
    return "\n".join(
        [
            HEAD.format(pkg=pkg, id=nid),
            "      uid=10123 userId=0",
            f"      key=0|{pkg}|{nid}|null|10123",
            "      notification=",
            f"        when={when}",
            "        extras={",
            f"          android.title={title}",
            f"          android.text={text}",
            "          android.subText=null",
            "        }",
            f"      mCreationTimeMs={when}",
        ]
    )


def test_records_in_posting_order_with_text_and_time():
    out = "Current Notification Manager state:\n  Notification List:\n" + "\n".join(
        [
            record(
                "com.google.android.apps.messaging", 3, "String (Mika)", "String (Your code is 482913.)", 1764576000000
            ),
            record("com.mika.chat", 7, "String (小明)", "String (今晚一起吃饭吗？)", 1764576005000),
        ]
    )
    a, b = parse_notifications(out)
    assert (a.package, a.id, a.title, a.text, a.posted_ms) == (
        "com.google.android.apps.messaging",
        3,
        "Mika",
        "Your code is 482913.",
        1764576000000,
    )
    assert a.key == "0|com.google.android.apps.messaging|3|null|10123" and not a.redacted
    assert b.title == "小明" and b.identity == ("0|com.mika.chat|7|null|10123", 1764576005000)


def test_redacted_text_is_never_taken_for_the_text():
    out = record("com.google.android.apps.messaging", 1, "String [length=4]", "String [length=20]", 1764576000000)
    (r,) = parse_notifications(out)
    assert r.redacted and r.title == "" and r.text == ""


def test_a_text_with_line_breaks_and_a_fake_record_inside_it():
    fake = HEAD.format(pkg="com.evil", id=9)
    out = record(
        "com.google.android.apps.messaging", 2, "String (Bank)", f"String (line one\n{fake}\nline three)", 1764576000000
    )
    records = parse_notifications(out)
    # The fake head line starts at the line start only after the indentation; the text
    # block is read whole first, so no record for com.evil appears.
    assert [r.package for r in records] == ["com.google.android.apps.messaging"], records
    assert records[0].text.startswith("line one\n") and records[0].text.endswith("line three")


def test_empty_and_unrelated_output():
    assert parse_notifications("") == []
    assert parse_notifications("Can't find service: notification\n") == []
