import pytest

from autograder.notebook_code import load_reference
from course import MailServer, make_client


@pytest.fixture
def mail():
    with MailServer() as server:
        yield server


@pytest.fixture
def client():
    return make_client(offline=True)


@pytest.fixture(scope="session")
def reference():
    """The reference solution, read from the source notebook (its only copy)."""
    return load_reference()
