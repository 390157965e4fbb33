"""`Grounding`: are the numbers, ids and quotes of an answer in what was really read?

No model is called: every number (amounts, dates, counts), every id-like token (order
numbers, codes mixing letters and digits) and every quoted phrase of the answer is
looked up in the run's observations (the user's own words count: repeating them is not
a claim). Arithmetic the answer states (`a + b = c`) is checked too. The result is
recorded; only with the `review_final_answer` switch (off by default, as in the seed)
does the loop send an answer with unsupported claims back once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mika.observe.evidence import EvidenceLedger

_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,:/]\d+)*(?![\w])")
_ID = re.compile(r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9-]{3,}\b")
_QUOTE = re.compile(r'"([^"\n]{4,})"|“([^”\n]{4,})”|「([^」\n]{2,})」|『([^』\n]{2,})』')
_SUM = re.compile(r"(\d+(?:\.\d+)?)\s*([+\-×x*/])\s*(\d+(?:\.\d+)?)\s*=\s*(\d+(?:\.\d+)?)")


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).lower()


def _number_forms(n: str) -> set[str]:
    plain = n.lstrip("+")
    forms = {plain, plain.replace(",", "")}
    if re.fullmatch(r"\d+", plain) and len(plain) > 3:
        forms.add(f"{int(plain):,}")
    return forms


@dataclass(frozen=True)
class GroundingReport:
    checked: int
    unsupported: tuple[str, ...]
    wrong_sums: tuple[str, ...] = ()

    @property
    def grounded(self) -> bool:
        return not self.unsupported and not self.wrong_sums

    def as_dict(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "unsupported": list(self.unsupported),
            "wrong_sums": list(self.wrong_sums),
            "grounded": self.grounded,
        }


def _sum_ok(a: float, op: str, b: float, c: float) -> bool:
    if op == "+":
        got = a + b
    elif op == "-":
        got = a - b
    elif op in "×x*":
        got = a * b
    else:
        got = a / b if b else float("nan")
    return abs(got - c) < 0.01 * max(1.0, abs(c))


class Grounding:
    @staticmethod
    def check(answer: str, ledger: EvidenceLedger) -> GroundingReport:
        corpus = _normal("\n".join(o.text + " " + o.title for o in ledger.all()))
        claims: list[tuple[str, set[str]]] = []
        for m in _QUOTE.finditer(answer):
            quote = next(g for g in m.groups() if g)
            claims.append((quote, {_normal(quote)}))
        for m in _ID.finditer(answer):
            claims.append((m.group(0), {m.group(0).lower()}))
        ids = {c for c, _ in claims}
        for m in _NUMBER.finditer(answer):
            n = m.group(0)
            if any(n in i for i in ids) or len(n.lstrip("+-")) < 2:
                continue  # single digits ("1 item", "step 2") say too little to check
            claims.append((n, _number_forms(n)))
        unsupported = tuple(dict.fromkeys(c for c, forms in claims if not any(f in corpus for f in forms)))
        wrong = []
        for m in _SUM.finditer(answer):
            a, op, b, c = float(m.group(1)), m.group(2), float(m.group(3)), float(m.group(4))
            if not _sum_ok(a, op, b, c):
                wrong.append(m.group(0))
        # Results of stated arithmetic are computed, not read: a correct sum is supported.
        computed = {m.group(4) for m in _SUM.finditer(answer)} - set(wrong)
        unsupported = tuple(u for u in unsupported if u not in computed)
        return GroundingReport(len(claims), unsupported, tuple(wrong))
