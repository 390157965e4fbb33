"""Does this task obviously need the general tier (`more`)? Then it opens from the first
request, and the model needn't spend a turn asking for schedule_task.

Only words that ask for something later or repeatedly: a wrong preload costs the tier's
definitions in every request of the run, a missed one a single turn."""

from __future__ import annotations

from mika.knowledge.catalog import mention_spans

# Latin words match at word edges, Chinese ones as substrings (mention_spans).
SCHEDULE_WORDS: tuple[str, ...] = (
    "remind",
    "reminder",
    "schedule",
    "every day",
    "every morning",
    "every evening",
    "every week",
    "every hour",
    "daily",
    "weekly",
    "提醒",
    "每天",
    "每周",
    "每隔",
    "定时",
)


def wants_schedules(goal: str) -> bool:
    return any(mention_spans(goal, word) for word in SCHEDULE_WORDS)
