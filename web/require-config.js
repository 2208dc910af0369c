/* Tells require.js where the book keeps anywidget's front end (served with the book, no CDN).
 * Loaded after require.js and before @jupyter-widgets/html-manager's embed-amd.js. The html
 * manager asks require.js for the module "anywidget" first and only falls back to a CDN when
 * that fails, so this path keeps every widget request on the book's own host. The path is taken
 * relative to this script's own URL, so it works on every page whatever its folder depth. */
(function () {
  "use strict";
  var src = document.currentScript.src.split(/[?#]/)[0];
  var here = src.slice(0, src.lastIndexOf("/") + 1);
  var hm = here + "html-manager/";
  // The modules bundled in embed-amd.js load their CSS's font-awesome fonts from the folder
  // of their own module URL, which require.js resolves against the page by default (e.g.
  // chapters/@jupyter-widgets/..., a 404), or from __jupyter_widgets_assets_path__. Point
  // both at the folder that holds embed-amd.js and those fonts. (These modules are defined
  // inside embed-amd.js, so the paths below only name their folder; nothing is fetched.)
  window.__jupyter_widgets_assets_path__ = hm;
  // Fetch anywidget's bundle while the page is still loading; require.js asks for it only
  // once the widget manager starts rendering (same URL, so the preloaded copy is used).
  var preload = document.createElement("link");
  preload.rel = "preload";
  preload.as = "script";
  preload.href = here + "anywidget/index.js";
  document.head.appendChild(preload);
  window.requirejs.config({
    paths: {
      anywidget: here + "anywidget/index",
      "@jupyter-widgets/base": hm + "base",
      "@jupyter-widgets/base7": hm + "base7",
      "@jupyter-widgets/controls": hm + "controls",
      "@jupyter-widgets/controls7": hm + "controls7",
      "@jupyter-widgets/html-manager": hm + "html-manager",
      "@jupyter-widgets/html-manager/dist": here + "html-manager",
    },
  });
})();
