#!/usr/bin/env node
// Puts each page's stylesheets into the page: no request holds up the first paint on a slow
// link. `make book` runs it after the other build steps, over _build/html.
//
// A page links 5-6 small stylesheets: the theme's (web/theme/attnbook/static/attnbook.css),
// the code colours, myst-nb's cells, the copy and toggle buttons, and on pages with formulas
// lib/math.css. Here they are read in the order the page links them, their url()s rebased to
// the page, minified with Lightning CSS (pinned in web/package-lock.json) and put in ONE <style>
// where the first link stood. Nothing is purged: every rule a page links stays, so a class a
// script adds at run time always finds its style. The files themselves stay in _static/ (a
// page that is not rewritten, such as one saved from the browser, still works).
//
// Usage: node inline-css.mjs ../_build/html   (from web/, after `npm ci`; `make book`)
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { transform } from "lightningcss";

class BuildError extends Error {}
const fail = (msg) => { throw new BuildError(msg); };

const MARK = '<meta name="inlined-css" content="web/inline-css.mjs" />';
const LINK = /[ \t]*<link\b[^>]*\brel="stylesheet"[^>]*>\n?/g;
const toPosix = (p) => p.split(sep).join("/");
const stripQuery = (href) => href.split(/[?#]/)[0];
const hrefOf = (tag) => (/\bhref="([^"]+)"/.exec(tag) || fail(`a stylesheet link without href: ${tag}`))[1];

export function htmlFiles(dir, root = dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!["_static", "_sources", "_images", "_search"].includes(relative(root, p))) out.push(...htmlFiles(p, root));
    } else if (name.endsWith(".html")) out.push(p);
  }
  return out;
}

// url(...) in a stylesheet at `file`, rewritten relative to the page's folder `pageDir`
export function rebaseUrls(css, file, pageDir) {
  // a quoted url is one token (a data: URL may hold url(...) of its own, and quotes of the
  // other kind)
  return css.replace(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^'")\s]+))\s*\)/g, (whole, dq, sq, bare) => {
    const url = dq ?? sq ?? bare;
    if (/^(data:|[a-z]+:|#|\/)/i.test(url)) return whole;
    const target = resolve(dirname(file), url);
    return `url("${toPosix(relative(pageDir, target))}")`;
  });
}

const minified = new Map(); // one stylesheet set, rebased for one folder -> minified CSS

export function inlineStyles(html, file, site) {
  if (html.includes(MARK)) return html; // already done (make book runs it once per build)
  const head = html.slice(0, html.indexOf("</head>"));
  const links = head.match(LINK) || [];
  if (!links.length) return html;
  const pageDir = dirname(file);
  const files = links.map((tag) => {
    const href = stripQuery(hrefOf(tag));
    if (/^[a-z]+:|^\/\//i.test(href)) fail(`${relative(site, file)} links an outside stylesheet: ${href}`);
    return resolve(pageDir, href);
  });
  const key = `${toPosix(relative(site, pageDir))}|${files.join("|")}`;
  if (!minified.has(key)) {
    const css = files.map((f) => rebaseUrls(readFileSync(f, "utf8"), f, pageDir)).join("\n");
    if (/@import\b/.test(css)) fail(`${relative(site, file)}: a linked stylesheet uses @import`);
    const { code } = transform({ filename: key, code: Buffer.from(css), minify: true });
    minified.set(key, code.toString("utf8").replace(/<\/style/gi, "<\\/style"));
  }
  let first = true;
  const rewritten = head.replace(LINK, (tag) => {
    if (!first) return "";
    first = false;
    const indent = /^[ \t]*/.exec(tag)[0];
    // explorer-boot.js adds explorer.css to a page that has not got it: this one has
    const explorer = files.some((f) => f.endsWith(`${sep}explorer.css`)) ? " data-explorer-css" : "";
    return `${indent}${MARK}\n${indent}<style${explorer}>${minified.get(key)}</style>\n`;
  });
  return rewritten + html.slice(head.length);
}

function main() {
  const site = resolve(process.argv[2] || fail("usage: node inline-css.mjs <built site>"));
  let pages = 0;
  for (const file of htmlFiles(site)) {
    const html = readFileSync(file, "utf8");
    const out = inlineStyles(html, file, site);
    if (out !== html) {
      writeFileSync(file, out);
      pages += 1;
    }
  }
  console.log(`inline-css: stylesheets inlined into ${pages} pages (${minified.size} distinct sets)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    main();
  } catch (e) {
    if (e instanceof BuildError) {
      console.error(`inline-css: ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
}
