"""JavaScript the browser tests share to read an explorer's heatmap as a reader sees it.

A heatmap's cells are one image with a pixel per cell (`image.attn-cells`, see
attnlib/static/src/heatmap.js); the weights it shows are `svg.attnValues` (row by row, queries
are rows) and its size is `svg.dataset.rows` x `svg.dataset.cols`.

CELLS: async (svg) -> [[row, col, value, "rgb(r,g,b)"], ...], the colour being the pixel
actually painted (the image decoded in a canvas).
HOVER: (svg, i, j) -> {readout, tip, row, col}: a pointer moved over cell (i, j), at the
cell's centre on screen, and what the readout line and the tooltip then say.
"""

CELLS = """async (svg) => {
  const R = +svg.dataset.rows, C = +svg.dataset.cols;
  const values = Array.from(svg.attnValues || []);
  const img = svg.querySelector('image.attn-cells');
  if (!img || !img.getAttribute('href')) return [];
  const im = new Image();
  im.src = img.getAttribute('href');
  await im.decode();
  const cv = document.createElement('canvas');
  cv.width = C; cv.height = R;
  const ctx = cv.getContext('2d');
  ctx.drawImage(im, 0, 0);
  const px = ctx.getImageData(0, 0, C, R).data;
  if (im.naturalWidth !== C || im.naturalHeight !== R) return [['size', im.naturalWidth, im.naturalHeight]];
  return values.map((v, k) => [Math.floor(k / C), k % C, v,
    `rgb(${px[4 * k]},${px[4 * k + 1]},${px[4 * k + 2]})`]);
}"""

HOVER = """(svg, i, j) => {
  const R = +svg.dataset.rows, C = +svg.dataset.cols;
  const img = svg.querySelector('image.attn-cells');
  const b = img.getBoundingClientRect();
  img.dispatchEvent(new MouseEvent('mousemove', {bubbles: true,
    clientX: b.left + (j + 0.5) * b.width / C, clientY: b.top + (i + 0.5) * b.height / R}));
  const r = svg.parentElement.querySelector('.attn-readout'), t = img.querySelector('title');
  return {readout: r.textContent, tip: t ? t.textContent : null, row: r.dataset.row, col: r.dataset.col};
}"""


def as_json(js: str) -> str:
    """``js`` (a function) made to return its result as one JSON string, for ``json.loads``:
    Playwright's Python side checks and rebuilds a returned object value by value (a map's cells
    are thousands of values), which costs more CPU than the page's own work, while one string
    crosses at once. Non-finite numbers go out as JSON's NaN/Infinity tokens (Python's json
    reads them) and undefined as null, so ``json.loads`` gives what ``evaluate(js)`` gives."""
    return (
        "async (...args) => JSON.stringify(await ("
        + js.strip()
        + """)(...args), (key, v) => v === undefined ? null
      : typeof v === 'number' && !Number.isFinite(v) ? `__nonfinite__${v}__` : v)
      .replace(/"__nonfinite__(NaN|Infinity|-Infinity)__"/g, '$1')"""
    )
