"""Writes scenarios/data/long_lists.json: the default phone's lists made long (every one
60 rows or more), for the long-read tools' tests — one list of each shape the simulated
phone has (run it after changing the default scenario; the file is data, this is how it
was made):

- Contacts: 84 people, A to Z (grouped by initial with sticky headers when
  `contacts_grouped` is set);
- Settings › System › Languages: 72 languages;
- Messages: 70 conversations;
- Shop: 66 teas for the search "tea" (plus the default items), and a "Recommended"
  carousel of 64 picks on its home screen;
- Moments: 75 posts, loaded 15 at a time at the end of the feed.
The group chat of 300 messages is its own scenario (group_chat).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
default = json.loads((HERE.parent / "default.json").read_text(encoding="utf-8"))["data"]

FIRST = [
    "Aaron",
    "Abby",
    "Ada",
    "Bella",
    "Ben",
    "Bruno",
    "Cara",
    "Chloe",
    "Cyrus",
    "Dana",
    "Derek",
    "Diego",
    "Elena",
    "Eli",
    "Ethan",
    "Fay",
    "Felix",
    "Fiona",
    "Gavin",
    "Gina",
    "Gus",
    "Hana",
    "Hugo",
    "Ian",
    "Ida",
    "Ivy",
    "Jade",
    "Jon",
    "Juno",
    "Kai",
    "Kira",
    "Kurt",
    "Lara",
    "Lena",
    "Liam",
    "Maya",
    "Milo",
    "Mona",
    "Nate",
    "Nell",
    "Noah",
    "Olga",
    "Omar",
    "Otto",
    "Pia",
    "Pete",
    "Quin",
    "Rae",
    "Rita",
    "Ruben",
    "Sara",
    "Seth",
    "Sky",
    "Tara",
    "Theo",
    "Tom",
    "Ulla",
    "Uri",
    "Vera",
    "Vic",
    "Vito",
    "Wade",
    "Wren",
    "Xena",
    "Xiu",
    "Yuki",
    "Yves",
    "Zack",
    "Zara",
    "Zoe",
    "Anya",
    "Boris",
    "Cleo",
    "Dora",
    "Emil",
    "Fritz",
    "Greta",
    "Hedy",
    "Inez",
    "Joel",
    "Knut",
    "Lotte",
    "Mads",
    "Nico",
]
LAST = ["Chen", "Li", "Wang", "Zhang", "Liu", "Zhao", "Huang", "Wu", "Zhou", "Xu", "Sun", "Ma"]

names = sorted(f"{first} {LAST[i % len(LAST)]}" for i, first in enumerate(FIRST))
assert len(names) == len(set(names)) == 84
contacts = [
    {"id": i + 1, "name": n, "phone": f"+1 555-{1000 + i:04d}", "email": f"{n.split()[0].lower()}@example.com"}
    for i, n in enumerate(names)
]

LANGS = [
    "Afrikaans",
    "Azərbaycan",
    "Bahasa Indonesia",
    "Bahasa Melayu",
    "Bosanski",
    "Català",
    "Čeština",
    "Cymraeg",
    "Dansk",
    "Deutsch (Deutschland)",
    "Deutsch (Schweiz)",
    "Eesti",
    "English (Australia)",
    "English (Canada)",
    "English (India)",
    "English (United Kingdom)",
    "English (United States)",
    "Español (España)",
    "Español (México)",
    "Euskara",
    "Filipino",
    "Français (Canada)",
    "Français (France)",
    "Gaeilge",
    "Galego",
    "Hrvatski",
    "isiZulu",
    "Íslenska",
    "Italiano (Italia)",
    "Kiswahili",
    "Latviešu",
    "Lietuvių",
    "Magyar",
    "Malti",
    "Nederlands",
    "Norsk bokmål",
    "Oʻzbek",
    "Polski",
    "Português (Brasil)",
    "Português (Portugal)",
    "Română",
    "Shqip",
    "Slovenčina",
    "Slovenščina",
    "Suomi",
    "Svenska",
    "Tiếng Việt",
    "Türkçe",
    "Ελληνικά",
    "Беларуская",
    "Български",
    "Қазақ",
    "Македонски",
    "Монгол",
    "Русский",
    "Српски",
    "Українська",
    "עברית",
    "العربية",
    "فارسی",
    "हिन्दी",
    "বাংলা",
    "தமிழ்",
    "తెలుగు",
    "ไทย",
    "ქართული",
    "ខ្មែរ",
    "한국어",
    "日本語",
    "中文 (简体)",
    "中文 (繁體)",
    "粵語 (香港)",
]
assert len(LANGS) == len(set(LANGS)) >= 60
locales = [{"v": v} for v in LANGS]

threads = copy.deepcopy(default["threads"])
for i in range(len(threads), 70):
    who = names[(i * 7) % len(names)]
    threads.append(
        {
            "id": f"t{i + 1}",
            "name": f"{who} #{i + 1}",
            "number": f"+1 555-{2000 + i:04d}",
            "messages": [
                {"dir": "in", "text": f"Message {i + 1} from {who.split()[0]}: see you at {8 + i % 12}:{i % 60:02d}"}
            ],
        }
    )

TEAS = [
    "Oolong",
    "Pu-erh",
    "Jasmine",
    "Sencha",
    "Matcha",
    "Earl Grey",
    "Rooibos",
    "Darjeeling",
    "Assam",
    "Longjing",
    "Tieguanyin",
    "Genmaicha",
    "Hojicha",
    "Chamomile",
    "Mint",
    "Lapsang",
    "Keemun",
    "Baozhong",
    "Gyokuro",
    "Bancha",
    "Yunnan Gold",
    "White Peony",
]
shop = copy.deepcopy(default["shop"])
for i in range(66):
    kind = TEAS[i % len(TEAS)]
    grams = (50, 100, 250)[i // len(TEAS)]
    shop["items"].append({"id": f"tea{i + 1}", "name": f"{kind} Tea {grams}g", "price": round(12 + i * 1.5, 1)})
shop["picks"] = [{"id": f"pick{i + 1}", "name": f"Pick {i + 1}: {TEAS[(i * 5) % len(TEAS)]}"} for i in range(64)]

feed = copy.deepcopy(default["feed"])
posts = copy.deepcopy(default["feed_posts"])
for i in range(len(posts), 75):
    posts.append({"who": names[(i * 11) % len(names)], "what": f"Post {i + 1}: day {i + 1} of the photo challenge"})

out = {"contacts": contacts, "locales": locales, "threads": threads, "shop": shop, "feed": feed, "feed_posts": posts}
(HERE / "long_lists.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
