"""Chapter 9's explorer: self-attention's weights as the words are shuffled, with and
without positions and the causal mask.

:func:`word_order_explorer` runs one small seeded, untrained :class:`attnlib.MultiHeadAttention`
(``num_hiddens=16``, two heads) on the chapter's sentence. Controls: the word order (as
written, or one fixed shuffle), the positions (none, or sinusoidal ones added after the
shuffle, :class:`attnlib.PositionalEncoding`), the mask (none, or causal) and the head. The
picture is that head's weights, queries as rows, each labelled with its word; the caption
under it says by how much shuffling changes any word pair's weight in that setting:

- no positions, no mask: by nothing (up to float rounding): self-attention is permutation
  equivariant, a shuffle only reorders the rows and columns;
- positions added: by a clear amount, since a word's position travels with its slot;
- the causal mask: by a clear amount too, since the mask stays where it is (Haviv et al.,
  2022).

Every frame is computed when the notebook runs and saved in it (a stored explorer).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from attnlib.domains import Seed, declare, isolated_global_rng
from attnlib.transformer import MultiHeadAttention, PositionalEncoding, causal_valid_lens
from attnlib.widgets import Caption, Choice, Declaration, Explorer, Heatmap, Preset
from scoringbook._common import _generator, _np, _seed

__all__ = ["word_order_declaration", "word_order_explorer", "SENTENCE", "SHUFFLE"]

#: The chapter's sentence, one token per word.
SENTENCE = tuple("the cat sat on the mat because it was tired".split())
#: The chapter's shuffle: slot ``i`` of the shuffled sentence holds word ``SHUFFLE[i]``.
SHUFFLE = (3, 1, 9, 0, 5, 2, 8, 4, 7, 6)
#: The model's size: one row of 16 numbers per word, two heads of 8.
NUM_HIDDENS, NUM_HEADS = 16, 2
#: The embeddings' standard deviation: at 1 the untrained maps give every word nearly the
#: same weight (at most 0.25 of a row, seed 0), a flat picture; at 2 each row has favourites.
EMBED_SCALE = 2.0

ORDERS = ("written", "shuffled")
POSITIONS = ("none", "sinusoidal")
MASKS = ("none", "causal")


def _weights(seed: int) -> tuple[dict[tuple[str, str, str], np.ndarray], torch.Tensor, Any]:
    """Every setting's weights, ``(order, positions, mask) -> (heads, n, n)``; the
    sentence's embeddings ``X`` ``(1, n, d)`` and the model."""
    n = len(SENTENCE)
    vocab = {w: i for i, w in enumerate(dict.fromkeys(SENTENCE))}
    g = _generator(seed)
    # (vocab, d): the embeddings, of standard deviation EMBED_SCALE
    table = EMBED_SCALE * torch.randn(len(vocab), NUM_HIDDENS, generator=g)
    X = table[torch.tensor([vocab[w] for w in SENTENCE])].unsqueeze(0)  # (1, n, d)
    perm = torch.tensor(SHUFFLE)
    pe = PositionalEncoding(NUM_HIDDENS, dropout=0.0)
    lens = causal_valid_lens(1, n)  # (1, n): 1, 2, ..., n
    with isolated_global_rng(seed):  # the lazy maps draw their first values here
        mha = MultiHeadAttention(NUM_HIDDENS, NUM_HEADS, dropout=0.0).eval()
        with torch.no_grad():
            mha(X, X, X)
    out = {}
    with torch.no_grad():
        for order in ORDERS:
            Xo = X[:, perm] if order == "shuffled" else X  # (1, n, d)
            for positions in POSITIONS:
                Xp = pe(Xo) if positions == "sinusoidal" else Xo  # positions after the shuffle
                for mask in MASKS:
                    mha(Xp, Xp, Xp, lens if mask == "causal" else None)
                    out[order, positions, mask] = _np(mha.attention_weights[0])  # (H, n, n)
    return out, X, mha


def _change(w: dict, positions: str, mask: str) -> np.ndarray:
    """Per head, the largest change of any word pair's weight when the words are shuffled:
    ``max |shuffled[i, j] - written[SHUFFLE[i], SHUFFLE[j]]|``, shape ``(heads,)``."""
    p = np.asarray(SHUFFLE)
    written = w["written", positions, mask][:, p][:, :, p]  # rows and columns reordered
    return np.abs(w["shuffled", positions, mask] - written).max(axis=(1, 2))


#: a change below this is float rounding (the read-outs print two or three decimals)
ROUNDING = 5e-4


def _change_words(d: float) -> str:
    """The caption's sentence for the largest change ``d`` shuffling makes to a weight."""
    if d < ROUNDING:
        return "Shuffling leaves every word pair's weight as it was (any difference is rounding)."
    spec = ".2f" if d >= 0.005 else ".3f"  # the book's two decimals, three for a tiny change
    return f"Shuffling changes a word pair's weight by at most {d:{spec}}."


def _unchanged_words(d: float) -> str:
    """The no-positions notice's clause on the largest change ``d``."""
    if d < ROUNDING:
        return "no word pair's weight changed (any difference is rounding)."
    return f"no word pair's weight changed by more than {d:.3f}."


@declare(seed=Seed())
def word_order_declaration(*, seed: int = 0) -> Declaration:
    """Declaration of :func:`word_order_explorer` (every frame computed here)."""
    fn = "word_order_declaration"
    seed = _seed(seed, fn)
    w, X, mha = _weights(seed)
    words = {
        "written": list(SENTENCE),
        "shuffled": [SENTENCE[i] for i in SHUFFLE],
    }
    change = {(pos, m): _change(w, pos, m) for pos in POSITIONS for m in MASKS}

    def update(order: str, positions: str, mask: str, head: str) -> dict[str, Any]:
        h = int(head) - 1
        d = float(change[positions, mask][h])
        return {
            "weights": {
                "values": w[order, positions, mask][h],
                "row_labels": words[order],
                "col_labels": words[order],
            },
            # one sentence, one line: the page wraps it to the column (a phone: two lines),
            # and the explorer's spoken line reads it whole (a line break there would be
            # read as "; ")
            "change": _change_words(d),
        }

    p = np.asarray(SHUFFLE)

    def biggest(positions: str, mask: str) -> tuple[int, int, float, float]:
        """Head 1's word pair whose weight shuffling changes most in this setting: the
        query's and the key's slots in the shuffle, the weight as written and shuffled."""
        shuffled = w["shuffled", positions, mask][0]  # (n, n), slots of the shuffle
        written = w["written", positions, mask][0][p][:, p]  # the same words' weights
        i, j = np.unravel_index(np.argmax(np.abs(shuffled - written)), shuffled.shape)
        return int(i), int(j), float(written[i, j]), float(shuffled[i, j])

    word = words["shuffled"]
    i, j, was, now = biggest("sinusoidal", "none")
    a, b = word[i], word[j]
    same = float(w["shuffled", "none", "none"][0, i, j])
    ci, cj, cwas, cnow = biggest("none", "causal")
    ca, cb = word[ci], word[cj]
    first = SENTENCE[SHUFFLE[0]]
    presets = [
        Preset(
            "Shuffle, no positions",
            f"Notice: the rows and columns moved with their words and nothing else: "
            f"“{a}” still gives “{b}” {same:.2f}, and "
            + _unchanged_words(float(change["none", "none"][0])),
            {"order": "shuffled", "positions": "none", "mask": "none", "head": "1"},
        ),
        Preset(
            "Shuffle, with positions",
            f"Notice: “{a}” now gives “{b}” {now:.2f}, where it gave {was:.2f} as written: "
            f"each word took its new slot's position with it.",
            {"order": "shuffled", "positions": "sinusoidal", "mask": "none", "head": "1"},
        ),
        Preset(
            "Shuffle, causal mask",
            f"Notice: no positions, yet “{ca}” gives “{cb}” {cnow:.2f}, not {cwas:.2f}: the "
            f"mask stays in place while the words move, so each word sees another set: "
            f"“{ca}”, now in slot {ci + 1}, sees {ci + 1} word{'s' if ci else ''} (itself and "
            f"those before it), and “{first}”, now first, only itself.",
            {"order": "shuffled", "positions": "none", "mask": "causal", "head": "1"},
        ),
        Preset(
            "Head 2, shuffled",
            f"Notice: another pattern, the same rule: with no positions and no mask, head 2's "
            f"weights also only move (largest change {change['none', 'none'][1]:.3f}).",
            {"order": "shuffled", "positions": "none", "mask": "none", "head": "2"},
        ),
    ]
    return Declaration(
        name="word_order",
        update=update,
        params=[
            Choice(
                "order",
                list(ORDERS),
                label="word order",
                option_labels=["original", "shuffled"],  # "as written" was cut at 390 px
            ),
            Choice(
                "positions",
                list(POSITIONS),
                label="positions",
                option_labels=["none", "sinusoidal, added"],
            ),
            Choice("mask", list(MASKS), label="mask", option_labels=["none", "causal"]),
            Choice(
                "head",
                [str(h + 1) for h in range(NUM_HEADS)],
                label="head",
                option_labels=[f"head {h + 1}" for h in range(NUM_HEADS)],
            ),
        ],
        panels=[
            Heatmap(
                "weights",
                xlabel="keys (the same words)",
                ylabel="queries",
                rows_sum_to_one=True,
                masked_zeros=True,
                labels_per_frame=True,
                title="self-attention weights",
            ),
            Caption("change"),
        ],
        title="Self-attention, word order and the causal mask",
        presets=presets,
        meta={
            "X": X,
            "W_q": mha.W_q.weight.detach().clone(),
            "W_k": mha.W_k.weight.detach().clone(),
        },
    )


@declare(seed=Seed())
def word_order_explorer(*, seed: int = 0) -> Explorer:
    """Self-attention's weights as the words are shuffled (chapter 9).

    One seeded, untrained :class:`attnlib.MultiHeadAttention` (16 hidden units, 2 heads) on
    the chapter's ten-word sentence, its embeddings drawn from ``seed``. Controls: the word
    order (original, as written, or the chapter's shuffle :data:`SHUFFLE`), positions (none, or
    :class:`attnlib.PositionalEncoding`'s sinusoids added after the shuffle), the mask
    (none, or causal: query ``i`` sees keys ``0..i``) and the head. Panels: that head's
    weights ``(n_queries, n_keys)``, rows and columns labelled with the words, and a
    caption with ``max |shuffled[i, j] - written[SHUFFLE[i], SHUFFLE[j]]|`` for that
    setting: zero up to rounding only without positions and mask.

    Keyword args (optional): ``seed``.
    """
    return Explorer(word_order_declaration(seed=seed))
