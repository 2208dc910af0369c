"""scoringbook.glue and scoringbook.claims: what they refuse, and that a broken claim fails."""

from __future__ import annotations

import pytest

from scoringbook import claims
from scoringbook.glue import glue


def test_glue_returns_its_text_outside_a_notebook():
    assert glue("date_right", "998") == "998"


@pytest.mark.parametrize(
    "name, text, error, match",
    [
        ("1st", "0.5", ValueError, "name must be an identifier"),
        ("", "0.5", ValueError, "name must be an identifier"),
        (3, "0.5", TypeError, r"name must be an identifier \(str\); got 3 \(int\)"),
        ("acc", 0.5, TypeError, "text must be a str"),
        ("acc", None, TypeError, "text must be a str"),
        ("acc", "", ValueError, "one non-empty line"),
        ("acc", "0.5\n0.6", ValueError, "one non-empty line"),
    ],
)
def test_glue_refuses_what_the_prose_could_not_show(name, text, error, match):
    with pytest.raises(error, match=match):
        glue(name, text)


def test_check_names_every_broken_claim_and_passes_held_ones():
    held = claims.Claim("a", "holds", 0.9, ">=", 0.5)
    low = claims.Claim("b", "too low", 0.1, ">=", 0.5)
    high = claims.Claim("c", "too high", 0.9, "<=", 0.5)
    claims.check([held])  # nothing raised
    assert held.margin == pytest.approx(0.4) and high.margin == pytest.approx(-0.4)
    with pytest.raises(AssertionError, match=r"- b: too low.*\n- c: too high"):
        claims.check([held, low, high])


def test_length_claims_fail_when_attention_does_not_help():
    import torch

    flat = torch.full((1, 16, 2), 0.5, dtype=torch.float64)  # every model alike
    results = {name: flat for name in ("with attention", "without", "without (3×)", "query-blind")}
    broken = {c.name for c in claims.length_claims(results) if not c.holds}
    assert {"att_short", "plain_falls", "plain3_short", "att_beyond"} <= broken
