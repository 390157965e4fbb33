"""The pure parts of the judgement rules, on their own."""

from __future__ import annotations

from mika.agent.grounding import Grounding
from mika.agent.intent_gate import Intent, parse_intent
from mika.agent.outcome_judge import Verdict, parse_verdict
from mika.agent.reply_language import ReplyLanguage, count_scripts, dominant_script
from mika.agent.stop_summary import plain_summary, read_record
from mika.observe.evidence import EvidenceLedger
from mika.observe.observation import Observation, ObsKind, Trust
from mika.record.events import ToolCalled, ToolFinished


class TestReplyLanguage:
    def test_han_counts_by_character_and_latin_by_word(self):
        counts = count_scripts("我们到了 hello world")
        assert counts["han"] == 4 and counts["latin"] == 2

    def test_quoted_and_bracketed_text_does_not_count(self):
        assert dominant_script('已经打开 "Google Play Store Settings Page" 了') == "han"
        assert dominant_script("已经打开了（Settings and Privacy Center）") == "han"

    def test_lines_that_only_list_names_do_not_count(self):
        answer = "找到三款：\n- Philips HD9350\n- Xiaomi Kettle Pro\n- Bear ZDH-A15G1\n都在售。"
        assert dominant_script(answer) == "han"
        assert ReplyLanguage.check(answer, "帮我找电水壶") is None

    def test_a_mismatch_names_the_language_wanted(self):
        m = ReplyLanguage.check("The kettle is sold out.", "水壶还有货吗？")
        assert m is not None and m.wanted_name == "Chinese"

    def test_japanese_is_not_taken_for_chinese(self):
        assert dominant_script("ケトルは売り切れです") == "kana"
        assert ReplyLanguage.check("ケトルは売り切れです。", "ケトルはありますか") is None

    def test_too_little_text_is_never_judged(self):
        assert ReplyLanguage.check("OK", "你好吗") is None
        assert ReplyLanguage.check("好的", "") is None


def _ledger(*texts: str) -> EvidenceLedger:
    ledger = EvidenceLedger()
    for t in texts:
        ledger.add(Observation.build(ObsKind.READ, "phone", t, title="screen"))
    return ledger


class TestGrounding:
    def test_numbers_ids_and_quotes_found_in_reads(self):
        ledger = _ledger("Order K-7731 · total ¥1,299.00 · “Arrives Monday”")
        report = Grounding.check('Order K-7731 costs ¥1,299.00 and says "Arrives Monday".', ledger)
        assert report.grounded and report.checked >= 3

    def test_unread_facts_and_wrong_sums_are_named(self):
        report = Grounding.check(
            "Order K-9999 costs 45; 12 + 30 = 45.", _ledger("Order K-7731 costs 42, shipping 12, item 30")
        )
        assert "K-9999" in report.unsupported
        assert report.wrong_sums == ("12 + 30 = 45",)

    def test_a_correct_sum_is_supported(self):
        report = Grounding.check("12 + 30 = 42 in total.", _ledger("shipping 12, item 30"))
        assert report.grounded

    def test_the_users_own_words_count_as_read(self):
        ledger = EvidenceLedger()
        ledger.add(Observation.build(ObsKind.USER_SAID, "user", "order 5521", trust=Trust.TRUSTED))
        assert Grounding.check("Order 5521 is not in the list.", ledger).grounded


def test_parsers_accept_only_their_words():
    assert parse_intent(" Chat. ") is Intent.CHAT and parse_intent("a task") is Intent.UNKNOWN
    assert parse_verdict("not possible\nsold out").verdict is Verdict.NOT_POSSIBLE
    assert parse_verdict("Done").verdict is Verdict.DONE
    assert parse_verdict("I think it went well").verdict is Verdict.UNKNOWN


def test_the_record_counts_outward_actions_only_when_they_ran():
    events = [
        ToolCalled(run_id="r", step=1, call_id="a", name="sim_send", arguments={"text": "hi"}, risk="external"),
        ToolFinished(run_id="r", step=1, call_id="a", name="sim_send", ok=True, text="Sent"),
        ToolCalled(run_id="r", step=2, call_id="b", name="sim_send", arguments={"text": "again"}, risk="external"),
        ToolFinished(run_id="r", step=2, call_id="b", name="sim_send", ok=False, code="refused"),
    ]
    facts = read_record(events)
    assert facts.outward == ("sim_send(text=hi)",)
    assert "1 outward action(s)" in plain_summary(facts, "en")
    assert "1 个对外动作" in plain_summary(facts, "zh")
