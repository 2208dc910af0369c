"""web/table-cards.mjs over generated pages, against an oracle written here with Python's
html.parser (the spec in the script's header, read independently):

- a <table> whose <thead> has one row of at least three <th>, with no spanning cells and no
  table inside it, and that is a docutils table (class "docutils") or has a body <td> of three
  words or more, gets class "attn-cards" (one class attribute, its other classes kept);
- each of its body rows' cells (<td>, <th scope=row>), in order, gets data-label = its column's
  header text as the browser reads it (character references decoded, tags and comments
  dropped, runs of whitespace one space);
- a body cell of such a table that shows nothing (its text white space at most, Unicode's
  no-break space included, and no picture or maths) gets one
  <span class="attn-na" role="img" aria-label="not applicable" ...>—</span>, inside its one
  empty paragraph where it has one (issue 39: chapter 10's "none zeroed" card showed two
  names with no values);
- nothing else changes: the page's parse events, less those three additions, are the input's;
- a body row with more cells than the header is an error naming the page; a table left a grid
  for spanning cells is named with the page.

Headers and cells hold every character reference (named, numeric, &nbsp;), markup, comments
holding ">", quoted attribute values holding ">" and "$&" (a replacement pattern in JS).
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from _depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PROPS = settings(
    derandomize=True,
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ASCII_WS = " \t\n\f\r"


def collapse(text: str) -> str:
    return " ".join(_split_ascii(text))


def _split_ascii(text: str) -> list[str]:
    out, cur = [], ""
    for ch in text:
        if ch in ASCII_WS:
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


class Events(HTMLParser):
    """The page as parse events; the tables as the oracle reads them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.events: list[tuple] = []
        self.tables: list[dict] = []
        self._stack: list[dict] = []  # open tables
        self._cell: dict | None = None

    def handle_starttag(self, tag, attrs):
        self.events.append(("start", tag, attrs))
        t = self._stack[-1] if self._stack else None
        if tag == "table":
            if t is not None:
                t["nested"] = True
            new = {"attrs": attrs, "head_rows": 0, "labels": [], "rows": [], "part": None}
            new["nested"] = False
            new["start"] = len(self.events) - 1
            self.tables.append(new)
            self._stack.append(new)
        elif t is None:
            return
        elif self._cell is not None:
            self._cell["tags"].append(tag)
            if tag == "span" and ("class", "attn-na") in attrs:
                self._cell["na"].append(dict(attrs))
            return
        elif tag in ("thead", "tbody"):
            t["part"] = tag
        elif tag == "tr":
            if t["part"] == "thead":
                t["head_rows"] += 1
            elif t["part"] == "tbody":
                t["rows"].append([])
        elif tag in ("td", "th"):
            cell = {"tag": tag, "text": "", "event": len(self.events) - 1, "tags": [], "na": []}
            if t["part"] == "thead" and tag == "th":
                t["labels"].append(cell)
            elif t["part"] == "tbody" and t["rows"]:
                t["rows"][-1].append(cell)
            self._cell = cell

    def handle_endtag(self, tag):
        self.events.append(("end", tag))
        if tag == "table" and self._stack:
            self._stack.pop()
        elif tag in ("td", "th"):
            self._cell = None
        elif tag in ("thead", "tbody") and self._stack:
            self._stack[-1]["part"] = None

    def handle_data(self, data):
        self.events.append(("data", data))
        if self._cell is not None:
            self._cell["text"] += data

    def handle_comment(self, data):
        self.events.append(("comment", data))

    def handle_decl(self, decl):
        self.events.append(("decl", decl))


def parse(html: str) -> Events:
    p = Events()
    p.feed(html)
    p.close()
    return p


def classes(attrs) -> list[str]:
    values = [v for k, v in attrs if k == "class"]
    return _split_ascii(values[0] or "") if values else []


def expected_cards(t: dict) -> bool:
    if t["head_rows"] != 1 or len(t["labels"]) < 3 or t["nested"]:
        return False
    cells = [c for row in t["rows"] for c in row]
    if t.get("spans"):
        return False
    words = any(len(collapse(c["text"]).split(" ")) >= 3 for c in cells if c["tag"] == "td")
    return "docutils" in classes(t["attrs"]) or words


SHOWN = {"img", "svg", "math", "picture", "video", "canvas", "iframe", "object", "embed", "input",
         "button", "select", "textarea"}  # fmt: skip


def shows_nothing(cell: dict) -> bool:
    """The cell's text is white space at most (str.isspace: Unicode's, no-break space included)
    and it holds no picture or maths."""
    return not cell["text"].strip() and not SHOWN & set(cell["tags"])


NA_ATTRS = {
    "class": "attn-na",
    "role": "img",
    "aria-label": "not applicable",
    "title": "not applicable",
}


def without_additions(events: list[tuple]) -> list[tuple]:
    out = []
    skip = 0
    for e in events:
        if skip:  # the "—" marker's text and end tag
            skip -= 1
            continue
        if e[0] == "start" and e[1] == "span" and ("class", "attn-na") in e[2]:
            skip = 2
            continue
        if e[0] == "start":
            attrs = []
            for k, v in e[2]:
                if k == "data-label":
                    continue
                if k == "class" and v is not None:
                    v = " ".join(c for c in _split_ascii(v) if c != "attn-cards")
                attrs.append((k, v))
            e = ("start", e[1], sorted(attrs, key=lambda kv: kv[0]))
        out.append(e)
    return out


def normalise_input(events: list[tuple]) -> list[tuple]:
    out = []
    for e in events:
        if e[0] == "start":
            attrs = [
                (k, " ".join(_split_ascii(v)) if k == "class" and v is not None else v)
                for k, v in e[2]
            ]
            e = ("start", e[1], sorted(attrs, key=lambda kv: kv[0]))
        out.append(e)
    return out


# ----------------------------------------------------------------------------- generated tables

TEXT = st.sampled_from(
    [
        "score",
        "a b c",
        "two words",
        "&amp;",
        "&lt;b&gt;",
        "a&nbsp;b&nbsp;c",
        "&#x41;&#66;",
        "&eacute;t&eacute;",
        "&quot;q&quot;",
        "x &lt; y",
        "<em>em</em>",
        "<code>a$&amp;b</code>",
        "<!-- a > b -->",
        "<br>",
        "q\u1d40k / \u221ad",
        "\u00a0",
        "  spaced \t\n out  ",
        "$'",
        "",
        "0.348",
        '<img alt="" src="a.png">',
        "<p></p>",
        "<p> </p>",
    ]
)


@st.composite
def cell_text(draw):
    return "".join(draw(st.lists(TEXT, min_size=1, max_size=3)))


CELL_ATTRS = st.sampled_from(["", ' title="a>b"', " class=x", ' title="$&amp;"', " data-x='>'"])
TABLE_ATTRS = st.sampled_from(
    [
        ' class="docutils align-default"',
        " class='docutils'",
        " CLASS=docutils",
        ' class="attn-results" aria-label="n > 3"',
        ' data-class="docutils"',
        ' class="a$&b $\'"',
        ' class="docutils" title="x>y"',
        ' class="\tdocutils\n"',
        "",
    ]
)


@st.composite
def tables(draw):
    n_cols = draw(st.integers(1, 5))
    labels = [draw(cell_text()) for _ in range(n_cols)]
    head_tag = draw(st.sampled_from(["<thead>", '<thead class="h">']))
    head = "".join(f"<th{draw(CELL_ATTRS)}>{lab}</th>" for lab in labels)
    rows = []
    for _ in range(draw(st.integers(0, 3))):
        width = draw(st.sampled_from([n_cols, n_cols, n_cols, max(0, n_cols - 1), n_cols + 1]))
        cells = []
        for k in range(width):
            text = draw(cell_text())
            if k == 0 and draw(st.booleans()):
                cells.append(f'<th scope="row"{draw(CELL_ATTRS)}>{text}</th>')
            else:
                span = draw(st.sampled_from(["", "", "", "", ' colspan="2"', " rowspan=2"]))
                cells.append(f"<td{span}{draw(CELL_ATTRS)}>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    extra_head_row = draw(st.sampled_from(["", "", "", "<tr><th>x</th></tr>"]))
    body_tag = draw(st.sampled_from(["<tbody>", '<tbody class="b">']))
    return (
        f"<table{draw(TABLE_ATTRS)}>{draw(st.sampled_from(['', '<colgroup></colgroup>']))}"
        f"{head_tag}<tr>{head}</tr>{extra_head_row}</thead>"
        f"{body_tag}{''.join(rows)}</tbody></table>"
    )


@st.composite
def pages(draw):
    parts = draw(st.lists(st.one_of(tables(), st.sampled_from(["<p>text</p>", "\n"])), max_size=3))
    return "<!DOCTYPE html><html><body>" + "".join(parts) + "</body></html>"


WHERE = "chapters/a b&c$'.html"


@PROPS
@given(pages())
def test_table_cards_label_every_cell_and_change_nothing_else(node, html):
    got = node({"op": "cards", "html": html, "where": WHERE})
    before = parse(html)
    for t in before.tables:
        t["spans"] = _table_has_span(before, t)
    too_wide = [
        t
        for t in before.tables
        if expected_cards(t) and any(len(r) > len(t["labels"]) for r in t["rows"])
    ]
    if too_wide:
        assert "error" in got, f"a body row wider than its header was accepted:\n{html}"
        assert WHERE in got["error"], f"the error does not name the page: {got['error']}"
        return
    assert "error" not in got, f"{WHERE}: {got['error']}\n{html}"
    after = parse(got["html"])
    assert normalise_input(before.events) == without_additions(after.events), (
        f"{WHERE}: more than labels and the class changed:\n in  {html}\n out {got['html']}"
    )
    assert len(after.tables) == len(before.tables)
    n = 0
    for t0, t1 in zip(before.tables, after.tables):
        cards = expected_cards(t0)
        n += cards
        assert [k for k, _ in t1["attrs"]].count("class") <= 1, f"{WHERE}: two class attributes"
        assert ("attn-cards" in classes(t1["attrs"])) == cards, (
            f"{WHERE}: table {'not ' if cards else ''}made cards:\n{got['html']}"
        )
        labels = [collapse(c["text"]) for c in t0["labels"]]
        for r, row in enumerate(t1["rows"]):
            for k, cell in enumerate(row):
                attrs = after.events[cell["event"]][2]
                label = [v for a, v in attrs if a == "data-label"]
                if cards:
                    assert label == [labels[k]], (
                        f"{WHERE}: column {k}'s cell labelled {label}, header text {labels[k]!r}"
                    )
                    was = t0["rows"][r][k]
                    if shows_nothing(was):
                        assert cell["na"] == [NA_ATTRS] and cell["text"].strip() == "\u2014", (
                            f'{WHERE}: an empty cell shows {cell["text"]!r}, not one "\u2014" '
                            f"named not applicable:\n{got['html']}"
                        )
                    else:
                        assert cell["na"] == [], (
                            f'{WHERE}: a cell that shows something got "\u2014"'
                        )
                else:
                    assert label == [], f"{WHERE}: a grid's cell got a label"
                    assert cell["na"] == [], f'{WHERE}: a grid\'s cell got "\u2014"'
        if t0["spans"] and t0["head_rows"] == 1 and len(t0["labels"]) >= 3 and not t0["nested"]:
            assert any(WHERE in s and "spanning" in s for s in got["skipped"]), got["skipped"]
    assert got["n"] == n


def _table_has_span(p: Events, t: dict) -> bool:
    depth, i = 0, t["start"]
    while i < len(p.events):
        e = p.events[i]
        if e[0] == "start" and e[1] == "table":
            depth += 1
        elif e[0] == "end" and e[1] == "table":
            depth -= 1
            if depth == 0:
                return False
        if e[0] == "start" and any(k in ("colspan", "rowspan") for k, _ in e[2]):
            return True
        i += 1
    return False


def test_table_cards_is_idempotent(node):
    page = (
        '<table class="docutils"><thead><tr><th>a</th><th>b</th><th>c</th></tr></thead>'
        "<tbody><tr><td>1</td><td>2</td><td>3</td></tr></tbody></table>"
    )
    once = node({"op": "cards", "html": page, "where": WHERE})
    twice = node({"op": "cards", "html": once["html"], "where": WHERE})
    assert once["n"] == 1 and twice == {"html": once["html"], "n": 0, "skipped": []}


@pytest.mark.parametrize(
    "header",
    [
        "a&nbsp;b",  # a character reference other than the five HTML escapes
        "&#x41;&#66;",
        "p&eacute;",
        "c<!-- x > y -->",  # a comment holding ">"
    ],
)
def test_named_header_corners(node, header):
    """The corners the generator covers, named, so a regression on one reads plainly."""
    page = (
        f'<table class="docutils"><thead><tr><th>{header}</th><th>b</th><th>c</th></tr></thead>'
        "<tbody><tr><td>1</td><td>2</td><td>3</td></tr></tbody></table>"
    )
    test_table_cards_label_every_cell_and_change_nothing_else.hypothesis.inner_test(node, page)


@pytest.mark.parametrize(
    "blank",
    ["<p></p>", "", "  ", "<p>&nbsp;</p>", "<!-- nothing -->"],
)
def test_an_empty_cell_shows_a_dash_named_not_applicable(node, blank):
    """Issue 39's cold read: chapter 10's "| none zeroed | | | 0.93 |" row became a card with two
    names and no values. An empty cell shows "—", named "not applicable" for screen readers."""
    page = (
        '<table class="docutils"><thead><tr><th>head</th><th>previous-token score</th>'
        "<th>accuracy</th></tr></thead><tbody><tr><td><p>none zeroed</p></td>"
        f"<td>{blank}</td><td><p>0.93</p></td></tr></tbody></table>"
    )
    got = node({"op": "cards", "html": page, "where": WHERE})
    (table,) = parse(got["html"]).tables
    (row,) = table["rows"]
    assert [c["text"].strip() for c in row] == ["none zeroed", "\u2014", "0.93"], got["html"]
    assert row[1]["na"] == [NA_ATTRS], got["html"]
    test_table_cards_label_every_cell_and_change_nothing_else.hypothesis.inner_test(node, page)
