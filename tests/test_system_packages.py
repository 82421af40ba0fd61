""".ci/system-packages on systems without apt: it installs nothing and says what to install there."""
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "system-packages"
TOOLS = ("bash", "grep", "ls", "id", "cat")  # what the script itself runs


def run(tmp_path: Path, *args: str, system: str = "Linux", manager: str | None = None, present=()):
    """The script with a PATH holding only basic tools, a fake `uname`, a package manager's name, `present` commands."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in TOOLS:
        found = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        (bin_dir / tool).unlink(missing_ok=True)
        (bin_dir / tool).symlink_to(found)
    for name, body in {"uname": f"echo {system}", **({manager: "exit 0"} if manager else {}),
                       **{command: "exit 0" for command in present}}.items():
        (bin_dir / name).write_text(f"#!{bin_dir / 'bash'}\n{body}\n")
        (bin_dir / name).chmod(0o755)
    return subprocess.run([str(bin_dir / "bash"), str(SCRIPT), *args], capture_output=True, text=True,
                          env={"PATH": str(bin_dir), "HOME": str(tmp_path)}, timeout=60)


def test_fedora_is_told_to_use_dnf_and_the_target_fails(tmp_path):
    done = run(tmp_path, "bubblewrap", "strace", manager="dnf")
    assert done.returncode == 1
    assert "sudo dnf install bubblewrap" in done.stderr and "sudo dnf install strace" in done.stderr
    assert "make grade" in done.stderr


def test_macos_is_told_that_grading_needs_linux(tmp_path):
    done = run(tmp_path, "bubblewrap", system="Darwin")
    assert done.returncode == 1 and "macOS 上没有" in done.stderr


@pytest.mark.parametrize("manager, says", [("dnf", "google-noto-sans-cjk-fonts"), ("pacman", "noto-fonts-cjk")])
def test_a_missing_font_is_only_a_warning(tmp_path, manager, says):
    done = run(tmp_path, "--optional", "fonts-noto-cjk", manager=manager)
    assert done.returncode == 0 and says in done.stderr


def test_macos_has_a_chinese_font_already(tmp_path):
    done = run(tmp_path, "fonts-noto-cjk", system="Darwin")
    assert done.returncode == 0 and done.stderr == ""


def test_what_is_there_is_not_asked_for(tmp_path):
    done = run(tmp_path, "bubblewrap", "strace", manager="dnf", present=("bwrap", "strace"))
    assert done.returncode == 0 and done.stderr == ""
