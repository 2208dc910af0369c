// Attention's primitives for live explorers (attnlib.widgets.live): the page computes a frame
// itself, one query (the reader's handle) against fixed keys and values (or a fixed query
// and one key the reader drags: live.moving_key). The browser tests
// compare these numbers with attnlib's at random positions (within 1e-4).
const dot = (a, b) => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * b[i]; return s; };
// One function per scoring function of attnlib.widgets.live_scores.LIVE_SCORES (its `js`):
// (q, k, kwargs) -> a(q, k) for one query and one key, kwargs being the score's declared
// arguments as the spec carries them (live.scores[name].kwargs).
export const SCORES = {
  dot: (q, k) => dot(q, k),
  scaled_dot: (q, k) => dot(q, k) / Math.sqrt(q.length),
  gaussian: (q, k, { sigma }) => {                                          // -||q - k||^2 / (2 sigma^2)
    let s = 0; for (let i = 0; i < q.length; i++) s -= (q[i] - k[i]) ** 2; return s / (2 * sigma * sigma);
  },
  additive: (q, k, { W_q, W_k, w_v }) => {                                  // w_v . tanh(W_q q + W_k k)
    let s = 0;
    for (let r = 0; r < w_v.length; r++) s += w_v[r] * Math.tanh(dot(W_q[r], q) + dot(W_k[r], k));
    return s;
  },
  cosine: (q, k, { temperature }) => {                                      // cos(q, k) / tau, 0 if a vector is 0
    const n = Math.sqrt(dot(q, q)) * Math.sqrt(dot(k, k));
    return n > 0 ? Math.max(-1, Math.min(1, dot(q, k) / n)) / temperature : 0;
  },
  general: (q, k, { M }) => dot(q, M.map((row) => dot(row, k))),            // q . (M k)
  laplace: (q, k, { sigma }) => {                                           // -||q - k|| / sigma
    let s = 0; for (let i = 0; i < q.length; i++) s += (q[i] - k[i]) ** 2; return -Math.sqrt(s) / sigma;
  },
};
function softmax(s) {
  const m = Math.max(...s), e = s.map((v) => Math.exp(v - m)), z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}
export function liveFrame(live, params) {
  const q = live.query.map((n) => (typeof n === "string" ? params[n] : n)); // (d,): sliders, or fixed
  const mk = live.moving_key;                                              // [j, x slider, y slider]: key j moves
  const keys = mk ? live.keys.map((k, j) => (j === mk[0] ? [params[mk[1]], params[mk[2]]] : k)) : live.keys;
  const t = live.temperature ? params[live.temperature] : 1;
  const weights = (name) => {                                              // (n_keys,)
    const { js, kwargs } = live.scores[name];
    return softmax(keys.map((k) => SCORES[js](q, k, kwargs) / t));
  };
  if (live.compare) return { [live.weights]: Float64Array.from(live.compare.flatMap(weights)) };  // (n_scorings * n_keys,)
  const w = weights(live.score_param ? params[live.score_param] : live.score);
  const out = [0, 0];                                                      // sum_j w_j v_j
  w.forEach((wj, j) => { out[0] += wj * live.values[j][0]; out[1] += wj * live.values[j][1]; });
  return { [live.weights]: Float64Array.from(w), [live.output[0]]: { [live.output[1]]: Float64Array.from(out) } };
}
// Nadaraya-Watson (attnlib.widgets.live.LiveKernelRegression), with attnlib.nadaraya_watson's rules:
// log-kernels (-Infinity outside a compact support), u = 0 where x = x_j, softmax of the
// logits, and a query with no finite logit puts weight 1 on its nearest training point.
const LOG_KERNELS = {
  gaussian: (u) => -0.5 * u * u - 0.5 * Math.log(2 * Math.PI),
  boxcar: (u) => (Math.abs(u) <= 1 ? Math.log(0.5) : -Infinity),
  constant: () => 0,
  epanechnikov: (u) => (Math.abs(u) < 1 ? Math.log(0.75) + Math.log1p(-u * u) : -Infinity),
  triangular: (u) => (Math.abs(u) < 1 ? Math.log1p(-Math.abs(u)) : -Infinity),
};
function nwLogits(xs, x, logK, h) {                                        // (n_train,)
  return xs.map((xj) => { const d = x - xj; return logK(d === 0 ? 0 : d / h); });
}
function nwWeights(xs, x, logK, h, l = nwLogits(xs, x, logK, h)) {        // (n_train,)
  if (l.every((v) => v === -Infinity)) {                                   // empty window
    let best = 0;
    for (let j = 1; j < xs.length; j++) if (Math.abs(x - xs[j]) < Math.abs(x - xs[best])) best = j;
    return xs.map((_, j) => (j === best ? 1 : 0));
  }
  return softmax(l);
}
export function kernelFrame(live, params, panels) {
  const logK = LOG_KERNELS[params[live.kernel]], h = params[live.bandwidth], q = params[live.query];
  const xs = live.x_train, ys = live.y_train;
  const predict = (x) => dot(nwWeights(xs, x, logK, h), ys);
  const byName = Object.fromEntries(panels.map((p) => [p.name, p]));
  const out = {};
  const put = ([panel, series], arr) => { (out[panel] = out[panel] || {})[series] = Float64Array.from(arr); };
  put(live.fit, byName[live.fit[0]].x.map(predict));
  if (live.heat_points) put(live.heat_points, live.heat_x.concat(live.heat_x.map(predict)));  // (2, n_heat)
  const l = nwLogits(xs, q, logK, h), m = Math.max(...l);                  // the query's logits, once
  const w = nwWeights(xs, q, logK, h, l);
  put(live.bars, w);
  put(live.marker, [q, dot(w, ys)]);                                       // (2, 1): x row, y row
  // the window: min(1, K((t - q) / h) / sum_j K(u_j)), the weight a training point at t gets
  const logZ = m === -Infinity ? -Infinity : m + Math.log(l.reduce((a, v) => a + Math.exp(v - m), 0));
  const [s0, s1] = byName[live.window[0]].xlim, n = live.window_u.length;
  const ts = params[live.kernel] === "constant" ? live.window_u.map((_, i) => s0 + ((s1 - s0) * i) / (n - 1))
    : live.window_u.map((u) => q + h * u);
  const wy = ts.map((t) => {
    const lt = logK((t - q) / h);
    if (lt === -Infinity) return 0;
    return logZ === -Infinity ? 1 : Math.exp(Math.min(0, lt - logZ));
  });
  put(live.window, ts.concat(wy));                                         // (2, n_window)
  out[live.weights] = Float64Array.from(live.heat_x.flatMap((x) => nwWeights(xs, x, logK, h)));  // (n_heat * n_train,)
  return out;
}
// Masked self-attention over typed sentences (attnlib.widgets.live_masking.LiveMasking): tokens split at
// whitespace, cut or padded to max_tokens; each word's query and key vectors from a hash of
// the word (FNV-1a, then mulberry32: the same numbers as attnlib.widgets.live_masking.word_vector).
function wordVector(word, d) {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(word)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  const out = [];
  for (let i = 0; i < d; i++) {
    h = (h + 0x6d2b79f5) >>> 0;
    let t = Math.imul(h ^ (h >>> 15), h | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out.push(2 * (((t ^ (t >>> 14)) >>> 0) / 4294967296) - 1);
  }
  return out;
}
const fold = (w) => w.replace(/[A-Z]/g, (c) => c.toLowerCase());  // A-Z only, as attnlib.widgets.live_masking.fold
const tokensOf = (text, n) => String(text).split(/[ \t\n\r\f\v]+/).filter(Boolean).slice(0, n);
export function maskingFrame(live, params) {
  const n = live.max_tokens, out = {}, labels = {};
  // the "masking" choice's value (attnlib.widgets.live_masking.MODES): valid lengths per
  // sentence, (batch,); per query, (batch, n_queries); or "none", a plain softmax
  const mode = live.masking ? params[live.masking] : "query_lengths";
  live.sentences.forEach((name, b) => {
    const toks = tokensOf(params[name], n), l = toks.length;
    const padded = toks.concat(Array(n - l).fill(live.pad));
    const q = padded.map((w) => wordVector("q " + fold(w), live.d));       // (n, d)
    const k = padded.map((w) => wordVector("k " + fold(w), live.d));       // (n, d)
    const w = new Float64Array(n * n);                                     // (n_queries, n_keys)
    for (let i = 0; i < n; i++) {
      const valid = mode === "none" ? n : mode === "sentence_lengths" ? l
        : (i < l ? l : 0);                                                 // per query: a <pad> query has no valid key
      if (!valid) continue;                                                // an all-zero row
      const row = softmax(k.slice(0, valid).map((kj) => dot(q[i], kj) / Math.sqrt(live.d)));
      row.forEach((v, j) => { w[i * n + j] = v; });
    }
    out[live.weights[b]] = w;
    labels[live.weights[b]] = { rows: padded, cols: padded, length: l };
  });
  return { values: out, labels };
}
