// A heatmap's cells are one image with a pixel per cell, scaled up without smoothing: a
// redraw changes one attribute instead of one per cell (800 cells cost 30 ms of style work
// per redraw on a phone-class CPU; the image costs under 1 ms). The PNG is written here,
// uncompressed ("stored" deflate blocks), so the same code runs in the browser and in Node
// (the book's static pictures) with no canvas.
const CRC = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
export function pngDataUrl(w, h, rgb) {
  const stride = 1 + 3 * w, raw = new Uint8Array(h * stride);  // each row: filter 0, then pixels
  for (let y = 0; y < h; y++) raw.set(rgb.subarray(3 * w * y, 3 * w * (y + 1)), y * stride + 1);
  const nb = Math.max(1, Math.ceil(raw.length / 65535));
  const z = new Uint8Array(2 + 5 * nb + raw.length + 4);
  z[0] = 0x78; z[1] = 0x01;  // zlib header: deflate, no dictionary
  let o = 2;
  for (let k = 0; k < nb; k++) {
    const s = k * 65535, n = Math.min(65535, raw.length - s);
    z.set([k === nb - 1 ? 1 : 0, n & 255, n >>> 8, ~n & 255, (~n >>> 8) & 255], o);
    z.set(raw.subarray(s, s + n), o + 5);
    o += 5 + n;
  }
  let a = 1, b = 0;
  for (let i = 0; i < raw.length; i++) { a = (a + raw[i]) % 65521; b = (b + a) % 65521; }
  const be = (v) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
  z.set(be(((b << 16) | a) >>> 0), o);
  const chunk = (type, data) => {
    const c = new Uint8Array(12 + data.length);
    c.set(be(data.length), 0);
    for (let i = 0; i < 4; i++) c[4 + i] = type.charCodeAt(i);
    c.set(data, 8);
    let crc = 0xffffffff;
    for (let i = 4; i < 8 + data.length; i++) crc = CRC[(crc ^ c[i]) & 255] ^ (crc >>> 8);
    c.set(be((crc ^ 0xffffffff) >>> 0), 8 + data.length);
    return c;
  };
  const ihdr = new Uint8Array([...be(w), ...be(h), 8, 2, 0, 0, 0]);  // 8-bit RGB
  const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", z),
    chunk("IEND", new Uint8Array(0))];
  let bin = "";
  for (const part of parts) {
    for (let i = 0; i < part.length; i += 8192) bin += String.fromCharCode.apply(null, part.subarray(i, i + 8192));
  }
  return "data:image/png;base64," + btoa(bin);
}
