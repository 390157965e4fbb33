"""The session id a provider sees for one conversation.

Some providers route and reuse prompt caches by a per-conversation session header. We
send a name-based UUID (v3) of the conversation id, so the same conversation always maps
to the same value while the id itself never leaves the machine.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

# Fixed namespace so the mapping is stable across installs and versions.
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "mika:conversation")


@dataclass(frozen=True)
class ModelSession:
    value: str

    @staticmethod
    def of(conversation_id: str) -> ModelSession:
        return ModelSession(str(uuid.uuid3(_NAMESPACE, conversation_id)))

    @staticmethod
    def fresh() -> ModelSession:
        """For calls outside any conversation (listing models, connection tests)."""
        return ModelSession(str(uuid.uuid4()))

    @staticmethod
    def for_request(conversation_id: str | None) -> ModelSession:
        return ModelSession.of(conversation_id) if conversation_id else ModelSession.fresh()
