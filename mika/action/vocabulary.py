"""The words that spend money, in the languages people shop in.

Four kinds, per language (what each is for is in mika.action.risk):
- `pay`: the final pay ("Pay now", "Pagar", "Jetzt bezahlen", "支付") — handed to the user;
- `payment`: a step that places an order ("Buy now", "Finalizar compra", "注文を確定する");
- `due`: says an amount is owed ("Total", "Gesamtsumme", "合計", "К оплате");
- `assent`: agrees to something ("OK", "Confirmar", "Bestätigen") — a spend only while an
  amount is due.

The phrases are written as a shop prints them; they are looked up in a label's folded
readings (mika.action.fold), so case, accents, fullwidth forms, invisible characters and
look-alike letters don't matter, and a space in a phrase also matches a hyphen, an
underscore or nothing ("check out", "check-out", "checkout"). In scripts that put spaces
between words a phrase must stand as whole words (Spanish "apagar", to switch off, is not
"pagar"); in Chinese, Japanese, Korean and Thai it is found inside a longer label.

Places (links, deep links, activity names) are read by `PLACE_WORDS` (whole words of the
address) and `PLACE_STEMS` (found anywhere in it: `/checkoutnow`, `checkouts/c/7f3a`).
`BENIGN` phrases are taken out of a label before the lookup: they contain a payment word
but name a record or a thing, not a step ("purchase history", "支付宝" the app's name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from mika.action.fold import fold


@dataclass(frozen=True)
class Words:
    pay: tuple[str, ...] = ()
    payment: tuple[str, ...] = ()
    due: tuple[str, ...] = ()
    assent: tuple[str, ...] = ()


LANGUAGES: dict[str, Words] = {
    "en": Words(
        pay=(
            "pay",
            "pay now",
            "confirm pay",
            "confirm and pay",
            "confirm payment",
            "confirm the payment",
            "confirm and pay now",
            "pay with",
            "complete payment",
            "make payment",
            "submit payment",
            "pay securely",
            "tap to pay",
        ),
        payment=(
            "place order",
            "place your order",
            "submit order",
            "buy now",
            "buy",
            "check out",
            "proceed to check out",
            "purchase",
            "confirm order",
            "confirm purchase",
            "complete purchase",
            "complete order",
            "subscribe",
            "order now",
            "approve payment",
            "approve the payment",
            "approve this payment",
            "allow payment",
            "allow this payment",
            "authorize payment",
            "authorise payment",
            "authorize the payment",
            "accept payment",
            "accept the payment",
            "buy with 1-click",
            "add funds",
            "top up",
        ),
        due=("total", "amount due", "subtotal", "to pay", "order total", "grand total", "balance due", "you pay"),
        assent=(
            "allow",
            "approve",
            "accept",
            "confirm",
            "ok",
            "okay",
            "yes",
            "continue",
            "proceed",
            "agree",
            "authorize",
            "authorise",
            "got it",
        ),
    ),
    "zh": Words(
        pay=("支付", "付款", "确认支付", "立即支付", "去支付", "确认付款", "確認付款", "立即付款", "付錢", "付钱"),
        payment=(
            "下单",
            "提交订单",
            "立即购买",
            "购买",
            "去结算",
            "结算",
            "确认订单",
            "立即下单",
            "开通会员",
            "充值",
            "結帳",
            "結算",
            "購買",
            "立即購買",
            "下訂單",
            "提交訂單",
            "確認訂單",
            "買單",
            "买单",
        ),
        due=("合计", "总计", "实付", "应付", "待支付", "合計", "總計", "實付", "應付", "总额", "總額", "小计"),
        assent=("允许", "同意", "批准", "确认", "确定", "继续", "好的", "授权", "允許", "確認", "確定", "繼續", "授權"),
    ),
    "es": Words(
        pay=("pagar", "pagar ahora", "confirmar pago", "confirmar y pagar", "realizar pago", "pagar con"),
        payment=(
            "comprar",
            "comprar ahora",
            "finalizar compra",
            "tramitar pedido",
            "realizar pedido",
            "hacer pedido",
            "confirmar pedido",
            "confirmar compra",
            "ir a pagar",
            "proceder al pago",
            "continuar al pago",
            "pedir ahora",
            "suscribirse",
        ),
        due=("total", "importe", "total a pagar", "importe total", "subtotal", "a pagar"),
        assent=("aceptar", "confirmar", "continuar", "permitir", "si", "de acuerdo", "autorizar", "aprobar"),
    ),
    "pt": Words(
        pay=("pagar", "pagar agora", "efetuar pagamento", "confirmar pagamento", "realizar pagamento"),
        payment=(
            "comprar",
            "comprar agora",
            "finalizar compra",
            "finalizar pedido",
            "fechar pedido",
            "confirmar pedido",
            "concluir compra",
            "ir para o pagamento",
            "continuar para o pagamento",
            "assinar",
        ),
        due=("total", "valor total", "total a pagar", "subtotal", "a pagar"),
        assent=("aceitar", "confirmar", "continuar", "permitir", "sim", "autorizar", "aprovar", "concordo"),
    ),
    "fr": Words(
        pay=(
            "payer",
            "payer maintenant",
            "confirmer et payer",
            "confirmer le paiement",
            "regler maintenant",
            "effectuer le paiement",
        ),
        payment=(
            "acheter",
            "acheter maintenant",
            "commander",
            "passer la commande",
            "passer commande",
            "valider la commande",
            "valider mon panier",
            "finaliser la commande",
            "finaliser l'achat",
            "proceder au paiement",
            "confirmer la commande",
            "s'abonner",
        ),
        due=("total", "montant total", "total a payer", "sous-total", "montant du", "a payer"),
        assent=("accepter", "confirmer", "continuer", "autoriser", "oui", "valider", "approuver", "d'accord"),
    ),
    "de": Words(
        pay=("bezahlen", "jetzt bezahlen", "jetzt zahlen", "zahlung bestatigen", "zahlung abschliessen"),
        payment=(
            "kaufen",
            "jetzt kaufen",
            "zur kasse",
            "kasse",
            "bestellen",
            "jetzt bestellen",
            "zahlungspflichtig bestellen",
            "kostenpflichtig bestellen",
            "kaufen und bezahlen",
            "bestellung abschicken",
            "bestellung absenden",
            "bestellung aufgeben",
            "kauf abschliessen",
            "abonnieren",
        ),
        due=("gesamt", "gesamtsumme", "summe", "zu zahlen", "gesamtbetrag", "zwischensumme", "betrag"),
        assent=(
            "zulassen",
            "erlauben",
            "bestatigen",
            "akzeptieren",
            "weiter",
            "fortfahren",
            "ja",
            "zustimmen",
            "genehmigen",
        ),
    ),
    "it": Words(
        pay=("paga", "paga ora", "pagare", "procedi al pagamento", "conferma pagamento", "conferma e paga"),
        payment=(
            "acquista",
            "acquista ora",
            "compra ora",
            "procedi all'acquisto",
            "conferma ordine",
            "effettua ordine",
            "invia ordine",
            "cassa",
            "vai alla cassa",
            "completa l'acquisto",
            "ordina ora",
        ),
        due=("totale", "importo", "totale da pagare", "subtotale", "da pagare"),
        assent=("consenti", "conferma", "accetta", "continua", "si", "autorizza", "approva"),
    ),
    "nl": Words(
        pay=("betalen", "nu betalen", "betaal", "betaling bevestigen"),
        payment=(
            "afrekenen",
            "kopen",
            "nu kopen",
            "bestellen",
            "bestelling plaatsen",
            "bestellen en betalen",
            "bestelling afronden",
            "koop nu",
        ),
        due=("totaal", "te betalen", "subtotaal", "totaalbedrag"),
        assent=("toestaan", "bevestigen", "akkoord", "doorgaan", "ja", "accepteren", "goedkeuren"),
    ),
    "pl": Words(
        pay=("zaplac", "zaplac teraz", "potwierdz platnosc", "przejdz do platnosci"),
        payment=(
            "kup",
            "kup teraz",
            "kupuje i place",
            "zamawiam i place",
            "zloz zamowienie",
            "przejdz do kasy",
            "do kasy",
            "zamow",
            "zamawiam",
            "potwierdz zamowienie",
        ),
        due=("razem", "suma", "do zaplaty", "lacznie", "kwota"),
        assent=("zezwol", "potwierdz", "akceptuj", "dalej", "kontynuuj", "tak", "zgadzam sie"),
    ),
    "ru": Words(
        pay=("оплатить", "оплатить сейчас", "подтвердить оплату", "перейти к оплате", "заплатить"),
        payment=(
            "купить",
            "купить сейчас",
            "оформить заказ",
            "перейти к оформлению",
            "заказать",
            "подтвердить заказ",
            "подписаться",
        ),
        due=("итого", "к оплате", "сумма", "всего"),
        assent=("разрешить", "подтвердить", "принять", "продолжить", "да", "согласен", "ок"),
    ),
    "uk": Words(
        pay=("оплатити", "сплатити", "підтвердити оплату", "перейти до оплати"),
        payment=("купити", "купити зараз", "оформити замовлення", "замовити", "підтвердити замовлення"),
        due=("разом", "до сплати", "сума", "всього"),
        assent=("дозволити", "підтвердити", "прийняти", "продовжити", "так"),
    ),
    "tr": Words(
        pay=("ode", "simdi ode", "odeme yap", "odemeyi onayla", "odemeye gec"),
        payment=(
            "satin al",
            "hemen al",
            "sepeti onayla",
            "siparisi tamamla",
            "siparisi onayla",
            "alisverisi tamamla",
            "siparis ver",
        ),
        due=("toplam", "odenecek tutar", "ara toplam", "tutar"),
        assent=("izin ver", "onayla", "kabul et", "devam", "devam et", "evet", "tamam"),
    ),
    "ar": Words(
        pay=("ادفع", "ادفع الآن", "الدفع", "الدفع الآن", "تأكيد الدفع", "إتمام الدفع"),
        payment=("اشتر الآن", "شراء", "اشتري الآن", "إتمام الشراء", "تأكيد الطلب", "إتمام الطلب", "اطلب الآن"),
        due=("المجموع", "الإجمالي", "المبلغ المستحق", "المجموع الفرعي"),
        assent=("السماح", "تأكيد", "موافق", "متابعة", "نعم", "قبول"),
    ),
    "he": Words(
        pay=("לתשלום", "שלם", "שלם עכשיו", "אישור תשלום"),
        payment=("קנה עכשיו", "לקופה", "רכישה", "בצע הזמנה", "השלם הזמנה"),
        due=('סה"כ', "סך הכל", "לתשלום"),
        assent=("אשר", "אישור", "המשך", "כן", "מסכים"),
    ),
    "ja": Words(
        pay=("支払う", "お支払い", "支払いを確定", "決済", "決済する", "今すぐ支払う"),
        payment=(
            "購入",
            "購入する",
            "今すぐ購入",
            "注文を確定する",
            "注文を確定",
            "注文する",
            "レジに進む",
            "ご購入手続き",
            "注文確定",
            "今すぐ買う",
        ),
        due=("合計", "お支払い金額", "小計", "ご請求額"),
        assent=("許可", "確認", "同意", "続ける", "はい", "承認"),
    ),
    "ko": Words(
        pay=("결제", "결제하기", "지금 결제", "결제 확인"),
        payment=("구매", "구매하기", "바로구매", "바로 구매", "주문하기", "주문 확정", "주문"),
        due=("합계", "총 결제금액", "결제금액", "총액", "총 금액"),
        assent=("허용", "확인", "동의", "계속", "승인"),
    ),
    "hi": Words(
        pay=("भुगतान करें", "अभी भुगतान करें", "भुगतान"),
        payment=("अभी खरीदें", "खरीदें", "ऑर्डर करें", "ऑर्डर दें", "चेकआउट"),
        due=("कुल", "कुल राशि", "देय राशि"),
        assent=("अनुमति दें", "पुष्टि करें", "जारी रखें", "हाँ", "स्वीकार करें"),
    ),
    "id": Words(
        pay=("bayar", "bayar sekarang", "lanjut ke pembayaran", "konfirmasi pembayaran"),
        payment=("beli", "beli sekarang", "buat pesanan", "pesan sekarang", "checkout sekarang", "lanjut bayar"),
        due=("total", "total bayar", "total pembayaran", "jumlah", "subtotal"),
        assent=("izinkan", "konfirmasi", "lanjutkan", "ya", "setuju", "terima"),
    ),
    "ms": Words(
        pay=("bayar", "bayar sekarang", "buat pembayaran"),
        payment=("beli", "beli sekarang", "buat pesanan", "tempah sekarang"),
        due=("jumlah", "jumlah keseluruhan"),
        assent=("benarkan", "sahkan", "teruskan", "ya", "setuju"),
    ),
    "vi": Words(
        pay=("thanh toan", "thanh toan ngay", "xac nhan thanh toan"),
        payment=("mua ngay", "dat hang", "xac nhan dat hang", "dat mua"),
        due=("tong cong", "tong tien", "thanh tien", "tam tinh"),
        assent=("cho phep", "xac nhan", "dong y", "tiep tuc", "co"),
    ),
    "th": Words(
        pay=("ชำระเงิน", "ชำระ", "จ่ายเงิน"),
        payment=("ซื้อเลย", "ซื้อ", "สั่งซื้อ", "ยืนยันการสั่งซื้อ", "เช็คเอาท์"),
        due=("รวม", "ยอดรวม", "ยอดชำระ", "ยอดที่ต้องชำระ"),
        assent=("อนุญาต", "ยืนยัน", "ตกลง", "ดำเนินการต่อ", "ใช่", "ยอมรับ"),
    ),
    "sv": Words(
        pay=("betala", "betala nu", "bekrafta betalning"),
        payment=("kop", "kop nu", "till kassan", "slutfor kop", "lagg order", "slutfor bestallning", "bestall"),
        due=("totalt", "summa", "att betala", "delsumma"),
        assent=("tillat", "bekrafta", "godkann", "fortsatt", "ja", "acceptera"),
    ),
    "da": Words(
        pay=("betal", "betal nu", "gennemfor betaling"),
        payment=("kob", "kob nu", "ga til kassen", "til kassen", "bestil", "gennemfor kob", "afgiv ordre"),
        due=("i alt", "total", "at betale"),
        assent=("tillad", "bekraft", "godkend", "fortsaet", "ja", "accepter"),
    ),
    "no": Words(
        pay=("betal", "betal na", "fullfor betaling"),
        payment=("kjop", "kjop na", "ga til kassen", "til kassen", "bestill", "fullfor kjop", "send bestilling"),
        due=("totalt", "sum", "a betale"),
        assent=("tillat", "bekreft", "godkjenn", "fortsett", "ja", "aksepter"),
    ),
    "cs": Words(
        pay=("zaplatit", "zaplatit nyni", "potvrdit platbu"),
        payment=("koupit", "koupit nyni", "objednat", "dokoncit objednavku", "k pokladne", "objednat a zaplatit"),
        due=("celkem", "k uhrade", "mezisoucet"),
        assent=("povolit", "potvrdit", "prijmout", "pokracovat", "ano", "souhlasim"),
    ),
    "el": Words(
        pay=("πληρωμη", "πληρωστε", "πληρωσε", "πληρωμη τωρα", "επιβεβαιωση πληρωμης"),
        payment=("αγορασε", "αγορασε τωρα", "ολοκληρωση αγορας", "ταμειο", "υποβολη παραγγελιας"),
        due=("συνολο", "συνολικο ποσο", "πληρωτεο"),
        assent=("επιτρεψτε", "επιβεβαιωση", "αποδοχη", "συνεχεια", "ναι"),
    ),
    "ro": Words(
        pay=("plateste", "plateste acum", "confirma plata"),
        payment=("cumpara", "cumpara acum", "finalizeaza comanda", "plaseaza comanda", "trimite comanda"),
        due=("total", "total de plata", "subtotal"),
        assent=("permite", "confirma", "accepta", "continua", "da"),
    ),
    "hu": Words(
        pay=("fizetes", "fizetes most", "fizess"),
        payment=("vasarlas befejezese", "megrendeles", "penztar", "rendeles leadasa", "megveszem"),
        due=("osszesen", "fizetendo", "vegosszeg"),
        assent=("engedelyezes", "megerosites", "elfogadas", "tovabb", "igen"),
    ),
    "fa": Words(
        pay=("پرداخت", "پرداخت کنید"),
        payment=("خرید", "ثبت سفارش", "تکمیل خرید"),
        due=("مجموع", "جمع کل", "مبلغ قابل پرداخت"),
        assent=("تایید", "ادامه", "بله", "موافقم"),
    ),
    "tl": Words(
        pay=("magbayad", "magbayad ngayon"),
        payment=("bumili", "bilhin ngayon", "mag-checkout", "mag-order"),
        due=("kabuuan", "kabuuang halaga"),
        assent=("payagan", "kumpirmahin", "magpatuloy", "oo"),
    ),
}

# Whole words of an address that lead to paying (a deep link, a web path, an activity).
PLACE_WORDS = frozenset(
    {
        "checkout",
        "pay",
        "payment",
        "payments",
        "order",
        "orders",
        "cashier",
        "purchase",
        "buy",
        "billing",
        "settle",
        "settlement",
        "confirmorder",
        "placeorder",
        "submitorder",
        "pagar",
        "pago",
        "pagamento",
        "paiement",
        "payer",
        "commande",
        "bezahlen",
        "kasse",
        "zahlung",
        "betalen",
        "afrekenen",
        "kassa",
        "kasa",
        "odeme",
        "oplata",
        "zakaz",
        "kassen",
        "cassa",
        "acquista",
        "comprar",
        "compra",
        "bayar",
        "pembayaran",
        "thanhtoan",
        "kessai",
        "koupit",
        "platba",
    }
)
# Parts of an address that lead to paying wherever they stand in it.
PLACE_STEMS = (
    "checkout",
    "cashier",
    "payment",
    "purchase",
    "placeorder",
    "confirmorder",
    "submitorder",
    "orderconfirm",
    "alipay",
    "wxpay",
    "wechatpay",
    "paypal",
    "unionpay",
    "applepay",
    "googlepay",
    "samsungpay",
    "billing",
    "pagamento",
    "paiement",
    "bezahlen",
    "zahlung",
    "afrekenen",
    "pembayaran",
    "oplata",
)
# Words an address uses that start or end with "pay" but lead nowhere near a payment.
PLACE_BENIGN = frozenset({"payload", "payloads", "paysage", "paysages", "paynter"})

BENIGN = (
    "purchase history",
    "purchase records",
    "order history",
    "购买记录",
    "支付宝",
    "支付寶",
    "購入履歴",
    "구매내역",
    "구매 내역",
    "주문내역",
    "주문 내역",
)

# Scripts written without spaces between words: a phrase there is found inside a label.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u0e00-\u0e7f]")
_LETTER_BEFORE = r"(?<![^\W\d_])"
_LETTER_AFTER = r"(?![^\W\d_])"


def _phrase(words: str) -> str:
    """A folded phrase as a pattern: its spaces also match a hyphen, an underscore or
    nothing ("check out" is "checkout" and "check-out")."""
    return r"[\s_\-]*".join(re.escape(w) for w in words.split(" "))


class WordPattern:
    """One pattern for a list of phrases, compiled at its first use: the phrase lists of
    every language make patterns that take ~100 ms to compile, and a run's first model
    request (or `mika mcp`'s first answers) should not wait for what only its first
    action reads."""

    def __init__(self, phrases: list[str]) -> None:
        self._phrases = phrases
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = _compile(self._phrases)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)

    def sub(self, repl: str, text: str) -> str:
        return self.compiled.sub(repl, text)


def _compile(phrases: list[str]) -> re.Pattern[str]:
    # Folded here, longest first, so the longest phrase is what a match names.
    folded = sorted({fold(p) for p in phrases if fold(p)}, key=len, reverse=True)
    spaced = [_phrase(p) for p in folded if not _UNSPACED.search(p)]
    unspaced = [_phrase(p) for p in folded if _UNSPACED.search(p)]
    parts = []
    if spaced:
        parts.append(_LETTER_BEFORE + "(?:" + "|".join(spaced) + ")" + _LETTER_AFTER)
    if unspaced:
        parts.append("(?:" + "|".join(unspaced) + ")")
    return re.compile("|".join(parts) or r"(?!)")


def compile_words(phrases: list[str]) -> WordPattern:
    """One pattern for a list of phrases (folded, longest first), compiled when first used."""
    return WordPattern(list(phrases))


def every(kind: str) -> list[str]:
    """Every language's phrases of one kind (`pay`, `payment`, `due`, `assent`)."""
    return [p for words in LANGUAGES.values() for p in getattr(words, kind)]


PAY = compile_words(every("pay"))
PAYMENT = compile_words(every("payment"))
DUE = compile_words(every("due"))
ASSENT = compile_words(every("assent"))
_BENIGN = compile_words(list(BENIGN))


def without_benign(folded: str) -> str:
    """A folded label with the phrases that only name a record or an app taken out."""
    return _BENIGN.sub(" ", folded)
