import pytest


@pytest.fixture(autouse=True)
def english_texts(monkeypatch):
    """Assertions read the English texts; a test that wants Chinese sets it itself."""
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
