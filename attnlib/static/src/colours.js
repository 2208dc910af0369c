// Colours that hold on a light and on a dark page: the heatmaps' colour scales and the
// plotted series.
//
// Heatmaps: light pages use matplotlib's "Reds" (ColorBrewer, sequential, colour-blind safe),
// dark pages "inferno" from 0.2 up (its darkest purples would merge with the explorer's dark
// background; a zero cell is 1.21:1 against it). A value v in [vmin, vmax] sits at
// u = (v - vmin) / (vmax - vmin) and takes the colour at u^GAMMA along the scale: small weights get more of the scale (a weight of 0.05
// on a 0-1 scale has 1.5:1 contrast or more against the background in both modes, and a
// zero cell stays a step away from the background). The mapping is fixed per heatmap, and
// the colour bar shows it: its ticks stand at their values, its colours follow the same rule.
//
// Series: a declared colour is kept where it has 3.3:1 contrast against the explorer's
// background (WCAG 1.4.11 asks 3:1; the tenth more keeps a drawn colour clear of that edge),
// and otherwise darkened (light page) or lightened (dark page) just enough; black, the colour
// of ink, becomes the page's text colour on a dark page.

export const GAMMA = 0.6;
const REDS = ["#ffede5", "#fdd3c1", "#fcaf93", "#fc8969", "#f96044", "#ea362a", "#c7171c", "#a10e15", "#67000d"];
const INFERNO = ["#420a68", "#57106e", "#6a176e", "#7f1e6c", "#932667", "#a82e5f", "#bc3754", "#cc4248", "#dd513a",
  "#ea632a", "#f37819", "#f98e09", "#fca50a", "#fbbe23", "#f6d746", "#f1ef75", "#fcffa4"];
// the explorer's backgrounds and text colours (explorer.css: --attn-bg, --attn-fg)
export const BG = { light: "#ffffff", dark: "#1b1b1f" };
const FG = { light: "#222222", dark: "#e6e6e6" };

const rgbOf = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const hexOf = (c) => "#" + c.map((v) => Math.round(Math.max(0, Math.min(255, v))).toString(16).padStart(2, "0")).join("");
const linear = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
export const luminance = (c) => 0.2126 * linear(c[0]) + 0.7152 * linear(c[1]) + 0.0722 * linear(c[2]);
export const contrast = (a, b) => {
  const x = luminance(a), y = luminance(b);
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
};

// 256 colours for u = 0, 1/255, ..., 1, as r, g, b bytes
function lut(hexes) {
  const rgb = hexes.map(rgbOf);
  const out = new Uint8Array(256 * 3);
  for (let k = 0; k < 256; k++) {
    const t = ((k / 255) ** GAMMA) * (rgb.length - 1), i = Math.min(Math.floor(t), rgb.length - 2), f = t - i;
    for (let j = 0; j < 3; j++) out[3 * k + j] = Math.round(rgb[i][j] + f * (rgb[i + 1][j] - rgb[i][j]));
  }
  return out;
}
const LUT = { light: lut(REDS), dark: lut(INFERNO) };

// The colour scale of one heatmap: colour(v) -> [r, g, b] for the mode, with values outside
// [vmin, vmax] painted as the nearer end (a heatmap declared with saturate=True).
export function colourScale(vmin, vmax) {
  const span = vmax - vmin;
  const index = (v) => 3 * Math.round(Math.min(1, Math.max(0, (v - vmin) / span)) * 255);
  return {
    index,
    colour: (v, mode) => { const t = LUT[mode], k = index(v); return [t[k], t[k + 1], t[k + 2]]; },
    table: (mode) => LUT[mode],
    // gradient stops for a colour bar: [offset in 0..1 along the value axis, css colour]
    stops: (mode, n = 17) => Array.from({ length: n }, (_, s) => {
      const t = LUT[mode], k = 3 * Math.round((s / (n - 1)) * 255);
      return [s / (n - 1), hexOf([t[k], t[k + 1], t[k + 2]])];
    }),
  };
}

// A series colour for each mode, with at least 3.3:1 contrast against that mode's background.
const SERIES_CONTRAST = 3.3;
const cache = new Map();
export function seriesColours(colour) {
  const key = String(colour || "").toLowerCase();
  if (cache.has(key)) return cache.get(key);
  let out;
  if (!/^#[0-9a-f]{6}$/.test(key)) out = { light: colour, dark: colour };
  else if (key === "#000000") out = { light: FG.light, dark: FG.dark };
  else out = { light: enough(key, "light"), dark: enough(key, "dark") };
  cache.set(key, out);
  return out;
}
function enough(hex, mode) {
  const bg = rgbOf(BG[mode]), c = rgbOf(hex), to = mode === "light" ? [0, 0, 0] : [255, 255, 255];
  for (let a = 0; a <= 1.0001; a += 0.02) {
    const m = c.map((v, i) => v + a * (to[i] - v));
    if (contrast(m.map(Math.round), bg) >= SERIES_CONTRAST) return hexOf(m);
  }
  return hexOf(to);
}

// An element drawn in a series colour: its light and dark variants (colours.js) as CSS
// variables, picked by explorer.css for the page's mode; the attribute is the light one.
export function coloured(attrs, colour, paint) {
  const c = seriesColours(colour);
  return Object.assign(attrs, { [paint]: c.light, class: `${attrs.class ? attrs.class + " " : ""}attn-${paint[0]}`,
    style: `--attn-c:${c.light};--attn-cd:${c.dark}` });
}
