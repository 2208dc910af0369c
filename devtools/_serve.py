"""A static HTTP server on 127.0.0.1 that compresses like a real host (gzip), for the
browser benchmark and the page-weight tests.

``python -m http.server`` sends every file as it is on disk; a real host (GitHub Pages,
Netlify, nginx with ``gzip on``) sends text gzip-compressed to a browser that accepts it.
This server does the same: HTML, CSS, JavaScript, JSON, SVG and other text go out gzipped
(level 6, nginx's and Apache's usual setting) when the request's Accept-Encoding names
gzip; images and fonts, already compressed, go out as they are. HTTP/1.1 keep-alive, so a
page's requests share connections as they would on a host.

Usage (in Python)::

    with serve(site, gzip=True) as base_url:
        ...  # base_url is "http://127.0.0.1:PORT"
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import io
import threading
import urllib.request
from pathlib import Path

TEXT_TYPES = (
    "text/",
    "application/javascript",
    "application/json",
    "image/svg+xml",
    "application/xml",
    "text/javascript",
)
LEVEL = 6


class _Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive (every response has a Content-Length)
    use_gzip = True
    cache: dict = {}

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".css": "text/css",
        ".svg": "image/svg+xml",
        ".woff": "font/woff",
        ".woff2": "font/woff2",
        ".json": "application/json",
        ".webp": "image/webp",
        ".avif": "image/avif",
    }

    def log_message(self, *args):  # quiet
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            index = path / "index.html"
            if not self.path.split("?")[0].endswith("/") or not index.is_file():
                return super().send_head()
            path = index
        ctype = self.guess_type(str(path))
        wants = "gzip" in (self.headers.get("Accept-Encoding") or "")
        if not (self.use_gzip and wants and path.is_file() and ctype.startswith(TEXT_TYPES)):
            return super().send_head()
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        body = self.cache.get(key)
        if body is None:
            body = gzip.compress(path.read_bytes(), compresslevel=LEVEL, mtime=0)
            self.cache[key] = body
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        return io.BytesIO(body)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


@contextlib.contextmanager
def serve(site: Path, gzip: bool = True):
    """Serve ``site`` on a free port of 127.0.0.1 (in a thread); yields the base URL."""
    handler = type("Handler", (_Handler,), {"use_gzip": gzip, "cache": {}})
    server = _Server(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with urllib.request.urlopen(url + "/", timeout=5) as r:
            r.read()
        yield url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
