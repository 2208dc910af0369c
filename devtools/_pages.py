"""The built book's pages, in reading order, for the browser tests and the benchmarks."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"


def book_pages() -> list[str]:
    """HTML pages of the book, from _toc.yml: the landing page, then every chapter."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf8"))
    files = [toc["root"]]

    def walk(entries):
        for e in entries or []:
            if "file" in e:
                files.append(e["file"])
            walk(e.get("sections"))
            walk(e.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    return [f"{Path(f).with_suffix('').as_posix()}.html" for f in files]


# Explorers wake as they near the viewport (web/explorer-boot.js), as a reader scrolls to them:
# this scrolls to each widget view in turn (or only to the explorer named `only`) and waits
# until its live explorer has drawn (data-ready), then scrolls back to where the page was.
WAKE_JS = """
async ([timeoutMs, only]) => {
  const t0 = performance.now();
  const STATE = 'script[type="application/vnd.jupyter.widget-state+json"]';
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  const picture = (v) => {
    let prev = v.previousElementSibling;
    if (prev && prev.matches(STATE)) prev = prev.previousElementSibling;
    return prev;
  };
  const x = scrollX, y = scrollY;
  let woken = 0;
  for (const v of views) {
    const pic = picture(v);
    if (only && !(pic && pic.querySelector(`.attn-explorer[data-explorer="${only}"]`))) continue;
    (pic || v.parentElement).scrollIntoView({block: 'center', behavior: 'instant'});
    for (;;) {
      const p = picture(v);
      if (p && p.classList.contains('attn-host') && p.querySelector('.attn-explorer[data-ready="true"]')) break;
      if (performance.now() - t0 > timeoutMs) {
        throw new Error(`explorer #${views.indexOf(v)} did not wake when scrolled into view (${p ? p.className : 'no picture'})`);
      }
      await new Promise((r) => requestAnimationFrame(r));  // a frame per check
    }
    woken++;
  }
  window.scrollTo({left: x, top: y, behavior: 'instant'});
  return {views: views.length, woken};
}
"""


def wake_explorers(page, only: str | None = None, timeout_ms: int = 60_000) -> dict:
    """Scroll to every explorer (or the one named ``only``) as a reader would, and wait until each
    is live; returns {"views": widget views on the page, "woken": explorers woken}."""
    return page.evaluate(WAKE_JS, [timeout_ms, only])
