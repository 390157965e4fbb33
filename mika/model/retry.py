"""How often and how long to retry a failed model call."""

from __future__ import annotations

from dataclasses import dataclass, field

from mika.model.errors import ModelError


@dataclass
class RetryPolicy:
    """429, 5xx and network errors are retried at most `max_retries` times with
    exponential backoff; the waits of one run add up to at most `total_wait_cap`.
    Auth, not-found and bad-request errors are never retried."""

    max_retries: int = 3
    base_delay: float = 1.0
    max_delay: float = 30.0
    total_wait_cap: float = 90.0
    waited: float = field(default=0.0, init=False)

    def delay_for(self, error: ModelError, attempt: int) -> float | None:
        """Seconds to wait before retry number `attempt` (1-based), or None to give up."""
        if not error.retryable or attempt > self.max_retries:
            return None
        delay = min(self.max_delay, self.base_delay * (2.0 ** (attempt - 1)))
        if error.retry_after is not None:
            delay = max(delay, min(error.retry_after, self.max_delay))
        if self.waited + delay > self.total_wait_cap:
            return None
        self.waited += delay
        return delay


NO_RETRY = RetryPolicy(max_retries=0)
