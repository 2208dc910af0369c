"""Browser tests of reading the pages: loading, maths, figures, anchors, phone fit, print."""
