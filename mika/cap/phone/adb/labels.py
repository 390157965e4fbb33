"""App labels for packages, without installing anything on the phone.

Android's shell can list packages but not their labels (that needs the APK's resources).
So labels come from a table of well-known apps, with their Chinese names as aliases, and
otherwise from the package name itself ("com.example.notes" → "Notes"). Matching a label
the model gives is forgiving: case, spaces and either language.
"""

from __future__ import annotations

import re

# package → (English label, other names people use)
KNOWN: dict[str, tuple[str, tuple[str, ...]]] = {
    "com.android.settings": ("Settings", ("设置",)),
    "com.google.android.deskclock": ("Clock", ("时钟", "闹钟", "Alarm")),
    "com.android.deskclock": ("Clock", ("时钟", "闹钟", "Alarm")),
    "com.google.android.apps.messaging": ("Messages", ("短信", "信息", "SMS")),
    "com.android.mms": ("Messages", ("信息", "短信", "SMS")),
    "com.google.android.calendar": ("Calendar", ("日历",)),
    "com.android.calendar": ("Calendar", ("日历",)),
    "com.android.chrome": ("Chrome", ("浏览器", "Browser")),
    "com.google.android.gm": ("Gmail", ("邮件",)),
    "com.google.android.youtube": ("YouTube", ()),
    "com.google.android.apps.maps": ("Maps", ("地图",)),
    "com.google.android.contacts": ("Contacts", ("联系人", "通讯录")),
    "com.android.contacts": ("Contacts", ("通讯录", "联系人")),
    "com.google.android.dialer": ("Phone", ("电话",)),
    "com.google.android.apps.photos": ("Photos", ("相册", "照片")),
    "com.android.camera": ("Camera", ("相机",)),
    "com.android.vending": ("Play Store", ("应用商店",)),
    "com.tencent.mm": ("WeChat", ("微信",)),
    "com.eg.android.AlipayGphone": ("Alipay", ("支付宝",)),
    "com.taobao.taobao": ("Taobao", ("淘宝",)),
    "com.ss.android.ugc.aweme": ("Douyin", ("抖音",)),
    "com.xingin.xhs": ("Xiaohongshu", ("小红书", "RED")),
    "com.sankuai.meituan": ("Meituan", ("美团",)),
    "com.jingdong.app.mall": ("JD", ("京东",)),
    "com.tencent.mobileqq": ("QQ", ()),
    "com.sina.weibo": ("Weibo", ("微博",)),
    "tv.danmaku.bili": ("Bilibili", ("哔哩哔哩", "B站")),
    "com.kakao.talk": ("KakaoTalk", ("카카오톡",)),
    # Mika's own demo apps (the simulated phone ships them; a real phone may too).
    "com.mika.shop": ("Shop", ("Mika Shop", "商城")),
    "com.mika.notes": ("Notes", ("备忘录", "笔记")),
    "com.mika.chat": ("微聊", ("Chat", "WeChat-like chat")),
    "com.mika.feed": ("Moments", ("动态",)),
    "com.mika.account": ("Mika ID", ("账号登录",)),
    "com.mika.reader": ("Reading Report", ("阅读报告",)),
    "com.mika.wallet": ("Wallet", ("钱包",)),
    "com.mika.video": ("Video", ("视频",)),
    "com.mika.market": ("Market", ("集市", "Mika Market")),
    "com.mika.browser": ("Browser", ("浏览器",)),
    "com.mika.photos": ("Photos", ("相册", "照片")),
    "com.mika.lab": ("Form Lab", ("表单实验室",)),
    "com.android.launcher3": ("Launcher", ("桌面", "Home")),
}

_GENERIC = {"com", "org", "net", "android", "google", "apps", "app", "mobile", "client", "main"}


# Packages with no screen of their own to open, for phones whose `cmd package` can't list
# launcher activities: providers, input methods, the system UI and helpers.
_BACKGROUND = re.compile(
    r"^android$|\.providers?\.|inputmethod|\.systemui$|\.shell$|webview|packageinstaller|permissioncontroller"
    r"|adbkeyboard|uiautomator|\.phone$|\.launcher\d*$|\.overlay\b"
)


def is_background_package(package: str) -> bool:
    return bool(_BACKGROUND.search(package))


def label_for(package: str) -> str:
    if package in KNOWN:
        return KNOWN[package][0]
    parts = [p for p in package.split(".") if p and p.lower() not in _GENERIC]
    word = parts[-1] if parts else package
    return word[:1].upper() + word[1:]


def _norm(text: str) -> str:
    return re.sub(r"[\s_\-·]+", "", text).casefold()


def names_for(package: str, label: str) -> tuple[str, ...]:
    known = KNOWN.get(package)
    aliases = known[1] if known else ()
    return (label, package, *aliases)


def match_app(query: str, apps: dict[str, str]) -> list[str]:
    """Packages whose label, alias or package name matches `query`; exact before partial."""
    q = _norm(query)
    if not q:
        return []
    exact, partial = [], []
    for package, label in apps.items():
        names = [_norm(n) for n in names_for(package, label)]
        if q in names:
            exact.append(package)
        elif any(q in n for n in names if len(q) >= 2):
            partial.append(package)
    return exact or partial
