"""The maths as readers meet it: every formula native MathML, once, in the book's maths font,
bold where the source says \\mathbf, and in the accessibility tree for screen readers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..conftest import CHAPTERS, PAGES, ROOT

pytestmark = pytest.mark.browser

MATH_JS = """
() => {
  const main = document.querySelector('main') || document.body;
  const holders = [...main.querySelectorAll('.math')];
  return {
    mathNodes: holders.length,
    // each maths element holds exactly one native <math> (web/prerender-math.mjs), nothing else
    holding: holders.map((h) => [...h.children].filter((c) => c.localName !== 'span' || !c.classList.contains('eqno'))
                                 .map((c) => c.localName).join(' ')),
    // a second copy of any formula (MathJax's CHTML and its hidden MathML) is gone
    copies: document.querySelectorAll('mjx-container, mjx-assistive-mml, [aria-hidden="true"] math').length,
    errors: [...main.querySelectorAll('merror, .temml-error')].map((e) => e.textContent),
    // formulas drawn: a rendered <math> has a box with a width and a height (answers to the
    // exercises are shown only when opened: visibility hidden until then)
    empty: [...main.querySelectorAll('math')].filter((m) => m.checkVisibility({visibilityProperty: true}))
             .filter((m) => { const r = m.getBoundingClientRect(); return !(r.width > 0 && r.height > 0); }).length,
    visible: [...main.querySelectorAll('math')].filter((m) => m.checkVisibility({visibilityProperty: true})).length,
    font: (() => { const m = main.querySelector('math'); return m ? getComputedStyle(m).fontFamily : null; })(),
    fontLoaded: [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'STIX Two Math subset' && f.status === 'loaded'),
    text: main.innerText,
    mathText: [...main.querySelectorAll('math')].map((m) => m.textContent).join(' '),
  };
}
"""

BOLD = {chr(c): chr(0x1D400 + c - ord("A")) for c in range(ord("A"), ord("Z") + 1)}
BOLD.update({chr(c): chr(0x1D41A + c - ord("a")) for c in range(ord("a"), ord("z") + 1)})


def _bold_letters(name: str) -> set[str]:
    """The letters the chapter's source sets in bold (\\mathbf X, \\mathbf{X}, \\mathbf{XY})."""
    md = ROOT / "chapters" / (Path(name).stem + ".md")
    if not md.is_file():
        return set()
    found = set()
    for braced, single in re.findall(
        r"\\mathbf\s*(?:\{([A-Za-z]+)\}|([A-Za-z]))", md.read_text(encoding="utf8")
    ):
        found.update(braced or single)
    return found


@pytest.mark.parametrize("name", PAGES)
def test_maths_is_typeset(visits, name):
    """Every formula is native MathML, once: drawn with the book's maths font, bold where the
    source says \\mathbf, and in the accessibility tree for screen readers."""
    v = visits(name)
    m = v.page.evaluate(MATH_JS)
    if name in CHAPTERS:
        assert m["mathNodes"] > 0, f"{name}: a chapter with no maths at all?"
    wrong = [h for h in m["holding"] if h != "math"]
    assert not wrong, f"{name}: maths elements holding {wrong[:5]} instead of one <math>"
    assert m["copies"] == 0, (
        f"{name}: {m['copies']} second copies of formulas (MathJax CHTML or hidden MathML)"
    )
    assert not m["errors"], f"{name}: TeX errors: {m['errors']}"
    assert m["empty"] == 0, f"{name}: {m['empty']} formulas drawn with no width or height"
    for raw in ("$$", "\\[", "\\(", "\\frac", "\\begin{"):
        assert raw not in m["text"], f"{name}: raw TeX {raw!r} visible in the page text"
    # An inline dollar pair left over by the parser, e.g. "$x$" shown as text.
    left = re.findall(r"\$[^$\s][^$\n]{0,80}\$", m["text"])
    assert not left, f"{name}: untypeset inline maths visible: {left[:5]}"
    if m["mathNodes"]:
        assert m["font"] and m["font"].startswith('"STIX Two Math subset"'), (
            f"{name}: maths font is {m['font']!r}"
        )
        assert m["fontLoaded"], (
            f"{name}: the maths font (_static/lib/math/STIXTwoMath-subset.woff2) did not load"
        )
        missing = sorted(c for c in _bold_letters(name) if BOLD[c] not in m["mathText"])
        assert not missing, (
            f"{name}: \\mathbf letters {missing} are not bold (no {[BOLD[c] for c in missing]}) in the maths"
        )
        # Screen readers: each formula shown is a MathML maths node of the accessibility tree,
        # with its identifiers and operators below it.
        cdp = v.page.context.new_cdp_session(v.page)
        try:
            tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
        finally:
            cdp.detach()
        roles = [n.get("role", {}).get("value") for n in tree if not n.get("ignored")]
        assert roles.count("MathMLMath") >= m["visible"], (
            f"{name}: {m['visible']} formulas shown, {roles.count('MathMLMath')} in the accessibility tree"
        )
        assert roles.count("MathMLIdentifier") + roles.count("MathMLNumber") >= m["visible"], (
            f"{name}: formulas without identifiers or numbers in the accessibility tree"
        )
