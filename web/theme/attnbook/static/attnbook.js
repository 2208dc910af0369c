// attnbook.js: the page shell's behaviour (web/theme/attnbook; loaded deferred on every page).
// Plain script, no dependencies. Without it the page still reads: the chapter list and "on this
// page" show in the flow (attnbook.css), the menus are <details>, the search is a form.
//
// - The colour mode: auto (the OS setting), then the mode the OS is not in, then the OS's own,
//   remembered in localStorage ("attnbook-mode"); the inline script in layout.html applies it before the first paint. A
//   change of data-theme restyles every element of the page (150-300 ms at 4x CPU on a chapter):
//   the press is answered first (the button shows the new mode in the press's own frame), the
//   restyle runs as a task of its own right after that frame.
// - The drawers: below 992 px the chapter list, below 1200 px "on this page", slide in over the
//   page from their toggles. Only the drawer and the backdrop restyle. Esc, a tap outside, the
//   focus leaving, or a link to a place on this page close it; the focus comes back to the
//   toggle without scrolling. From 992 px the chapter list's toggle hides and shows the column.
// - The Run and Download menus (<details>): one open at a time, Esc or a click outside closes.
// - Ctrl+K or "/" goes to the search field.
// - A formula, code block, output or table wider than the column gets a tab stop (it scrolls);
//   a table of words wider than the column becomes stacked cards instead, at any width.
// - "On this page" marks the section the reader is in; from 1200 px it folds away while an
//   explorer (drawn at page width) passes it (attnbook.css; this script measures its band).
// - The search page shows the hits at once, when every hit on the first screen has its snippet
//   (nothing in view moves).
(function () {
  "use strict";

  var root = document.documentElement;
  var osDark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var narrowNav = window.matchMedia ? window.matchMedia("(max-width: 991.98px)") : null;
  var narrowToc = window.matchMedia ? window.matchMedia("(max-width: 1199.98px)") : null;

  function afterFrame(f) {
    requestAnimationFrame(function () { setTimeout(f, 0); });
  }
  function byId(id) { return document.getElementById(id); }
  function focusWithoutScroll(el) {
    if (el) el.focus({ preventScroll: true });
  }

  // ------------------------------------------------------------------ colour mode
  function themeFor(mode) {
    if (mode === "auto") return osDark && osDark.matches ? "dark" : "light";
    return mode;
  }
  // The cycle starts with the mode the page is NOT in, so the first press always changes what
  // the reader sees: on a light system auto -> dark -> light -> auto, on a dark one
  // auto -> light -> dark -> auto.
  function nextMode(mode) {
    var os = themeFor("auto"), other = os === "dark" ? "light" : "dark";
    return mode === "auto" ? other : mode === other ? os : "auto";
  }
  function showMode(button, mode) {
    var name = button.querySelector(".book-mode-name");
    if (name) name.textContent = mode;
    var next = nextMode(mode);
    button.setAttribute("title", "Colour mode: " + (mode === "auto" ? "follows your system" : mode) +
      ". Press for " + (next === "auto" ? "your system's" : next) + ".");
  }
  function setupMode() {
    var button = byId("book-mode");
    if (!button) return;
    showMode(button, root.getAttribute("data-mode") || "auto");
    button.addEventListener("click", function () {
      var next = nextMode(root.getAttribute("data-mode") || "auto");
      root.setAttribute("data-mode", next); // an attribute no style reads: no restyle
      showMode(button, next); // the press's answer, painted in this frame
      try { localStorage.setItem("attnbook-mode", next); } catch (e) { /* private mode */ }
      afterFrame(function () {
        if (root.getAttribute("data-mode") === next) root.setAttribute("data-theme", themeFor(next));
      });
    });
    if (osDark) {
      var follow = function () {
        if (root.getAttribute("data-mode") === "auto") root.setAttribute("data-theme", themeFor("auto"));
      };
      if (osDark.addEventListener) osDark.addEventListener("change", follow);
      else if (osDark.addListener) osDark.addListener(follow);
    }
  }

  // ------------------------------------------------------------------ drawers
  var backdrop = null;
  var openDrawer = null; // {panel, toggle}

  function closeDrawer(returnFocus) {
    if (!openDrawer) return;
    var d = openDrawer;
    openDrawer = null;
    d.panel.removeAttribute("data-open");
    d.toggle.setAttribute("aria-expanded", "false");
    if (backdrop) backdrop.hidden = true;
    if (returnFocus) focusWithoutScroll(d.toggle);
  }
  function open(panel, toggle) {
    closeDrawer(false);
    openDrawer = { panel: panel, toggle: toggle };
    panel.setAttribute("data-open", "");
    toggle.setAttribute("aria-expanded", "true");
    if (backdrop) backdrop.hidden = false;
    // the reader's place in the list, else its first link: not the search field (on a phone
    // its keyboard would cover the list; Ctrl+K and "/" go to the field)
    focusWithoutScroll(
      panel.querySelector("a[aria-current=page], a[aria-current=location]") ||
        panel.querySelector("a[href]")
    );
  }
  function setupDrawer(toggleId, panelId, narrow, wideToggles) {
    var toggle = byId(toggleId), panel = byId(panelId);
    if (!toggle || !panel) return;
    toggle.addEventListener("click", function () {
      if (narrow && !narrow.matches) {
        if (!wideToggles) return;
        // a wide screen: the toggle hides or brings back the column
        var hidden = root.hasAttribute("data-nav-hidden");
        if (hidden) root.removeAttribute("data-nav-hidden");
        else root.setAttribute("data-nav-hidden", "");
        toggle.setAttribute("aria-expanded", hidden ? "true" : "false");
        return;
      }
      if (openDrawer && openDrawer.panel === panel) closeDrawer(true);
      else open(panel, toggle);
    });
    // a link to a place on this page: go there and close the drawer
    panel.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a[href]");
      if (!link || !openDrawer || openDrawer.panel !== panel) return;
      var url = new URL(link.href, location.href);
      if (url.origin + url.pathname === location.origin + location.pathname) closeDrawer(false);
    });
    panel.addEventListener("focusout", function (event) {
      if (!openDrawer || openDrawer.panel !== panel) return;
      var to = event.relatedTarget;
      if (to && !panel.contains(to) && to !== toggle) closeDrawer(false);
    });
    var sync = function () {
      // leaving the width where it is a drawer closes it; on a wide screen the toggle says
      // whether the column shows
      if (openDrawer && openDrawer.panel === panel && narrow && !narrow.matches) closeDrawer(false);
      if (wideToggles && narrow && !narrow.matches) {
        toggle.setAttribute("aria-expanded", root.hasAttribute("data-nav-hidden") ? "false" : "true");
      } else if (!openDrawer || openDrawer.panel !== panel) {
        toggle.setAttribute("aria-expanded", "false");
      }
    };
    if (narrow) {
      if (narrow.addEventListener) narrow.addEventListener("change", sync);
      else if (narrow.addListener) narrow.addListener(sync);
    }
    sync();
  }

  // ------------------------------------------------------------------ menus
  function setupMenus() {
    var menus = Array.prototype.slice.call(document.querySelectorAll("details.book-menu"));
    menus.forEach(function (menu) {
      menu.addEventListener("toggle", function () {
        if (!menu.open) return;
        menus.forEach(function (other) { if (other !== menu) other.open = false; });
      });
    });
    document.addEventListener("click", function (event) {
      menus.forEach(function (menu) {
        if (menu.open && !menu.contains(event.target)) menu.open = false;
      });
    });
    var print = document.querySelector(".book-print");
    if (print && window.print) {
      print.hidden = false;
      print.addEventListener("click", function () {
        menus.forEach(function (menu) { menu.open = false; });
        window.print();
      });
    }
    return menus;
  }

  // ------------------------------------------------------------------ keys
  function setupKeys(menus) {
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") {
        var menu = menus.filter(function (m) { return m.open; })[0];
        if (menu) {
          menu.open = false;
          focusWithoutScroll(menu.querySelector("summary"));
          return;
        }
        if (openDrawer) closeDrawer(true);
        return;
      }
      var typing = event.target && event.target.closest &&
        event.target.closest("input, textarea, select, [contenteditable]");
      var search = (event.key === "k" && (event.ctrlKey || event.metaKey)) || (event.key === "/" && !typing);
      if (!search) return;
      var field = byId("book-search-page-field") || byId("book-search-field");
      if (!field) return;
      event.preventDefault();
      if (field.id === "book-search-field" && narrowNav && narrowNav.matches) {
        open(byId("book-nav"), byId("book-nav-toggle"));
      } else if (field.id === "book-search-field") {
        root.removeAttribute("data-nav-hidden");
      }
      focusWithoutScroll(field);
    });
  }

  // ------------------------------------------------------------------ boxes that scroll
  // A display formula, a code block, an output or a table wider than the column scrolls
  // sideways in its own box. Keyboard users can scroll it only if it can take focus: exactly
  // those boxes get a tab stop (a formula also a name: it has no text a screen reader would
  // announce as a box; axe-core: scrollable-region-focusable). Every width is read first, then
  // the changes written: a read after a write would force a layout each time.
  // A table of words (attn-cards, web/table-cards.mjs) wider than its column becomes stacked
  // cards at any width (attn-stacked; attnbook.css): each is measured as a grid, all classes
  // dropped first and set after every read (one layout), in one task (nothing painted between).
  function stackWideTables() {
    var tables = Array.prototype.slice.call(document.querySelectorAll(".book-article table.attn-cards"));
    tables.forEach(function (t) { t.classList.remove("attn-stacked"); });
    var wide = tables.map(function (t) { return t.scrollWidth > t.clientWidth + 1; });
    tables.forEach(function (t, i) { if (wide[i]) t.classList.add("attn-stacked"); });
  }

  var SCROLLERS = "div.math, .book-article pre, .book-article .cell_output > .output, .book-article table";
  function scrollable() {
    var all = Array.prototype.slice.call(document.querySelectorAll(SCROLLERS));
    var wide = all.map(function (m) { return m.scrollWidth > m.clientWidth + 1; });
    all.forEach(function (m, i) {
      var formula = m.matches("div.math");
      if (wide[i] && !m.hasAttribute("data-scrolls")) {
        m.setAttribute("data-scrolls", "");
        m.setAttribute("tabindex", "0");
        if (formula) {
          m.setAttribute("role", "region");
          m.setAttribute("aria-label", "formula, scrolls sideways");
        }
      } else if (!wide[i] && m.hasAttribute("data-scrolls")) {
        m.removeAttribute("data-scrolls");
        m.removeAttribute("tabindex");
        if (formula) {
          m.removeAttribute("role");
          m.removeAttribute("aria-label");
        }
      }
    });
  }

  // ------------------------------------------------------------------ "on this page"
  // Where the reader is: the link of the last section whose heading has passed the top fifth
  // of the window (at the end of the page: the last heading on screen) gets
  // aria-current="location" (attnbook.css marks it), following IntersectionObserver callbacks
  // (no scroll handler): a few rectangles read per crossing. From 1200 px the column folds away
  // while an explorer, which takes the column's width, passes the band of the window the
  // column's list stands in: that is CSS (a scroll-driven animation, correct from the first
  // frame and without JavaScript); this script only gives it the band's height.
  function setupPageToc() {
    var toc = byId("book-toc");
    if (!toc || !window.IntersectionObserver) return;
    var pairs = [];
    Array.prototype.forEach.call(toc.querySelectorAll('a[href^="#"]'), function (a) {
      var id = decodeURIComponent(a.getAttribute("href").slice(1));
      var target = id ? byId(id) : null;
      var heading = target && target.querySelector("h1, h2, h3, h4");
      if (heading) pairs.push([heading, a]);
    });
    if (!pairs.length) return;
    var current = null;
    function mark() {
      var line = window.innerHeight * 0.2, now = null, last = null;
      for (var i = 0; i < pairs.length; i++) {
        var top = pairs[i][0].getBoundingClientRect().top;
        if (top <= line) now = pairs[i][1];
        if (top < window.innerHeight) last = pairs[i][1];
      }
      // at the end of the page the last sections' headings never reach the line: the last
      // heading on screen is where the reader is
      // (before the first section's heading reaches the line the reader is in the page's
      // opening, which has no link: none is marked)
      var end = window.innerHeight + window.scrollY >= root.scrollHeight - 2;
      now = end ? last : now;
      if (now === current) return;
      if (current) current.removeAttribute("aria-current");
      if (now) now.setAttribute("aria-current", "location");
      current = now;
    }
    // a heading crossing the line, or entering or leaving the window (the end of the page)
    var spy = new IntersectionObserver(mark, { rootMargin: "0px 0px -80% 0px" });
    var seen = new IntersectionObserver(mark);
    pairs.forEach(function (p) { spy.observe(p[0]); seen.observe(p[0]); });
    mark();

    // The column's fold (attnbook.css: a scroll-driven animation on each explorer's view
    // timeline) needs the band of the window the column's list stands in: its height, given to
    // each explorer's output. A ResizeObserver's callback runs after layout and before the
    // frame is painted, so a column that grows (fonts, a wrapped title) is never a frame late.
    var outputs = Array.prototype.filter.call(
      document.querySelectorAll(".book-article .cell_output"),
      function (o) { return o.style.getPropertyValue("view-timeline-name") || o.querySelector(".attn-explorer"); });
    if (!outputs.length || !window.ResizeObserver) return;
    var band = null;
    new ResizeObserver(function (entries) {
      var h = Math.ceil(entries[entries.length - 1].borderBoxSize ?
        entries[entries.length - 1].borderBoxSize[0].blockSize : toc.getBoundingClientRect().height);
      if (!h || h === band) return; // a drawer (below 1200 px) or hidden: keep the last band
      band = h;
      outputs.forEach(function (o) { o.style.setProperty("--book-toc-band", h + "px"); });
    }).observe(toc);
  }

  // ------------------------------------------------------------------ the search page
  // Sphinx's searchtools.js adds the hits one by one and each snippet under its hit as it
  // arrives, which pushed the hits below it down. The results stay hidden (their box keeps a
  // screen's height, attnbook.css) until the search has finished and every hit on the first
  // screen has its snippet, or 3 s have passed; then they show at once. A snippet that comes
  // later belongs to a hit below the screen: what it pushes down is out of view (the text
  // copies arrive together over a slow link; waiting for the last one held the first screen
  // back by about half a second).
  function setupSearchPage() {
    var results = byId("search-results");
    if (!results || !new URLSearchParams(location.search).get("q")) return;
    root.setAttribute("data-search-pending", "");
    var done = false;
    function reveal() {
      if (done) return;
      done = true;
      observer.disconnect();
      root.removeAttribute("data-search-pending");
    }
    function check() {
      var summary = results.querySelector("p.search-summary");
      if (!summary || !summary.textContent) return; // still searching
      var hits = results.querySelectorAll("ul.search > li");
      for (var i = 0; i < hits.length; i++) {
        if (hits[i].getBoundingClientRect().top >= window.innerHeight) break; // below the screen
        if (!hits[i].querySelector("p.context") && !hits[i].querySelector("span")) return;
      }
      reveal();
    }
    var observer = new MutationObserver(check);
    observer.observe(results, { childList: true, subtree: true, characterData: true });
    setTimeout(reveal, 3000);
    // the search may have finished before this script ran (searchindex.js, deferred before it,
    // runs the query at once): then no change is left to observe
    check();
  }

  // ------------------------------------------------------------------ start
  // The drawers are drawers only once this script runs (attnbook.css: html[data-js]); if it
  // never loads, the chapter list stays in the page's flow.
  root.setAttribute("data-js", "");

  // Print on paper: the light colours, whatever the screen's mode (figures, code, explorers).
  var printedFrom = null;
  window.addEventListener("beforeprint", function () {
    printedFrom = root.getAttribute("data-theme");
    root.setAttribute("data-theme", "light");
  });
  window.addEventListener("afterprint", function () {
    if (printedFrom) root.setAttribute("data-theme", printedFrom);
    printedFrom = null;
  });

  var pending = null;
  function ready() {
    backdrop = byId("book-backdrop");
    if (backdrop) backdrop.addEventListener("click", function () { closeDrawer(true); });
    setupMode();
    setupDrawer("book-nav-toggle", "book-nav", narrowNav, true);
    setupDrawer("book-toc-toggle", "book-toc", narrowToc, false);
    setupKeys(setupMenus());
    setupSearchPage();
    setupPageToc();
    stackWideTables();
    afterFrame(scrollable);
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(function () { stackWideTables(); afterFrame(scrollable); });
    window.addEventListener("resize", function () {
      if (pending) clearTimeout(pending);
      pending = setTimeout(function () { stackWideTables(); scrollable(); }, 150);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
