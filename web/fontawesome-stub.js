/* Replaces pydata-sphinx-theme's scripts/fontawesome.js (Font Awesome's all.min.js, 1.5 MB,
 * 0.54 MB gzip) in the built book: the theme's stylesheet already carries Font Awesome's CSS
 * and its solid web font draws every icon the book shows (the header buttons). The book
 * defines no custom icon links, the only thing the JavaScript version is needed for. */
