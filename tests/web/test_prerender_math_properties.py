"""web/prerender-math.mjs over generated pages, against an oracle written here:

- each maths element's TeX, decoded by Python's html.unescape (every way Sphinx or a hand can
  escape "<", ">", "&", quotes: named, decimal, hexadecimal references), is what is typeset:
  an inline formula is exactly Temml's inline MathML of that TeX (Temml called as the script's
  header says), a display formula is a <math display="block"> with the same characters as
  Temml's display MathML of it (the script may write it in Temml's wrapping form);
- everything else in the page is byte for byte what it was (each formula's TeX, delimiters
  included, is what changed; an equation number stays);
- a TeX error, an unknown entity, an impossible character reference, or TeX delimiters left
  outside maths elements are errors naming the page.
"""

from __future__ import annotations

import html as htmllib
import re

import pytest
from _depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PROPS = settings(
    derandomize=True,
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

MACROS = {"R": "\\mathbb{R}"}
CONFIG = (
    '<script>window.MathJax = {"loader": {"load": ["input/tex"]}, "tex": {"macros": '
    '{"R": "\\\\mathbb{R}"}}}</script>\n'
)
LOADER = '<script defer="defer" src="../_static/lib/mathjax/load.js?v=ab12"></script>\n'
WHERE = "chapters/p q&r.html"
INLINE_OPEN = '<span class="math notranslate nohighlight">'
DISPLAY_OPEN = '<div class="math notranslate nohighlight"{id}>'

ATOMS = [
    "x",
    "a < b",
    "a > b",
    "\\{a\\}",
    '\\text{q \\& p\'s "x"}',
    "\\sum_{i=1}^{n} x_i",
    "\\frac{a}{b}",
    "\\mathbf{q}^\\top \\mathbf{k}",
    "\\alpha'",
    "\\R^d",
    "=",
    "+",
    "\\le",
    "\\max_j s_j",
    "\\operatorname{softmax}(x)",
    "\u03b1 \u2192 \u221e",
]


def escape(tex: str, style: int) -> str:
    """TeX written into HTML, in one of the ways HTML allows."""
    if style == 0:
        return htmllib.escape(tex, quote=False)
    if style == 1:
        return htmllib.escape(tex, quote=True)
    table = {"&": "&#38;", "<": "&#60;", ">": "&#x3E;", '"': "&#x22;", "'": "&#39;"}
    return "".join(table.get(c, c) for c in tex)


@st.composite
def formulas(draw):
    return " ".join(draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=4)))


@st.composite
def pages(draw):
    body, texs = [], []
    for k in range(draw(st.integers(1, 4))):
        style = draw(st.integers(0, 2))
        kind = draw(st.sampled_from(["inline", "inline", "display", "aligned"]))
        if kind == "inline":
            tex = draw(formulas())
            body.append(f"<p>a {INLINE_OPEN}\\({escape(tex, style)}\\)</span> b</p>")
        elif kind == "display":
            tex = draw(formulas())
            eqno = draw(
                st.sampled_from(
                    ["", '<span class="eqno">(1)<a class="headerlink" href="#e">#</a></span>']
                )
            )
            lead, trail = draw(st.sampled_from([("", ""), ("\n", "\n"), ("  ", "")]))
            ident = draw(st.sampled_from(["", f' id="equation-{k}"']))
            tex_html = escape(tex, style)
            body.append(
                f"{DISPLAY_OPEN.format(id=ident)}{eqno}{lead}\\[{tex_html}\\]{trail}</div>"
            )
        else:
            tex = "\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}"
            body.append(f"{DISPLAY_OPEN.format(id='')}\n{escape(tex, style)}\n</div>")
        texs.append((kind != "inline", tex))
        body.append(
            draw(
                st.sampled_from(
                    ["", "<p>$5 &amp; 6</p>", "<pre>\\(x\\)</pre>", "<code>\\[y\\]</code>"]
                )
            )
        )
    fault = draw(st.sampled_from([None] * 6 + ["stray", "macro", "entity", "codepoint"]))
    if fault == "stray":
        body.append("<p>left \\(x\\) here</p>")
    elif fault == "macro":
        body.append(f"<p>{INLINE_OPEN}\\(\\nosuchmacro\\)</span></p>")
    elif fault == "entity":
        body.append(f"<p>{INLINE_OPEN}\\(a &nosuch; b\\)</span></p>")
    elif fault == "codepoint":
        body.append(f"<p>{INLINE_OPEN}\\(a &#x110000; b\\)</span></p>")
    head = f"<!DOCTYPE html>\n<html><head>\n{CONFIG}{LOADER}</head>"
    page = f"{head}<body>{''.join(body)}</body></html>"
    return page, texs, fault


FORMULA_IN = re.compile(
    r"(?<=" + re.escape(INLINE_OPEN) + r")\\\([^<]*?\\\)(?=</span>)"
    r"|\\\[[^<]*?\\\](?=\s*</div>)|\\begin\{aligned\}[^<]*?\\end\{aligned\}"
)
MATH_OUT = re.compile(r"<math\b[\s\S]*?</math>")


def leaf_text(mml: str) -> str:
    return re.sub(r"\s+", "", htmllib.unescape(re.sub(r"<[^>]+>", "", mml)))


@PROPS
@given(pages())
def test_formulas_are_typeset_from_their_decoded_tex(node, case):
    page, texs, fault = case
    got = node({"op": "math", "html": page, "where": WHERE})
    if fault:
        assert "error" in got, f"{WHERE}: a page with a fault ({fault}) was accepted:\n{page}"
        assert got["error"].startswith(WHERE), f"the error does not name the page: {got['error']}"
        return
    assert "error" not in got, f"{WHERE}: {got['error']}\n{page}"
    out = got["html"]
    assert got["n"] == len(texs)
    assert FORMULA_IN.sub("M", page) == MATH_OUT.sub("M", out), (
        f"{WHERE}: more than the formulas changed:\n in  {page}\n out {out}"
    )
    maths = MATH_OUT.findall(out)
    assert len(maths) == len(texs)
    for (display, tex), mml in zip(texs, maths):
        ref = node({"op": "temml", "tex": tex, "display": display, "macros": {"\\R": MACROS["R"]}})
        if display:
            assert 'display="block"' in mml.split(">", 1)[0], f"{WHERE}: {tex!r} not display"
            assert leaf_text(mml) == leaf_text(ref["mml"]), f"{WHERE}: {tex!r} typeset as {mml}"
        else:
            assert mml == ref["mml"], f"{WHERE}: {tex!r} typeset as\n {mml}\n want {ref['mml']}"


@pytest.mark.parametrize("ref", ["&#x110000;", "&#xD800;", "&#99999999;"])
def test_impossible_character_reference_names_the_page(node, ref):
    body = f"<body>{INLINE_OPEN}\\(a {ref}\\)</span></body>"
    page = f"<html><head>\n{CONFIG}{LOADER}</head>{body}</html>"
    got = node({"op": "math", "html": page, "where": WHERE})
    assert "error" in got and got["error"].startswith(WHERE), got


def test_a_page_already_done_is_recognised(node):
    """After inline-css.mjs the math.css link is gone: the page must still read as done (it
    was reported as "maths but no MathJax scripts from Sphinx")."""
    page = (
        '<html><head><meta name="inlined-css" content="web/inline-css.mjs" />\n<style>p{}</style>'
        f"</head><body>{INLINE_OPEN}<math><mi>x</mi></math></span></body></html>"
    )
    got = node({"op": "math", "html": page, "where": WHERE})
    assert got.get("state") == "done", got


def test_a_function_name_stays_with_its_argument_in_a_wrapping_formula(node):
    """Issue 39's cold read: chapter 5's Var[q·k] = Σ Var[q_j k_j] = d broke on a phone
    between "Var" and "[q_j k_j] = d": Temml's wrapping form ended a piece with the function
    name (and its invisible apply-function operator, U+2061). A wrapping formula breaks at its
    relations, never between a function and its argument."""
    tex = "\\operatorname{Var}[x] = \\sum_{j=1}^{d} \\operatorname{Var}[x_j] = d"
    body = f"<body>{DISPLAY_OPEN.format(id='')}\\[{tex}\\]</div></body>"
    page = f"<html><head>\n{CONFIG}{LOADER}</head>{body}</html>"
    got = node({"op": "math", "html": page, "where": WHERE})
    assert "error" not in got, got
    (mml,) = MATH_OUT.findall(got["html"])
    assert "attn-wrap" in mml, f"the formula is not in the wrapping form: {mml}"
    pieces = mml.split("</mrow><mrow>")
    assert len(pieces) >= 3, f"the formula has no breaks at its relations: {mml}"
    ends_on_name = [p[-40:] for p in pieces[:-1] if p.endswith("<mo>\u2061</mo>")]
    assert not ends_on_name, f"a piece ends on a function name, its argument on the next: {mml}"


GRU_STEP = (
    "\\mathbf s_{t'} = \\operatorname{GRU}\\big(\\mathbf s_{t'-1}, "
    "[\\mathbf e(y_{t'-1}); \\mathbf c_{t'}]\\big), \\qquad "
    "P(y_{t'}) = \\operatorname{softmax}(\\mathbf W_o \\mathbf s_{t'} + \\mathbf b_o)"
)


def test_a_wrapping_formula_keeps_a_function_its_brackets_and_its_arguments_together(node):
    """Issue 39's cold read: chapter 7's GRU step broke on a phone after "GRU(", its arguments
    on the next line. No piece of a wrapping formula ends on a function name (U+2061) or an
    opening bracket, none starts with a closing bracket or a separator, and a sized pair
    (\\big( ... \\big)) is never split; it still breaks after its relations. Formulas set side by
    side with \\qquad are clauses, each wrapping on its own."""
    body = f"<body>{DISPLAY_OPEN.format(id='')}\\[{GRU_STEP}\\]</div></body>"
    page = f"<html><head>\n{CONFIG}{LOADER}</head>{body}</html>"
    got = node({"op": "math", "html": page, "where": WHERE})
    assert "error" not in got, got
    (mml,) = MATH_OUT.findall(got["html"])
    assert "attn-wrap" in mml, f"the formula is not in the wrapping form: {mml}"
    # pieces, whether in one row or in clauses (<mrow class="attn-clause">, one per \qquad)
    pieces = [
        re.sub(r"<[^>]+>", "", p)
        for p in re.split(r"</mrow>(?:</mrow>)?<mrow\b[^>]*>(?:<mrow>)?", mml)
    ]
    clauses = re.findall(r'<mrow class="attn-clause">', mml)
    assert len(clauses) == 2, f"two formulas side by side (\\qquad) are not two clauses: {mml}"
    assert len(pieces) >= 3, f"the formula has no breaks left: {pieces}"
    assert not [p for p in pieces[:-1] if p.endswith(("\u2061", "(", "[", "{"))], pieces
    assert not [p for p in pieces[1:] if p.startswith((")", "]", "}", ",", ";"))], pieces
    gru = [p for p in pieces if "GRU" in p]
    assert (
        len(gru) == 1 and gru[0].startswith("GRU\u2061(") and gru[0].rstrip(",").endswith("])")
    ), f"GRU( ... ) is split over pieces: {pieces}"
    assert any(p.endswith("=") for p in pieces), f"no break after a relation: {pieces}"
    assert "=" not in pieces, f"a relation alone on a line: {pieces}"
