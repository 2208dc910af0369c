"""Chapter 7's playback: the loss the prose quotes is the one its chart shows.

Issue 39's cold read of chapters 6-10: the prose said "the loss, 2.64, is close to that of
guessing (ln 13 ≈ 2.56)" beside a chart whose step-0 point (the curve's moving mean) sat at
about 2.4, below the guessing line. The prose now gives both: the first step's loss and the
curve's first point, each glued, and the glued curve value is the saved explorer's step-0 point.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _saved_state import saved_explorers, saved_frame

NOTEBOOK = "07_bahdanau_attention.ipynb"
CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"
GLUE_MIME = "application/papermill.record/text/plain"


def _glued() -> dict[str, str]:
    out = {}
    for cell in json.loads((CHAPTERS / NOTEBOOK).read_text(encoding="utf8"))["cells"]:
        for o in cell.get("outputs", []):
            text = o.get("data", {}).get(GLUE_MIME)
            if text is not None:
                out[o["metadata"]["scrapbook"]["name"]] = "".join(text).strip("'\"")
    return out


def test_the_prose_quotes_the_playback_charts_first_point():
    glued = _glued()
    assert "pb_loss0_curve" in glued, "the prose must quote the chart's step-0 point"
    state = saved_explorers(NOTEBOOK)["alignment_playback"]
    frame = saved_frame(state, {"step": 0})
    point = float(np.asarray(frame["loss"]["now"]).reshape(2, -1)[1, 0])
    assert glued["pb_loss0_curve"] == f"{point:.2f}", (glued["pb_loss0_curve"], point)
    prose = " ".join((CHAPTERS / "07_bahdanau_attention.md").read_text(encoding="utf8").split())
    assert (
        "the first step, {glue}`pb_loss0`, is close to that of guessing" in prose
        and "so its first point, {glue}`pb_loss0_curve`, already takes in the fall" in prose
    )
