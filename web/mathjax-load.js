/* Starts MathJax (Sphinx's mathjax_path points here; see _config.yml). MathJax is served as
 * separate components (startup.js loads core, TeX input and CommonHTML output one after the
 * other); fetching them all at once with <link rel="preload"> spares the reader that chain of
 * round trips. Then it adds startup.js itself, which reads the configuration Sphinx wrote into
 * window.MathJax and finds its components next to its own URL. */
(function () {
  "use strict";
  var src = document.currentScript.src.split(/[?#]/)[0];
  var here = src.slice(0, src.lastIndexOf("/") + 1);
  var cfg = (window.MathJax && window.MathJax.loader && window.MathJax.loader.load) || [];
  var parts = ["core"].concat(cfg);
  if (cfg.indexOf("output/chtml") >= 0) parts.push("output/chtml/fonts/tex");
  parts.forEach(function (name) {
    var link = document.createElement("link");
    link.rel = "preload";
    link.as = "script";
    link.href = here + name + ".js";
    document.head.appendChild(link);
  });
  var script = document.createElement("script");
  script.src = here + "startup.js";
  script.async = true;
  document.head.appendChild(script);
})();
