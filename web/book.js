// The book's own page script (copied to _static/lib/book.js by web/vendor.mjs; listed in
// _config.yml's html_js_files; deferred by web/optimize-pages.mjs). Plain, no dependencies.
(function () {
  "use strict";

  // pydata-sphinx-theme 0.17 binds its "open the sidebar" handler to the FIRST .primary-toggle
  // / .secondary-toggle only (pydata-sphinx-theme issue #2451), and so does sphinx-book-theme
  // its "hide the sidebar" handler for wide screens; but sphinx-book-theme renders a second
  // pair in the article header, the one a reader sees. Clicking those did nothing. Forward
  // their clicks to the bound buttons: below 992 px both open the navigation / "on this page"
  // dialogs (Esc or a click outside closes them, as the theme does); at 992 px and wider the
  // navigation's hides or brings back the sidebar (the "on this page" one is then the theme's).
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 991.98px)") : null;
  function forward(selector, everyWidth) {
    var buttons = Array.prototype.slice.call(document.querySelectorAll(selector));
    if (buttons.length < 2) return;
    var bound = buttons[0];
    buttons.slice(1).forEach(function (button) {
      button.addEventListener("click", function (event) {
        if (!everyWidth && narrow && !narrow.matches) return;
        event.preventDefault();
        event.stopPropagation();
        bound.click();
      });
    });
  }

  // The theme hands the focus back to the toggle when a drawer closes; the toggle sits in the
  // sticky article header, and focusing it scrolled the page up (426 px on chapter 5 at 390 px).
  // The focus comes back without a scroll.
  function focusInPlace(button) {
    button.focus = function (options) {
      HTMLElement.prototype.focus.call(this, Object.assign({}, options, { preventScroll: true }));
    };
  }

  // Opening the navigation (or "on this page") on a phone: the theme moves the sidebar into a
  // <dialog> and calls showModal(), which makes the rest of the page inert, a restyle of every
  // element of the page (28 ms of CPU on chapter 5, about 110 ms at 4x, most of the tap's
  // work: issue 20's traces). The drawer itself is shown first, as a plain dialog, in the tap's
  // own frame (only its ~40 elements restyled; book.css gives it the backdrop's shade), and
  // made modal (page inert, focus kept inside, the real backdrop) right after that frame; if it
  // is closed within that frame, nothing follows.
  function drawerFirst(id) {
    var dialog = document.getElementById(id);
    if (!dialog || typeof dialog.show !== "function" || typeof dialog.showModal !== "function") return;
    var showModal = dialog.showModal;
    dialog.showModal = function () {
      if (this.open) return showModal.call(this); // what the native method does then (it throws)
      var self = this;
      self.show();
      afterFrame(function () {
        if (!self.open || self.hasAttribute("data-modal")) return;
        var focused = document.activeElement;
        self.removeAttribute("open"); // no close event: the theme's close handler must not run
        showModal.call(self);
        self.setAttribute("data-modal", "");
        if (focused && focused !== document.activeElement && self.contains(focused)) focused.focus();
      });
    };
    // Closing (Esc, a tap outside): leaving the modal state restyles the whole page
    // again (the theme's close handler then returns the focus, which forces it: 80-160 ms at 4x).
    // The drawer and its backdrop disappear in the key's or tap's own frame (book.css,
    // [data-closing]) and the dialog closes right after it.
    // On closing, the theme moves the sidebar's classes back onto its place in the page
    // (#pst-primary-sidebar), whose own slide-out transition then showed the drawer again,
    // unshaded, for a fifth of a second after it had gone: that place gets no transition
    // until the drawer is back in it (book.css, [data-drawer-returning]).
    var home = document.getElementById(id.replace(/-modal$/, ""));
    var close = dialog.close;
    function closeNow(self, args) {
      if (home) home.setAttribute("data-drawer-returning", "");
      close.apply(self, args);
      if (home) afterFrame(function () { afterFrame(function () { home.removeAttribute("data-drawer-returning"); }); });
    }
    dialog.close = function () {
      var self = this, args = arguments;
      if (!self.hasAttribute("data-modal")) return closeNow(self, args);
      if (self.hasAttribute("data-closing")) return undefined;
      self.setAttribute("data-closing", "");
      afterFrame(function () {
        self.removeAttribute("data-closing");
        if (self.open) closeNow(self, args);
      });
      return undefined;
    };
    // A section picked in the drawer ("on this page", or the page's own entry in the
    // navigation): the page scrolls to it and the drawer closes, as a reader expects; it stayed
    // open over the section, and the next tap on a toggle only closed it.
    dialog.addEventListener("click", function (event) {
      var link = event.target && event.target.closest && event.target.closest("a[href]");
      if (!link || !dialog.open) return;
      var url = new URL(link.href, location.href);
      if (url.origin + url.pathname === location.origin + location.pathname) dialog.close();
    });
    dialog.addEventListener("close", function () {
      dialog.removeAttribute("data-modal");
      dialog.removeAttribute("data-closing");
    });
  }

  // A display formula wider than the column scrolls sideways (div.math, _static/lib/math.css).
  // Keyboard users can scroll it only if it can take focus: give exactly those formulas a tab
  // stop and a name, and take it away again when the window grows wide enough (axe-core:
  // scrollable-region-focusable). Every width is read first, then only the changes are
  // written, after the first frame: reads between writes would each force a layout.
  function scrollableMath() {
    var all = Array.prototype.slice.call(document.querySelectorAll("div.math"));
    var wide = all.map(function (m) { return m.scrollWidth > m.clientWidth + 1; });
    all.forEach(function (m, i) {
      if (wide[i] && m.getAttribute("role") !== "region") {
        m.setAttribute("tabindex", "0");
        m.setAttribute("role", "region");
        m.setAttribute("aria-label", "formula, scrolls sideways");
      } else if (!wide[i] && m.getAttribute("role") === "region") {
        m.removeAttribute("tabindex");
        m.removeAttribute("role");
        m.removeAttribute("aria-label");
      }
    });
  }
  function afterFrame(f) {
    requestAnimationFrame(function () { setTimeout(f, 0); });
  }

  // The colour-mode button: the theme's click handler sets data-theme on <html>, which restyles
  // every element of the page (150-300 ms at 4x CPU on a chapter, traced by issue 20's
  // engineer), so the frame that answers the press came that much later (INP). The press is
  // answered first: the button dims at once, the click is held back here, before it reaches
  // the theme, and replayed after that frame; the restyle (the new colours) then runs as a
  // task of its own. Mouse, touch and keyboard (Enter, Space) all arrive as this click.
  var replaying = false;
  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest && event.target.closest(".theme-switch-button");
    if (!button || replaying) return;
    event.stopImmediatePropagation();
    event.preventDefault();
    button.style.opacity = "0.55"; // the press's own feedback, painted in the next frame
    afterFrame(function () {
      replaying = true;
      try { button.click(); } finally { replaying = false; button.style.opacity = ""; }
    });
  }, true);

  // Bootstrap (the theme's two dropdown menus, its tooltips, its back-to-top button) is not
  // loaded with the page (web/optimize-pages.mjs leaves its URL in <meta
  // name="book-lazy-script">): it is fetched at the first sign of use, a mouse or pen over or
  // keyboard focus in a control that needs it, or, in idle time, after a scroll. A click on a
  // dropdown that arrives before it does opens that dropdown once it is there.
  // Not on a tap: a finger's pointerover and the focus a tap gives come in the same interaction
  // as the tap, and evaluating bootstrap.js (60-120 ms at 4x CPU) then landed inside it (the
  // colour-mode button's INP on a phone); tooltips, the only thing it would bring, do not show
  // on touch anyway.
  var lazy = document.querySelector('meta[name="book-lazy-script"]');
  var loading = null;
  function loadBootstrap() {
    if (!lazy || window.bootstrap) return Promise.resolve();
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = lazy.content;
        s.onload = function () { noTooltipsWithoutHover(); resolve(); };
        s.onerror = reject;
        document.head.appendChild(s);
      });
    }
    return loading;
  }
  // Its tooltips (the header's buttons: "Toggle primary sidebar", "Color mode", ...) show on
  // hover; on a screen without hover a tap's emulated mouse showed them and nothing took them
  // away, so after a drawer closed its toggle's tooltip stayed over the header's buttons. On
  // such screens they are removed as soon as Bootstrap has set them up.
  function noTooltipsWithoutHover() {
    var bs = window.bootstrap;
    if (!bs || !bs.Tooltip || !window.matchMedia || !window.matchMedia("(hover: none)").matches) return;
    Array.prototype.forEach.call(document.querySelectorAll('[data-bs-toggle="tooltip"]'), function (el) {
      var tip = bs.Tooltip.getInstance(el);
      if (tip) tip.dispose();
    });
  }
  function keyboardFocus(el) {
    try { return el.matches(":focus-visible"); } catch (e) { return true; }
  }
  // After the reader has stopped for a moment (the script's evaluation is one long task).
  function idle(f) {
    if (window.requestIdleCallback) window.requestIdleCallback(function () { f(); }, { timeout: 3000 });
    else setTimeout(f, 500);
  }
  function wantsBootstrap(target) {
    return !!(target && target.closest && target.closest('[data-bs-toggle], #pst-back-to-top'));
  }
  if (lazy) {
    ["pointerover", "focusin"].forEach(function (type) {
      document.addEventListener(type, function on(event) {
        if (!wantsBootstrap(event.target)) return;
        if (type === "pointerover" && event.pointerType === "touch") return;
        if (type === "focusin" && !keyboardFocus(event.target)) return;
        document.removeEventListener(type, on, true);
        loadBootstrap();
      }, true);
    });
    window.addEventListener("scroll", function once() {
      window.removeEventListener("scroll", once);
      idle(loadBootstrap);
    }, { passive: true });
    document.addEventListener("click", function (event) {
      var toggle = event.target && event.target.closest && event.target.closest('[data-bs-toggle="dropdown"]');
      if (!toggle || window.bootstrap) return;
      event.preventDefault();
      event.stopPropagation();
      loadBootstrap().then(function () { window.bootstrap.Dropdown.getOrCreateInstance(toggle).toggle(); });
    }, true);
  }

  var pending = null;
  function ready() {
    forward(".primary-toggle", true);
    forward(".secondary-toggle", false);
    Array.prototype.forEach.call(document.querySelectorAll(".primary-toggle, .secondary-toggle"), focusInPlace);
    drawerFirst("pst-primary-sidebar-modal");
    drawerFirst("pst-secondary-sidebar-modal");
    afterFrame(scrollableMath);
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(function () { afterFrame(scrollableMath); });
    window.addEventListener("resize", function () {
      if (pending) clearTimeout(pending);
      pending = setTimeout(scrollableMath, 150);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
