"""Chapter 10's preset notices and read-outs say what their own frames show.

A notice that quotes a number (the previous-token head's share, the loss against ln 20, the
knock-out accuracies) is recomputed here from the frames the preset shows, with plain loops
and ``math.log(20)``, and its words are checked against the numbers: once on the committed
notebook's saved explorers (what the page shows), once on a short training run built here.
The knock-out chart is checked for a discrete axis: a tick and a readable bar at every place
of the repeat, place 0 included.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from _saved_state import saved_explorers, saved_frame

from scoringbook import ch10_model as tiny
from scoringbook import ch10_multihead as explore

NOTEBOOK = "10_induction_heads.ipynb"
LN20 = math.log(20)
NUM = r"(\d+\.\d\d)"


@pytest.fixture(scope="module")
def short_run():
    return tiny.train(seed=3, steps=6, every=3, n_held_out=16)


def _saved(name):
    """(frame for params, the presets with their values) of a saved explorer."""
    state = saved_explorers(NOTEBOOK)[name]
    spec = state["spec"]
    values = {p["name"]: p["values"] for p in spec["params"]}
    presets = [
        (p["label"], p["notice"], {k: values[k][i] for k, i in p["indices"].items()})
        for p in spec["presets"]
    ]
    return (lambda params: saved_frame(state, params)), presets


def _built(decl):
    return (lambda params: decl.compute(**params)), [
        (p.label, p.notice, p.values) for p in decl.presets
    ]


def _sources(name, run):
    build = {
        "heads": explore.heads_declaration,
        "heads_playback": explore.heads_playback_declaration,
        "ablation": explore.ablation_declaration,
    }[name]
    return {"saved": _saved(name), "short run": _built(build(run))}


def _plain(frame):
    return {k: (np.asarray(v) if not isinstance(v, (str, dict)) else v) for k, v in frame.items()}


def _back(w, o):
    """Mean weight ``o`` places back over the rows that have a token there (plain loops)."""
    n = len(w)
    return sum(float(w[i][i - o]) for i in range(o, n)) / (n - o)


def _check_previous_notice(notice, frame_of, values, n_seq):
    m = re.search(rf"puts {NUM} of its weight just below the diagonal", notice)
    assert m, f"the notice quotes no share on the token before: {notice!r}"
    shares = {}
    for s in range(1, n_seq + 1):
        w = np.asarray(frame_of({**values, "sequence": str(s)})["weights"], dtype=float)
        shares[s] = [_back(w, o) for o in range(len(w))]
    here = shares[int(values["sequence"])]
    assert abs(float(m.group(1)) - here[1]) <= 0.005 + 1e-4, (m.group(1), here[1])
    if "more than on any other single place" in notice:
        assert all(here[1] > here[o] for o in range(len(here)) if o != 1), here
    elif "more than on any other earlier token" in notice:
        assert all(here[1] > here[o] for o in range(2, len(here))) and here[0] >= here[1]
    else:
        best = re.search(rf"less than (\d+) places back \({NUM}\)", notice)
        assert best, notice
        o = int(best.group(1))
        assert here[o] >= here[1] and abs(float(best.group(2)) - here[o]) <= 0.005 + 1e-4
    # by part: the random part (rows 1 to k - 1, the induction head's keys) and the repeat
    part = re.search(
        rf"\({NUM} a row in the random part, rows 1 to (\d+), where the induction head's keys "
        rf"are; {NUM} in the repeat\)",
        notice,
    )
    assert part, f"the notice does not split the share by part: {notice!r}"
    w = np.asarray(frame_of(values)["weights"], dtype=float)
    k = int(part.group(2)) + 1
    assert 1 < k < len(w), (k, len(w))
    back = [float(w[r][r - 1]) for r in range(1, len(w))]
    assert abs(float(part.group(1)) - sum(back[: k - 1]) / (k - 1)) <= 0.005 + 1e-4
    assert abs(float(part.group(3)) - sum(back[k - 1 :]) / (len(w) - k)) <= 0.005 + 1e-4
    others = [float(v) for v in re.findall(NUM, notice.split("other sequences")[-1])]
    want = [shares[s][1] for s in sorted(shares) if s != int(values["sequence"])]
    assert len(others) == len(want) and all(
        abs(a - b) <= 0.005 + 1e-4 for a, b in zip(others, want)
    )


@pytest.mark.parametrize("source", ["saved", "short run"])
def test_the_previous_token_notice_is_what_its_frames_show(short_run, source):
    # the old notice ("much of each row's weight sits just below the diagonal") quoted no
    # share: the head it picks puts 0.43 there, under half
    frame_of, presets = _sources("heads", short_run)[source]
    ((label, notice, values),) = [p for p in presets if p[0] == "Previous-token head"]
    n_seq = len(saved_explorers(NOTEBOOK)["heads"]["spec"]["params"][1]["values"])
    if source == "short run":
        n_seq = len(short_run.watch_k)
    _check_previous_notice(notice, frame_of, values, n_seq)


def _loss_relation(notice):
    m = re.search(rf"the loss, {NUM}, is (above|at|below|far below) ln 20 ≈ 3\.00", notice)
    assert m, f"the notice does not compare a loss with ln 20: {notice!r}"
    return float(m.group(1)), m.group(2)


@pytest.mark.parametrize("source", ["saved", "short run"])
def test_the_playback_notices_compare_the_loss_shown_with_guessing(short_run, source):
    # the old step-0 notice said "the loss is that of guessing"; the point it shows is above
    # ln 20 (3.15 in the committed run)
    frame_of, presets = _sources("heads_playback", short_run)[source]
    ends = {min(v["step"] for _, _, v in presets), max(v["step"] for _, _, v in presets)}
    checked = 0
    for label, notice, values in presets:
        if values["step"] not in ends and "ln 20" not in notice:
            continue  # the middle preset speaks of the stripe only
        quoted, rel = _loss_relation(notice)
        frame = frame_of(values)
        loss = float(np.asarray(frame["loss"]["now"]).reshape(2, -1)[1, 0])
        assert abs(quoted - loss) <= 0.005 + 1e-4, (label, quoted, loss)
        a, g = round(loss, 2), round(LN20, 2)
        want = {"above": a > g, "at": a == g, "below": g / 2 <= a < g, "far below": a < g / 2}
        assert want[rel], f"{label}: the loss {loss:.4f} is not {rel} ln 20 = {LN20:.4f}"
        checked += 1
    assert checked >= 2, "the first and last steps' notices must compare the loss with ln 20"


@pytest.mark.parametrize("source", ["saved", "short run"])
def test_the_playback_read_out_states_the_step_loss_and_head_scores(short_run, source):
    frame_of, presets = _sources("heads_playback", short_run)[source]
    for _label, _notice, values in presets:
        for head in ("L1H1", "L2H2"):
            frame = frame_of({**values, "head": head})
            text = frame.get("readout")
            assert isinstance(text, str), "the playback has no read-out of the step"
            assert all(len(line) <= 38 for line in text.splitlines()), text  # a phone's width
            m = re.search(rf"step (\d+): loss {NUM}", text)
            assert m and int(m.group(1)) == values["step"], text
            loss = float(np.asarray(frame["loss"]["now"]).reshape(2, -1)[1, 0])
            assert abs(float(m.group(2)) - loss) <= 0.005 + 1e-4, (text, loss)
            layer, h = int(head[1]), int(head[3])
            if source == "short run":
                k = short_run.steps.index(values["step"])
                ind = short_run.induction[k][layer - 1, h - 1]
                prev = short_run.previous[k][layer - 1, h - 1]
                assert f"induction {ind:.2f}, previous {prev:.2f}" in text, (text, ind, prev)


def _accuracy(frame):
    """(bars per place from 0, the mean printed under the chart)."""
    series = {k: np.asarray(v, dtype=float) for k, v in frame["accuracy"].items()}
    bars = np.sum(list(series.values()), axis=0)  # each place is drawn by one series
    mean = float(re.search(rf"accuracy on the repeats: {NUM}", frame["summary"]).group(1))
    return bars, mean


@pytest.mark.parametrize("source", ["saved", "short run"])
def test_the_knock_out_notices_are_what_their_frames_show(short_run, source):
    frame_of, presets = _sources("ablation", short_run)[source]
    by = {label: (notice, _accuracy(frame_of(values))) for label, notice, values in presets}
    notice, (bars, mean) = by["All heads kept"]
    lo, hi = (float(v) for v in re.search(rf"\({NUM} to {NUM}\)", notice).groups())
    assert abs(lo - bars[1:].min()) <= 0.005 + 1e-4 and abs(hi - bars[1:].max()) <= 0.005 + 1e-4
    assert ("most of the tokens" in notice) == (bars[1:].min() > 0.5), notice
    first = float(re.search(rf"{NUM} of its tokens are right", notice).group(1))
    assert abs(first - bars[0]) <= 0.005 + 1e-4, (first, bars[0])
    notice, (_, zeroed_mean) = by["Previous-token head zeroed"]
    a, b = (float(v) for v in re.search(rf"from {NUM} to {NUM}", notice).groups())
    assert abs(a - mean) <= 0.005 + 1e-4 and abs(b - zeroed_mean) <= 0.005 + 1e-4
    assert ("does not drop" in notice) == (zeroed_mean >= mean), notice
    notice, (bars, _) = by["Both induction heads zeroed"]
    top = float(re.search(rf"fall to {NUM} or less", notice).group(1))
    assert abs(top - bars[1:].max()) <= 0.005 + 1e-4, (top, bars)
    assert ("about chance" in notice) == (bars[1:].max() <= 0.15), notice


def test_the_knock_out_chart_has_a_tick_and_a_bar_at_every_place():
    # issue 39 item 6: the chart had ticks at 2.5, 5, 7.5 for places 1 to 9, 2-px bars and no
    # place 0
    spec = saved_explorers(NOTEBOOK)["ablation"]["spec"]
    (panel,) = [p for p in spec["panels"] if p["name"] == "accuracy"]
    places = list(range(tiny.HALF))  # 0 .. 9: the longest repeat has 10 places
    assert panel["xticks"] == places, panel["xticks"]
    assert panel["xlim"] == [-0.5, tiny.HALF - 0.5], panel["xlim"]
    plot_px = 330 - 46 - 8  # lines.js: the panel's plot width, left and right margins
    slot = plot_px / (panel["xlim"][1] - panel["xlim"][0])
    for s in panel["series"]:
        assert s["style"] == "bars" and 0.4 * slot <= s["width"] <= 0.8 * slot, (s, slot)
    frame = saved_frame(saved_explorers(NOTEBOOK)["ablation"], dict.fromkeys(
        ["L1H1", "L1H2", "L2H1", "L2H2"], "kept"))  # fmt: skip
    drawn = [np.flatnonzero(np.asarray(v) > 0).tolist() for v in frame["accuracy"].values()]
    assert sorted(sum(drawn, [])) == places, drawn  # every place has its bar, one each


def test_the_prose_quotes_the_loss_the_playback_and_its_notices_show():
    """Issue 39's cold read: the prose said 3.11 / 0.80 (the first and last 10 steps' means)
    while the playback's notices said 3.15 / 0.81 (its curve's ends). The numbers glued into
    the prose are the committed playback's first and last points, so both tell one story."""
    chapters = Path(__file__).resolve().parents[2] / "chapters"
    glued = {}
    for cell in json.loads((chapters / NOTEBOOK).read_text(encoding="utf8"))["cells"]:
        for o in cell.get("outputs", []):
            text = o.get("data", {}).get("application/papermill.record/text/plain")
            if text is not None:
                glued[o["metadata"]["scrapbook"]["name"]] = "".join(text).strip("'\"")
    _, presets = _saved("heads_playback")
    steps = sorted(v["step"] for _, _, v in presets)
    for name, step in (("loss_first", steps[0]), ("loss_last", steps[-1])):
        notice = next(n for _, n, v in presets if v["step"] == step)
        quoted, _ = _loss_relation(notice)
        assert glued[name] == f"{quoted:.2f}", (name, glued[name], notice)
