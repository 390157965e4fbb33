"""The payment judgement in the languages people shop in, and every way around it an app
or a page could draw a label: other case, accents dropped or added, fullwidth letters,
invisible characters, look-alike letters, letters spaced out."""

from __future__ import annotations

import unicodedata

import pytest

from mika.action.fold import fold, readings
from mika.action.risk import RiskClass, checkout_like, classify, classify_touch, reads_as_payment, says_due
from mika.action.vocabulary import LANGUAGES
from mika.tool.declaration import ActionTarget

SPEND = (RiskClass.PAY, RiskClass.PAYMENT)

# What the issue found passing as harmless, and the buttons of the world's big shops.
BUTTONS = [
    ("Jetzt kaufen", "de"),
    ("Zahlungspflichtig bestellen", "de"),
    ("Zur Kasse", "de"),
    ("Pagar", "es"),
    ("Finalizar compra", "es/pt"),
    ("Tramitar pedido", "es"),
    ("注文を確定する", "ja"),
    ("レジに進む", "ja"),
    ("Passer la commande", "fr"),
    ("Procéder au paiement", "fr"),
    ("Acquista ora", "it"),
    ("Afrekenen", "nl"),
    ("Kupuję i płacę", "pl"),
    ("Оформить заказ", "ru"),
    ("Оплатити", "uk"),
    ("Satın al", "tr"),
    ("Siparişi tamamla", "tr"),
    ("إتمام الشراء", "ar"),
    ("לקופה", "he"),
    ("구매하기", "ko"),
    ("अभी खरीदें", "hi"),
    ("Beli sekarang", "id"),
    ("Đặt hàng", "vi"),
    ("Thanh toán", "vi"),
    ("สั่งซื้อ", "th"),
    ("Till kassan", "sv"),
    ("Gå til kassen", "da/no"),
    ("Dokončit objednávku", "cs"),
    ("Ολοκλήρωση αγοράς", "el"),
    ("Finalizează comanda", "ro"),
    ("Pénztár", "hu"),
    ("ثبت سفارش", "fa"),
    ("結帳", "zh-Hant"),
    ("提交订单", "zh"),
]


@pytest.mark.parametrize(("label", "lang"), BUTTONS)
def test_a_shops_buy_button_is_a_spend(label, lang):
    assert classify(label).risk in SPEND, (label, lang)
    assert reads_as_payment(label)


def test_at_least_twenty_languages_each_with_every_kind():
    assert len(LANGUAGES) >= 20
    for lang, words in LANGUAGES.items():
        assert words.pay and words.payment and words.due and words.assent, lang


def _phrases(kind: str):
    return [pytest.param(p, id=f"{lang}:{p}") for lang, w in LANGUAGES.items() for p in getattr(w, kind)]


@pytest.mark.parametrize("phrase", _phrases("pay"))
def test_every_pay_phrase_is_the_final_pay(phrase):
    assert classify(phrase).risk is RiskClass.PAY


@pytest.mark.parametrize("phrase", _phrases("payment"))
def test_every_payment_phrase_spends(phrase):
    assert classify(phrase).risk in SPEND


@pytest.mark.parametrize("phrase", _phrases("assent"))
def test_every_assent_word_spends_only_while_an_amount_is_due(phrase):
    assert classify(phrase, "Total ¥23.50").risk in SPEND
    assert classify(phrase).risk is not RiskClass.PAY


@pytest.mark.parametrize("phrase", _phrases("due"))
def test_every_due_phrase_makes_a_priced_screen_a_checkout(phrase):
    assert says_due(phrase)
    assert checkout_like(f"Green tea | {phrase} | 23,50 €")


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


DISGUISES = [
    ("upper", str.upper),
    ("fullwidth", _fullwidth),
    ("zero-width", lambda s: "\u200b".join(s)),
    ("soft hyphen", lambda s: s[:2] + "\u00ad" + s[2:]),
    ("bidi marks", lambda s: "\u202a" + s + "\u202c"),
    ("word joiner", lambda s: s[:1] + "\u2060" + s[1:]),
    ("no-break spaces", lambda s: s.replace(" ", "\u00a0")),
    ("doubled spaces", lambda s: s.replace(" ", "   ")),
]


@pytest.mark.parametrize(("name", "disguise"), DISGUISES, ids=[d[0] for d in DISGUISES])
@pytest.mark.parametrize(("label", "lang"), BUTTONS[:12])
def test_a_disguised_buy_button_is_still_a_spend(label, lang, name, disguise):
    assert classify(disguise(label)).risk in SPEND, (name, disguise(label))


@pytest.mark.parametrize(
    "label",
    [
        "Раy now",  # Cyrillic Р and а
        "Сheckout",  # Cyrillic С
        "Check0ut",  # a zero for the o
        "Βuy now",  # Greek Β
        "C h e c k o u t",
        "P·a·y",
        "B-u-y n-o-w",
        "Pay¥23.50",  # no space before the amount
        "Pay23.50",
        "PAGAR AHORA",
        "Regler maintenant",  # accent dropped
        "Bestätigen und bezahlen",
        "Zaplac",  # ł and ć written plain
        "Dat hang",  # đ and accents written plain
        "ＣＨＥＣＫＯＵＴ",
        "结\u200b算",
        "Check-out",
        "check_out",
    ],
)
def test_a_label_drawn_to_slip_past_is_read_as_shown(label):
    assert classify(label).risk in SPEND, (label, readings(label))


@pytest.mark.parametrize(
    "label",
    [
        "Apagar",  # Spanish: switch off — "pagar" inside it
        "Apagar pantalla",
        "Display",
        "Replay",
        "Border",
        "Payload",
        "Settings",
        "Einstellungen",
        "Zahlen",  # German numbers (the calculator's tab)
        "Regler",  # Swedish and Norwegian: rules
        "Place",  # a map's place, not Polish "płacę"
        "Mùa hè",  # Vietnamese: summer ("mua" unaccented is buy)
        "Purchase history",
        "Order history",
        "購入履歴",
        "Kasseler Straße",  # a street, not "Kasse"
        "Payments are secured by TLS",  # a notice, no step
        "Ode to joy",
    ],
)
def test_words_that_only_look_like_paying_are_not(label):
    got = classify(label).risk
    if label in ("Ode to joy", "Payments are secured by TLS"):
        # Left as the table reads them: "ode" is Turkish "pay"; a sentence naming payments
        # asks once too often rather than never.
        assert got in (*SPEND, RiskClass.NONE)
        return
    assert got is RiskClass.NONE, (label, got)


def test_an_icon_only_button_beside_a_euro_total_is_the_pay_button():
    target = ActionTarget(
        label="",
        kind="tap",
        screen_text="Warenkorb | Grüner Tee | Gesamtsumme | 23,50 €",
        actionable=True,
    )
    assert classify_touch(target).risk is RiskClass.PAYMENT
    assert classify_touch(target).amount == "23,50€"


def test_an_icon_only_button_on_a_priced_list_with_nothing_due_is_no_spend():
    target = ActionTarget(label="", kind="tap", screen_text="Angebote | Grüner Tee | 23,50 €", actionable=True)
    assert classify_touch(target).risk is RiskClass.NONE


def test_assent_in_another_language_next_to_a_total_is_a_spend():
    assert classify("Bestätigen", "Gesamtsumme 23,50 €").risk is RiskClass.PAYMENT
    assert classify("確認", "合計 ¥1,280").risk is RiskClass.PAYMENT
    assert classify("Bestätigen").risk is RiskClass.NONE


def test_fold_keeps_scripts_that_need_their_marks():
    # Hindi, Thai and Korean keep their own marks; Latin, Greek and Cyrillic lose accents.
    assert fold("भुगतान करें") == "भुगतान करें"
    assert fold("ชำระเงิน") == unicodedata.normalize("NFKC", "ชำระเงิน")  # NFKC splits sara am
    assert fold("결제하기") == "결제하기"
    assert fold("Πληρωμή") == "πληρωμη"
    assert fold("ОПЛАТИТЬ") == "оплатить"


@pytest.mark.parametrize(
    "label",
    ["Folding Umbrella · ¥69.00", "Ceramic Mug · ¥35.00", "Smart Scale ¥129.00", "Air Purifier · ¥899.00", "100 items"],
)
def test_a_priced_product_in_a_list_is_no_spend(label):
    # A price's zeros are no "oo" (Tagalog: yes) and no "o": only a zero beside a letter is
    # read as an o ("Check0ut").
    assert classify(label, f"Search results | {label}").risk is RiskClass.NONE
