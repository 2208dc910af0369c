"""The book's machinery: each chapter's explorers and checkers, under the chapter's name.

==================================== ===================================================
module                               what the chapter imports from it
==================================== ===================================================
``ch01_queries_keys_values``         soft lookup and softmax-temperature explorers
``ch01_exercises``                   ``check_weights``
``ch02_attention_pooling``           kernel-regression and bandwidth-training explorers
``ch02_exercises``                   ``check_kernel``
``ch03_masked_softmax``              the typed-sentences masking explorer,
                                     ``check_masked_softmax``
``ch04_additive_attention``          the additive-attention explorer, ``check_scores``
``ch05_scaled_dot_product``          the scaling and scoring-comparison explorers
``ch06_scoring_family``              chapter 6's family map, worked examples, cost table,
                                     row entropy and scaling experiment
``seq2seq``                          the encoder-decoder chapters 7 and 8 both train:
                                     encoder, decoders, ``train``, ``uniform_rows``
``ch07_dates``                       chapter 7's task: dates, ``DateModel``, ``translate``
                                     and ``permuted_rows`` (the permutation test)
``ch07_bahdanau``                    chapter 7's decode-step and alignment-playback explorers
``ch07_exercises``                   ``check_alignment``, ``check_attention_module``
``ch07_diagram``                     chapter 7's encoder-decoder architecture figure
``ch08_numbers``                     chapter 8's task: numbers read aloud, ``NumberModel``
``ch08_lengths``                     chapter 8's length experiment (models compared over
                                     seeds and lengths) and its explorer
``ch09_explorer``                    chapter 9's explorer: self-attention's weights as the
                                     words are shuffled, with positions or the causal mask
``ch09_diagram``                     chapter 9's pictures: the split into heads and the
                                     concatenation, drawn from a real module; boolean
                                     masks as allowed/blocked cells
``ch09_exercises``                   chapter 9's checkers (heads, positions, masks)
``ch10_model``                       chapter 10's attention-only model, data, training
                                     and evidence (accuracy, ablations, scores by length)
``ch10_scores``                      chapter 10's head scores (previous-token, induction)
``ch10_multihead``                   chapter 10's three explorers, with presets
``ch10_exercises``                   chapter 10's checker (head scores)
``diagrams``                         the query-key-value pipeline figure (chapters 1, 3-5)
``claims``                           ``Claim``, ``check``: the conclusions drawn from
                                     trained numbers, with measured bounds
``manifest``                         the chapters, each listed once: number, stem, title,
                                     modules, explorers (stored, live, trained), trained
                                     and timed sections, exercises
``registry``                         ``EXPLORERS``, ``DECLARATIONS``, ``compute(name)``,
                                     built from the manifest
``glue``                             ``glue(name, text)``: a trained number into the prose
``_date_vocab``                      chapter 7's vocabularies (below both the task and
                                     its input checks)
``_seq2seq_inputs``                  checks of what chapter 7's functions accept
``_pipeline_layouts``                the pipeline figure's two layouts
``_checking``, ``_common``           what the checkers / the explorers share
==================================== ===================================================

A chapter imports book machinery from its own modules only (``chNN_*``, plus the shared
``seq2seq``, ``diagrams``, ``claims``, ``glue``); a checker a later chapter uses again
(``check_weights``, ``check_scores``) is defined where it is introduced and re-exported by
the later chapter's module. Imports run one way: library (``attnlib.masking``
... ``attnlib.plotting``) -> widget toolkit (:mod:`attnlib.widgets`) -> this package.
``scoringbook.compute``, ``EXPLORERS`` and ``DECLARATIONS`` load the registry on first use.
``tests/library/test_import_graph.py`` holds the imports to these rules.
"""

_REGISTRY = ("compute", "EXPLORERS", "DECLARATIONS")


def __getattr__(name):
    if name in _REGISTRY:
        from scoringbook import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'scoringbook' has no attribute {name!r}")
