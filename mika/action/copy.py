"""The sentences the approval summary adds when the model's claim and the screen differ,
in English and Chinese (the language is `mika.config.language.ui_language()`)."""

from __future__ import annotations

from mika.config.language import ui_language

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "claim_amount_differs": "The model says {claim}, but the screen shows {shown}.",
        "claim_item_differs": "The model says “{claim}”, but the screen lists “{shown}”.",
        "claim_app_differs": "The model says app {claim}, but {shown} is in front.",
        "claim_unchecked": "No payment screen was read for this step: check the phone before you allow it.",
        "claim_amount_unseen": "This screen shows no amount: {claim} is the model's word. Allowing releases "
        "“{button}” once; the amount shows on the next page, and paying stays yours.",
    },
    "zh": {
        "claim_amount_differs": "模型说是 {claim}，但屏幕上显示 {shown}。",
        "claim_item_differs": "模型说是「{claim}」，但屏幕上列的是「{shown}」。",
        "claim_app_differs": "模型说是应用 {claim}，但前台是 {shown}。",
        "claim_unchecked": "这一步没有读到付款页面：允许之前请先看一眼手机。",
        "claim_amount_unseen": "这个页面上没有金额：{claim} 是模型说的。允许只放行一次「{button}」；"
        "金额会在下一页显示，付款仍由你来。",
    },
}


def t(key: str, lang: str | None = None, **fields: object) -> str:
    table = TEXTS.get(lang or ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)
