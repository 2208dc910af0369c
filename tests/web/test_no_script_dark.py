"""The build's two pieces of issue 39's page-shell fixes, on stylesheets and pages written here:

- web/inline-css.mjs ``withNoScriptDark``: the stylesheet is kept as it was, and followed by ONE
  ``@media (prefers-color-scheme:dark)`` block holding a twin of each rule whose selectors name
  ``[data-theme=dark]`` (quoted or not) outside any ``:not(...)``: only those selectors, with
  ``[data-theme=dark]`` read as ``:not([data-script])`` (html without layout.html's script), the
  declarations unchanged, inside the same @media/@supports; nothing else (a light rule, a
  ``:not([data-theme=dark])`` rule, @keyframes, a string that says ``[data-theme=dark]``). The
  expected twins are written out by hand below; the output is read back by tinycss2.
- web/prerender-explorers.mjs ``nameExplorerTimelines``: the cell output holding the k-th
  explorer's static picture is named ``--attn-explorer-k`` (a view timeline "on this page"'s
  fold reads; attnbook.css lists 8), other outputs are left alone, and a ninth explorer is an
  error that says where the names are listed.
"""

from __future__ import annotations

import pytest
import tinycss2

MEDIA = "@media (prefers-color-scheme:dark){"

CASES = {
    "variables": (
        "html,html[data-theme=light]{--a:1}html[data-theme=dark]{--a:2;color-scheme:dark}",
        ["html:not([data-script]){--a:2;color-scheme:dark}"],
    ),
    "only the dark selectors of a list": (
        'a,html[data-theme=dark] .x,:is(html,body)[data-theme="dark"] .y{color:red}',
        ["html:not([data-script]) .x,:is(html,body):not([data-script]) .y{color:red}"],
    ),
    "a light rule under :not() has no twin": (
        "html[data-theme=dark] .only-light,html[data-script]:not([data-theme=dark]) .only-dark"
        "{display:none!important}html:not([data-theme=dark]) .q{a:b}",
        ["html:not([data-script]) .only-light{display:none!important}"],
    ),
    "inside @media and @supports": (
        "@media print{html[data-theme=dark]{--a:1}.p{b:c}}"
        "@supports (x:y){[data-theme=dark] .s{d:e}}",
        [
            "@media print{html:not([data-script]){--a:1}}",
            "@supports (x:y){:not([data-script]) .s{d:e}}",
        ],
    ),
    "keyframes, strings and light rules: nothing": (
        '@keyframes k{from{opacity:0}}.s::after{content:"{[data-theme=dark]}"}'
        "html[data-theme=light] .k{color:#000}",
        [],
    ),
}


def _rules(css: str) -> list[str]:
    """Each top-level rule of ``css`` serialized by tinycss2 (whitespace as written)."""
    return [
        r.serialize()
        for r in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    ]


@pytest.mark.parametrize("name", CASES)
def test_no_script_dark_twins(node, name):
    css, twins = CASES[name]
    got = node({"op": "noScriptDark", "css": css})["css"]
    assert got.startswith(css), f"{name}: the stylesheet was changed: {got!r}"
    rest = got[len(css) :]
    if not twins:
        assert rest == "", f"{name}: twins added: {rest!r}"
        return
    assert rest.startswith(MEDIA) and rest.endswith("}"), f"{name}: {rest!r}"
    inner = rest[len(MEDIA) : -1]
    assert _rules(inner) == _rules("".join(twins)), f"{name}: {inner!r}"
    # the whole reads as CSS: one more top-level rule, an @media
    top = tinycss2.parse_stylesheet(got, skip_comments=True, skip_whitespace=True)
    assert top[-1].type == "at-rule" and top[-1].lower_at_keyword == "media"
    assert not [r for r in top if r.type == "error"], f"{name}: {got!r}"


OUTPUT = '<div class="cell_output docutils container">'


def _page(n_explorers: int, figures: int = 1) -> str:
    parts = [f'{OUTPUT}\n<img src="f{i}.png"></div>' for i in range(figures)]
    for k in range(n_explorers):
        parts.append(
            f'{OUTPUT}\n<div class="attn-static"><div class="attn-explorer">{k}</div></div></div>'
        )
    return "<main>" + "".join(parts) + "</main>"


@pytest.mark.parametrize("n", [0, 1, 3, 8])
def test_explorer_outputs_are_named_in_page_order(node, n):
    got = node({"op": "timelines", "html": _page(n)})["html"]
    for k in range(n):
        named = f'{OUTPUT[:-1]} style="view-timeline-name: --attn-explorer-{k}">'
        assert got.count(named) == 1, f"{n} explorers: output {k} not named once"
        # in page order: the k-th name sits before explorer k's picture
        assert got.index(named) < got.index(f'<div class="attn-explorer">{k}</div>')
    assert got.count("view-timeline-name") == n
    # a figure's output is not an explorer's
    assert f'{OUTPUT}\n<img src="f0.png">' in got


def test_a_ninth_explorer_is_an_error(node):
    got = node({"op": "timelines", "html": _page(9)})
    assert "more than 8 explorers" in got.get("error", ""), got
    assert "attnbook.css" in got["error"]
