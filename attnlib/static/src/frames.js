// A precomputed explorer's frames as the model holds them (attnlib.widgets.encode_frames),
// and the values of one lines panel's series.

// little-endian unsigned integers, value = offset + q * scale; `index` maps frames.
export function decode(enc) {
  const bin = atob(enc.data), N = enc.n_stored * enc.n, nb = enc.bits / 8;
  const vals = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    let q = 0;
    for (let b = nb - 1; b >= 0; b--) q = q * 256 + bin.charCodeAt(b * N + i);
    vals[i] = enc.offset + q * enc.scale;
  }
  return (frame) => {
    const s = enc.index ? enc.index[frame] : frame;
    return vals.subarray(s * enc.n, (s + 1) * enc.n);
  };
}

// A lines panel's values, flat in its series' order (an xy series: its xs, then its ys).
export function flatSeries(ps, bySeries) {
  const parts = ps.series.map((s) => bySeries[s.name]);
  const flat = new Float64Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) { flat.set(p, at); at += p.length; }
  return flat;
}
// One series of a lines panel, from the panel's flat values: [panel name, series name].
export function seriesOf(spec, values, [panel, name]) {
  const ps = spec.panels.find((p) => p.name === panel);
  let at = 0;
  for (const s of ps.series) {
    const len = s.xy ? 2 * s.n : s.n;
    if (s.name === name) return values[panel].subarray(at, at + len);
    at += len;
  }
  return EMPTY;
}
export const EMPTY = new Float64Array(0);
