// attnlib explorer (anywidget ES module). A precomputed explorer's frames are computed in
// Python by attnlib and synced in the model: this module selects the frame for the current
// controls and draws it as SVG. A live explorer (attnlib.widgets.live: a dragged query, a typed
// sentence) is computed here with one small implementation of attention's primitives
// (SCORES, softmax, LOG_KERNELS, the masked softmax of maskingFrame), which the browser tests
// compare with attnlib's numbers.
// No dependencies, no network, no console output.
// What scripts and tests may read: each explorer's data-explorer / data-params / data-frame /
// data-ready; each heatmap's svg.attnValues (the weights shown, row by row), data-rows,
// data-cols and its cells' image (image.attn-cells, one pixel per cell); the readout line;
// the weights panel's data-ytop; a typed sentence's heatmap data-col-labels.
//
// The sources are the ES modules in src/ (one concern each); `make` bundles them with the
// pinned esbuild (web/build-explorer.mjs) into attnlib/static/explorer.js, the one file
// anywidget's _esm and the book's loader both use.

import { render } from "./render.js";

export default { render };
