from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def trec_dir() -> Path:
    return DATA / "trec_eval"


@pytest.fixture(scope="session")
def cranfield_dir() -> Path:
    return DATA / "cranfield"
