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


@pytest.fixture
def temp_behind_a_symlink(monkeypatch, tmp_path):
    """tempfile's folder reached through a symlink, as on every Mac (/var -> /private/var); returns the real one."""
    import tempfile
    (tmp_path / "private").mkdir()
    (tmp_path / "var").symlink_to(tmp_path / "private")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "var"))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    return tmp_path / "private"
