"""The ledger of what crashed runs borrowed, as a face settles it at start (seed §2).

The phone's restorers (mika.cap.phone.restore) are what gives anything back today, and
loading them loads the phone stack (adbutils, requests: ~300 ms). Most starts owe nothing,
so they are registered only when the ledger has items: an empty ledger is settled without
them, exactly as it was with them (nothing to give back either way).
"""

from __future__ import annotations

from pathlib import Path

from mika.run.borrowed import BorrowedLedger, RestoreReport


class _PhoneLedger(BorrowedLedger):
    async def restore_orphans(self) -> RestoreReport:
        if self.items():
            from mika.cap.phone.restore import register_restorers

            register_restorers(self)
        return await super().restore_orphans()


def borrowed_ledger(state_dir: Path) -> BorrowedLedger:
    """A BorrowedLedger for `state_dir` that knows how to give back what phones lent:
    pass it to `mika.run.recovery.settle(..., borrowed=…)` at start."""
    return _PhoneLedger(state_dir)
