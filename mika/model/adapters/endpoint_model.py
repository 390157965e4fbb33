"""What every adapter tells its callers about itself (the `Model` protocol's attributes).

All of it is read from the endpoint, the same way for every wire protocol."""

from __future__ import annotations

from mika.model.adapters.endpoint import Endpoint


class EndpointModel:
    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.provider = endpoint.provider
        self.name = endpoint.model
        self.context_window = endpoint.context_window
        self.supports_images = endpoint.supports_images
