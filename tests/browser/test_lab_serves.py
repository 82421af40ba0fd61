"""`make lab` serves JupyterLab offline with no API key (the `lab` fixture starts it as `make lab` does)."""
import urllib.request


def test_lab_answers_200_without_a_key(lab):
    with urllib.request.urlopen(f"{lab['url']}/lab?token={lab['token']}", timeout=10) as reply:
        assert reply.status == 200
        assert "JupyterLab" in reply.read().decode()
