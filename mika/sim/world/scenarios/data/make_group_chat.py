"""Writes group_chat.json: the default scenario's chats plus a 300-message group chat.

Run once (`python mika/sim/world/scenarios/data/make_group_chat.py`); the JSON is
committed. A data file replaces a whole data key, so the default chats are copied in
from default.json. Seeded random: the same file every time.

The chat is made to trip up naive collectors: day headers, images, multi-line
messages, the same text from different senders and at different times.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
COUNT = 300
SENDERS = ["王芳", "李雷", "韩梅梅", "Tom", "陈静", "我"]
DAYS = ["11月28日 周六", "11月29日 周日", "11月30日 周一", "12月1日 周二"]
PHRASES = [
    "收到",
    "好的",
    "哈哈哈",
    "明天几点集合？",
    "我晚点到",
    "+1",
    "周末去爬山吗",
    "天气预报说会下雨",
    "那改到室内吧",
    "谁有充电宝",
    "我带吃的",
    "地址发一下",
    "OK",
    "辛苦了",
    "照片在群相册",
    "会议改到下午三点",
    "记得带身份证",
    "我已经到了",
]
LONG = ["今天的安排：\n1. 九点集合\n2. 十点出发\n3. 中午吃饭", "路线：\n地铁二号线\n换乘四号线", "备注：\n别迟到"]


def messages() -> list[dict[str, object]]:
    rng = random.Random(20261201)
    out: list[dict[str, object]] = []
    per_day = COUNT // len(DAYS)
    for day in DAYS:
        minute = 9 * 60
        for i in range(per_day):
            minute += rng.randint(1, 6)
            msg: dict[str, object] = {
                "id": f"g{len(out) + 1}",
                "from": rng.choice(SENDERS),
                "time": f"{minute // 60:02d}:{minute % 60:02d}",
                "day": day,
                "day_header": day if i == 0 else "",
            }
            roll = rng.random()
            if roll < 0.08:
                msg["image"] = True
                msg["text"] = "[图片]"
            elif roll < 0.14:
                msg["text"] = rng.choice(LONG)
            else:
                msg["text"] = rng.choice(PHRASES)
            out.append(msg)
    # Same text, same minute, different senders; and the same sender twice with the same
    # text at different times: merging by text alone would drop these.
    out[150]["text"] = out[151]["text"] = "收到"
    out[150]["from"], out[151]["from"] = "王芳", "李雷"
    out[151]["time"] = out[150]["time"]
    out[150].pop("image", None)
    out[151].pop("image", None)
    return out


def main() -> None:
    default = json.loads((HERE.parent / "default.json").read_text(encoding="utf-8"))
    chats = list(default["data"]["chats"])
    chats.append(
        {
            "id": "g1",
            "name": "周末户外群",
            "group": True,
            "members": list(SENDERS),
            "messages": messages(),
        }
    )
    text = json.dumps({"chats": chats}, ensure_ascii=False, indent=1) + "\n"
    (HERE / "group_chat.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
