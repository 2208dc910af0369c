"""The pipeline picture: numbers computed independently, drawn as shown."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402
import torch  # noqa: E402

from attnlib.book.diagrams import draw_pipeline, pipeline_example  # noqa: E402


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_dot_product_example_numbers():
    e = pipeline_example("dot_product")
    q, k, v = e["query"], e["keys"], e["values"]
    scores = torch.stack([q @ k[i] / math.sqrt(2) for i in range(4)])  # by hand
    weights = torch.exp(scores) / torch.exp(scores).sum()
    torch.testing.assert_close(e["scores"], scores)
    torch.testing.assert_close(e["weights"], weights)
    torch.testing.assert_close(e["output"], (weights[:, None] * v).sum(0))


def test_masked_example_and_figure_text():
    e = pipeline_example("dot_product", valid_len=3)
    assert e["weights"][3] == 0 and float(e["weights"][:3].sum()) == pytest.approx(1.0)
    fig = draw_pipeline(e, title="t")
    texts = _texts(fig)
    assert "0.00" in texts and any("(masked)" in t for t in texts)
    assert f"{float(e['weights'][2]):.2f}" in texts
    assert "(" + ", ".join(f"{x:.2f}" for x in e["output"].tolist()) + ")" in texts


@pytest.mark.parametrize("scoring", ["gaussian", "additive"])
def test_other_scorings_give_valid_weights(scoring):
    e = pipeline_example(scoring)
    assert torch.all(e["weights"] >= 0)
    assert float(e["weights"].sum()) == pytest.approx(1.0)
    assert draw_pipeline(e).axes


def test_bad_inputs():
    with pytest.raises(ValueError, match="scoring must be"):
        pipeline_example("cosine")
    e = dict(pipeline_example())
    e["weights"] = e["weights"][:3]
    with pytest.raises(ValueError, match=r"example\['weights'\] must have shape \(4,\)"):
        draw_pipeline(e)
