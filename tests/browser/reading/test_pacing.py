"""Every chapter is paced picture-first on a phone (issue 39, item 2 and its "done when").

At 390 x 844, with every explorer drawn and every figure loaded, each chapter is at most 20
phone screens long (exercises included), its first picture starts within 1.5 screens of the
top, and no stretch of it runs more than 4 screens without a picture. The measurement is
devtools/_pacing.py's (``benchmarks/pacing.py`` prints it for every page); a failure names the
chapter, the number and the section where a long run starts.
"""

from __future__ import annotations

import pytest
from _pacing import FIRST_PICTURE, MAX_RUN, MAX_SCREENS, PHONE, failures, pacing

from ..conftest import CHAPTERS, fresh_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_chapter_opens_on_a_picture_and_never_runs_long_without_one(phone, name):
    # measured on the phone's load of the page (light), every explorer drawn:
    # reading/test_on_a_phone.py's PhoneReading
    p = phone(name, "light").at("woken")["pacing"]
    assert p["pictures"] > 0, f"{name}: no picture found at all"
    assert not failures(name, p), (
        f"targets: <= {MAX_SCREENS:g} screens, first picture <= {FIRST_PICTURE:g}, "
        f"runs <= {MAX_RUN:g}; " + "; ".join(failures(name, p))
    )


def test_the_measure_sees_a_long_run_and_a_late_picture(browser, base_url):
    """The ruler itself: on a page built to miss every target (a picture 2 screens down, then
    5 screens of text, 25 screens long), each miss is reported."""
    html = (
        "<html><head><meta name='viewport' content='width=device-width'></head>"
        "<body><main class='book-article'><h1>Test</h1>"
        "<div style='height:1700px'>text</div>"
        "<svg width='300' height='200'><rect width='300' height='200'/></svg>"
        "<h2>Long</h2><div style='height:4300px'>text</div>"
        "<img width='300' height='200' src='data:image/gif;base64,R0lGODlhAQABAAAAACw='>"
        "<div style='height:14700px'>text</div></main></body></html>"
    )
    with fresh_page(browser, "about:blank", **PHONE) as page:
        page.set_content(html)
        p = pacing(page)
    got = failures("test page", p)
    assert p["pictures"] == 2, p
    assert any("phone screens long" in f for f in got), got
    assert any("first picture 2." in f for f in got), got
    assert any("in section 'Long'" in f for f in got), got
