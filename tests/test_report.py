"""The class report's page (autograder.report) is written whatever fonts the instructor's machine has."""
import pytest

from autograder import report
from autograder.report import ClassReport, render_html
from instruments.host import cjk_font, no_cjk_font_message

CLASS = ClassReport("lesson03", scores={"s01": 23.0, "s02": 11.0}, max_score=23.0)


def test_the_page_shows_the_histogram():
    try:
        cjk_font()
    except RuntimeError:
        pytest.skip("这台机器没有中文字体（make fonts 会装）")
    assert 'src="data:image/png;base64,' in render_html(CLASS)


def test_without_a_chinese_font_the_page_says_what_to_install_instead_of_failing(monkeypatch):
    """The report is written after the whole class was graded: a machine without a CJK font (a new laptop) still
    gets it, with a line in Chinese in place of the histogram."""
    def no_font():
        raise RuntimeError(no_cjk_font_message())

    monkeypatch.setattr(report, "cjk_font", no_font)
    page = render_html(CLASS)
    assert "data:image/png" not in page
    assert "没有画得分分布直方图" in page and "中文字体" in page
    assert "平均 17.0，中位数 17，满分 23" in page  # the rest of the page is there
