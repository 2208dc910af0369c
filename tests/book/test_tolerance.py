"""tests/_tolerance.py, the tolerance policy for committed numbers: a comparison tighter than a
value's recorded precision is refused, an order-dependent value gets 10x its measured spread,
an exact one is compared exactly."""

from __future__ import annotations

import numpy as np
import pytest
from _tolerance import (
    EXACT,
    HEADROOM,
    MEASURED,
    ORDER,
    ROUNDED_6,
    Tolerance,
    assert_array_close,
    check_not_tighter,
    compare_json,
    encoding_quantum,
    frame_tolerance,
    page_tolerance,
    spec_tolerance,
)

from attnlib.widgets.encoding import decode_frames, encode_frames


def test_a_6_decimal_value_compared_at_rel_1e_6_is_refused():
    # the comparison tests/book/test_saved_state.py made before issue 36: pytest.approx(rel=1e-6,
    # abs=1e-9) of a trained curve rounded to 6 decimals (0.397003 vs 0.397004 on an AVX-512 Xeon)
    with pytest.raises(ValueError, match="tighter than the value's recorded precision"):
        check_not_tighter(1e-9, 1e-6, 0.397004, ROUNDED_6, "bandwidth_training spec")
    with pytest.raises(ValueError, match="tighter"):
        Tolerance(ORDER, ROUNDED_6, spread=1e-8, atol=1e-6, what="trained curve")
    # one unit of the rounding plus 10x the spread is the least it may allow
    Tolerance(ORDER, ROUNDED_6, spread=1e-8, atol=1e-6 + HEADROOM * 1e-8)
    check_not_tighter(2e-6, 0.0, 0.397004, ROUNDED_6, "one unit and more")


def test_the_default_tolerance_is_the_recorded_precision_plus_10x_the_spread():
    t = Tolerance(ORDER, ROUNDED_6, spread=3e-7)
    assert t.atol == pytest.approx(1e-6 + 3e-6)
    assert t.close(0.397003, 0.397004) and t.close(0.397003, 0.397007)
    assert not t.close(0.397003, 0.397009)
    assert Tolerance(EXACT, 0.0).atol == 0.0
    with pytest.raises(ValueError, match="an exact value has no spread"):
        Tolerance(EXACT, 0.0, spread=1e-9)
    with pytest.raises(ValueError, match="kind must be"):
        Tolerance("loose", 0.0)
    with pytest.raises(ValueError, match="quantum must be a finite number"):
        Tolerance(ORDER, float("nan"))


def test_compare_json_holds_exact_values_exactly_and_trained_ones_within_the_policy():
    exact, order = Tolerance(EXACT, 0.0), Tolerance(ORDER, ROUNDED_6, spread=1e-7)
    spec = {"y": [0.397004, 1.0], "n": 3, "label": "σ = 0.397 and 0.052"}
    compare_json(spec, spec, exact, "same")
    moved = {"y": [0.397003, 1.0], "n": 3, "label": "σ = 0.398 and 0.052"}
    compare_json(moved, spec, order, "one unit apart")
    with pytest.raises(AssertionError, match=r"y\[0\]: 0.397003 vs 0.397004"):
        compare_json(moved, spec, exact, "exact")
    for bad, match in [
        ({**spec, "y": [0.39701, 1.0]}, r"y\[0\]"),  # 6 units: more than 1 + 10 x 0.1
        ({**spec, "n": 4}, r"\.n: 4 vs 3"),  # integers are exact
        ({**spec, "label": "σ = 0.397 and 0.054"}, "label"),  # 2 units of the 3rd decimal
        ({**spec, "label": "s = 0.397 and 0.052"}, "label"),  # the words are exact
        ({"y": [0.397004]}, "keys"),
    ]:
        with pytest.raises(AssertionError, match=match):
            compare_json(bad, spec, order, "spec")
    with pytest.raises(AssertionError, match="keys"):
        compare_json({**spec, "extra": 1}, spec, order, "spec")


def test_frames_are_compared_within_their_encoding_step_and_spread():
    values = np.linspace(0.0, 1.0, 12).reshape(3, 4)  # (n_frames, n)
    enc = encode_frames(values)
    q = encoding_quantum(enc)
    assert 0 < q < 1e-5
    decoded = decode_frames(enc)
    assert_array_close(decoded, values, Tolerance(EXACT, q), "decoded")
    with pytest.raises(AssertionError, match="differs by"):
        assert_array_close(decoded + 3 * q, values, Tolerance(EXACT, q), "decoded")
    assert encoding_quantum(encode_frames(np.arange(6.0).reshape(2, 3))) == 0.0  # integers


def test_every_published_explorer_has_a_measured_spread_and_trained_ones_are_order_dependent():
    from book.test_saved_state import PUBLISHED

    names = {n for ns in PUBLISHED.values() for n in ns}
    assert names <= set(MEASURED), f"no spread measured for {sorted(names - set(MEASURED))}"
    # the bandwidth is learned by 100 steps of Adam: its curves move between numeric paths
    assert spec_tolerance("bandwidth_training").kind == ORDER
    assert frame_tolerance("bandwidth_training", 1e-5).kind == ORDER
    assert spec_tolerance("softmax_temperature").kind == EXACT
    with pytest.raises(KeyError, match="no spread measured"):
        spec_tolerance("no_such_explorer")


def test_a_page_of_a_trained_explorer_is_held_to_its_saved_frames_only():
    # tests/browser/_frames.py: the page against attnlib; a rebuilt explorer's stored frames are
    # committed numbers (their spread is added), a trained one's page shows the saved frames
    trained = page_tolerance("alignment_playback", 1e-4, trained=True)
    assert (trained.kind, trained.atol) == (EXACT, 1e-4)
    rebuilt = page_tolerance("scaling", 1e-4, trained=False)
    assert rebuilt.kind == ORDER
    assert rebuilt.atol == pytest.approx(1e-4 + HEADROOM * MEASURED["scaling"]["frames"])
