"""The book's machinery: each chapter's explorers and checkers, under the chapter's name.

==================================== ===================================================
module                               what the chapter imports from it
==================================== ===================================================
``ch01_queries_keys_values``         soft lookup and softmax-temperature explorers,
                                     ``check_weights``
``ch02_attention_pooling``           kernel-regression and bandwidth-training explorers,
                                     ``check_kernel``
``ch03_masked_softmax``              the typed-sentences masking explorer,
                                     ``check_masked_softmax``
``ch04_additive_attention``          the additive-attention explorer, ``check_scores``
``ch05_scaled_dot_product``          the scaling and scoring-comparison explorers
``ch06_scoring_family``                      chapter 6's family map, worked examples, cost table,
                                     row entropy and scaling experiment
``ch07_bahdanau``                    chapter 7's alignment playback, ``check_alignment``,
                                     ``check_attention_module``
``seq2seq``                       chapters 7 and 8's data, encoder-decoder and training
``ch08_lengths``                     chapter 8's length experiment (numbers read aloud,
                                     models compared over seeds) and its explorer
``ch09_model``                       chapter 9's attention-only model, data, training
                                     and evidence (accuracy, ablations, scores by length)
``ch09_scores``                      chapter 9's head scores (previous-token, induction)
``ch09_multihead``                   chapter 9's three explorers, with presets
``ch09_exercises``                   chapter 9's checkers (heads, positions, masks,
                                     scores)
``diagrams``                         the query-key-value pipeline figure (chapters 1, 3-5);
                                     re-exports chapter 7's ``draw_encoder_decoder``
``diagram_seq2seq``                  chapter 7's encoder-decoder architecture figure
``claims``                           ``Claim``, ``check``: the conclusions drawn from
                                     trained numbers, with measured bounds
``registry``                         ``EXPLORERS``, ``DECLARATIONS``, ``compute(name)``
``glue``                             ``glue(name, text)``: a trained number into the prose
``_seq2seq_inputs``                     checks of what chapters 7 and 8's functions accept
``_checking``, ``_common``           what the checkers / the explorers share
==================================== ===================================================

``ch07_bahdanau``, ``seq2seq``, ``ch08_lengths`` and ``_seq2seq_inputs`` (chapters 7 and 8)
keep the number their chapter had before chapter 6, the family of scoring functions, was
written.

A chapter imports book machinery from its own modules only; a checker a later chapter uses
again (``check_weights``, ``check_scores``) is defined where it is introduced and
re-exported by the later chapter's module. Imports run one way: library (``attnlib.masking``
... ``attnlib.plotting``) -> widget toolkit (:mod:`attnlib.widgets`) -> this package.
``scoringbook.compute``, ``EXPLORERS`` and ``DECLARATIONS`` load the registry on first use.
"""

_REGISTRY = ("compute", "EXPLORERS", "DECLARATIONS")


def __getattr__(name):
    if name in _REGISTRY:
        from scoringbook import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'scoringbook' has no attribute {name!r}")
