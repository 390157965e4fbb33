import pytest
from replay_server import ReplayServer


@pytest.fixture
def server():
    with ReplayServer() as s:
        yield s
