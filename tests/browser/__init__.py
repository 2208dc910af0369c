"""Browser tests of the built book (see conftest.py), grouped by what they check: reading/ (the
pages as read: loading, maths, figures, anchors, phone fit, print), explorers/, theme/ (the page
shell: drawers, colour mode, search, 404, focus rings, axe-core, header buttons) and speed/
(page weight, what a tap costs). Helpers shared across folders: _frames.py, _reader.py, and
devtools/_craft.py (the benchmarks use it too)."""
