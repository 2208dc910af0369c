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
  function ready() {
    forward(".primary-toggle");
    forward(".secondary-toggle");
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
