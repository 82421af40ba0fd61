"""instruments.host.cjk_font: a Chinese font on every system, or a message saying what to install there."""
import copy
from types import SimpleNamespace

import pytest
from matplotlib import font_manager

from instruments import host

# Families matplotlib lists on a stock system (a sample: enough to show which one is picked).
MACOS = {"Helvetica", "Menlo", "Hiragino Sans GB", "PingFang HK", "STHeiti", "Apple Color Emoji", "Arial Unicode MS"}
WINDOWS = {"Arial", "Segoe UI", "Consolas", "Microsoft YaHei", "SimSun", "SimHei", "Yu Gothic"}
FEDORA = {"DejaVu Sans", "Noto Sans", "Noto Sans CJK JP", "Noto Sans CJK SC", "Liberation Sans"}
OLD_UBUNTU = {"DejaVu Sans", "Ubuntu", "WenQuanYi Micro Hei", "Droid Sans Fallback"}
BARE_WSL = {"DejaVu Sans", "DejaVu Sans Mono", "DejaVu Serif", "STIXGeneral", "cmr10"}


@pytest.mark.parametrize("families, expected", [
    (MACOS, "Hiragino Sans GB"),
    (MACOS | {"PingFang SC"}, "PingFang SC"),
    (WINDOWS, "Microsoft YaHei"),
    (FEDORA, "Noto Sans CJK SC"),
    (OLD_UBUNTU, "WenQuanYi Micro Hei"),
    (BARE_WSL | {"Some CJK Font"}, "Some CJK Font"),
    (BARE_WSL, None),
])
def test_the_best_chinese_family_is_picked(families, expected):
    assert host.pick_cjk_family(families) == expected


@pytest.mark.parametrize("system, distribution, says", [
    ("Linux", "debian", "sudo apt install fonts-noto-cjk"),
    ("Linux", "ubuntu", "WSL"),
    ("Linux", "fedora", "sudo dnf install google-noto-sans-cjk-fonts"),
    ("Linux", "arch", "pacman"),
    ("Linux", "", "包管理器"),
    ("Darwin", None, "PingFang SC"),
    ("Windows", None, "Microsoft YaHei"),
])
def test_without_a_chinese_font_the_message_says_what_to_install_there(system, distribution, says):
    message = host.no_cjk_font_message(system, distribution)
    assert says in message and "重启内核" in message
    assert "make system-deps" not in message  # students have no Makefile


def fake_fonts(monkeypatch, families: set, on_disk: list) -> list:
    """matplotlib's font manager as it is on a system with `families` cached and `on_disk` font files; returns
    the list of files it is asked to add (its real addfont reads them)."""
    manager = copy.copy(font_manager.fontManager)
    manager.ttflist = [SimpleNamespace(name=name, fname=f"/fonts/{name}.ttf") for name in families]
    added = []
    monkeypatch.setattr(manager, "addfont", lambda path: added.append(path) or type(manager).addfont(manager, path),
                        raising=False)
    monkeypatch.setattr(font_manager, "fontManager", manager)
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda: on_disk)
    return added


def test_a_font_installed_after_matplotlibs_cache_is_found(monkeypatch):
    real = [f for f in font_manager.fontManager.ttflist if f.name == "Noto Sans CJK SC"]
    if not real:
        pytest.skip("这台机器上没有 Noto Sans CJK SC")
    added = fake_fonts(monkeypatch, BARE_WSL, [real[0].fname])
    assert host.cjk_font() == "Noto Sans CJK SC"
    assert added == [real[0].fname]


def test_no_chinese_font_anywhere_raises_the_message_for_this_system(monkeypatch):
    fake_fonts(monkeypatch, BARE_WSL, [])
    monkeypatch.setattr(host.platform, "system", lambda: "Darwin")
    with pytest.raises(RuntimeError, match="PingFang SC"):
        host.cjk_font()
