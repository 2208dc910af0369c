// The book's own page script (copied to _static/lib/book.js by web/vendor.mjs; listed in
// _config.yml's html_js_files). Plain, no dependencies.
//
// Phones and tablets: pydata-sphinx-theme 0.17 binds its "open the sidebar" handler to the
// FIRST .primary-toggle / .secondary-toggle only (pydata-sphinx-theme issue #2451), but
// sphinx-book-theme renders a second pair in the article header, the one that is visible
// below 992 px. Clicking those did nothing. Below that width, forward their clicks to the
// bound buttons, which open the navigation / "on this page" dialogs (Esc or a click
// outside closes them, as the theme does).
(function () {
  "use strict";
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 991.98px)") : null;
  function forward(selector) {
    var buttons = Array.prototype.slice.call(document.querySelectorAll(selector));
    if (buttons.length < 2) return;
    var bound = buttons[0];
    buttons.slice(1).forEach(function (button) {
      button.addEventListener("click", function (event) {
        if (narrow && !narrow.matches) return; // wide screens: the theme's own behaviour
        event.preventDefault();
        event.stopPropagation();
        bound.click();
      });
    });
  }
  // A display formula wider than the column scrolls sideways (book.css). Keyboard users
  // can scroll it only if it can take focus: give exactly those formulas a tab stop and a
  // name, and take it away again when the window grows wide enough (axe-core:
  // scrollable-region-focusable).
  function scrollableMath() {
    var all = document.querySelectorAll('mjx-container[display="true"]');
    Array.prototype.forEach.call(all, function (m) {
      if (m.scrollWidth > m.clientWidth + 1) {
        m.setAttribute("tabindex", "0");
        m.setAttribute("role", "region");
        m.setAttribute("aria-label", "formula, scrolls sideways");
      } else if (m.getAttribute("role") === "region") {
        m.removeAttribute("tabindex");
        m.removeAttribute("role");
        m.removeAttribute("aria-label");
      }
    });
  }
  var pending = null;
  function ready() {
    forward(".primary-toggle");
    forward(".secondary-toggle");
    scrollableMath();
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(scrollableMath); // widths change
    window.addEventListener("resize", function () {
      if (pending) clearTimeout(pending);
      pending = setTimeout(scrollableMath, 150);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
