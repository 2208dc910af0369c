# The two commands a reader needs: `make book` and `make test`.
# Each creates .venv on first use and installs requirements.lock (every package pinned exactly,
# made from requirements.txt by `make lock`) and attnlib into it.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# The notebooks run in the "python3" kernel, whose kernel.json starts plain `python`:
# put the venv first on PATH so that kernel is the venv's interpreter (with attnlib).
export PATH := $(abspath $(VENV))/bin:$(PATH)
unexport VIRTUAL_ENV
# pip installs without byte-compiling (--no-compile: 55 s -> 24 s on a 2-core machine, most of
# it torch's thousands of modules); Python compiles the modules a run imports, once, and keeps
# them, unless the environment forbids writing bytecode, which this lifts for the venv's runs.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help install lock vendor explorer book chapters lint format check test test-python test-browser test-browser-built lab bench clean

help:
	@echo "make book   build the book into _build/html"
	@echo "make check  after each edit (under a minute on 2 cores): lint, then every test that"
	@echo "            neither drives a browser nor is marked slow (trains, executes a chapter)"
	@echo "make test   run every test (lint first, attnlib, notebooks via nbval, browser)"
	@echo "make lint   ruff: lint + format check of attnlib, tests, benchmarks, web, chapters"
	@echo "make format ruff: format and fix what it can, in place"
	@echo "make explorer  bundle attnlib/static/src/*.js into attnlib/static/explorer.js"
	@echo "make test-browser  rebuild the book, test every page in headless Chromium"
	@echo "make chapters  sync chapters/*.md into the .ipynb twins and re-execute them"
	@echo "               (one chapter: make chapters CH=03)"
	@echo "make lab    open the chapters in JupyterLab with live sliders"
	@echo "make bench  run the speed/memory/page benchmarks (how to read them: benchmarks/README.md)"
	@echo "make lock   re-resolve requirements.txt into requirements.lock (exact pins of every"
	@echo "            package .venv gets); make lock UPGRADE=1 also moves the indirect ones"
	@echo "make install   create .venv from requirements.lock and install attnlib (book/test do it)"
	@echo "make vendor    npm ci the pinned JavaScript packages, copy what the pages use to _vendor/"
	@echo "make clean     remove _build, _vendor and the test caches"

# .venv gets requirements.lock, not requirements.txt: pip first, at the lock's pin, then every
# locked package, then attnlib itself (editable, --no-deps: its dependencies are in the lock;
# --no-build-isolation: built with the locked setuptools, so nothing unpinned is downloaded).
# A lock older than requirements.txt (its recorded sha256 differs) stops here, naming `make lock`
# (tests/book/test_lock.py checks the same, and that the two agree).
# pip does not ask PyPI whether a newer pip exists (--disable-pip-version-check: the lock pins
# pip; 0.3 CPU-s a call). The locked packages keep their dependency check (no --no-deps): where
# the lock's platform differs (a Mac), pip adds what only that platform needs.
PIP := $(PY) -m pip --disable-pip-version-check
REQ_SHA256 = $(shell $(PYTHON) -c 'import hashlib; print(hashlib.sha256(open("requirements.txt", "rb").read()).hexdigest())')
$(STAMP): requirements.lock requirements.txt pyproject.toml
	@grep -qx '# requirements.txt sha256: $(REQ_SHA256)' requirements.lock || { \
	  echo "requirements.txt changed since requirements.lock was made: run make lock"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q "$$(grep -E '^pip==' requirements.lock)"
	$(PIP) install -q --no-compile -r requirements.lock
	$(PIP) install -q --no-compile --no-deps --no-build-isolation -e .
	@touch $(STAMP)

install: $(STAMP)

# requirements.lock: pip-compile (pip-tools, pinned below) resolves requirements.txt into exact
# pins of every package .venv gets, pip and setuptools included (--allow-unsafe). pip-tools runs
# from its own throwaway venv, .venv-lock (gitignored), so neither it nor its dependencies enter
# .venv or the lock. pip-compile keeps the pins of the existing lock that still fit
# requirements.txt; `make lock UPGRADE=1` re-resolves every indirect package to its newest.
# The lock is resolved for this Python (3.11) on Linux x86_64: packages only another platform
# needs (appnope on a Mac, say) are not in it, and pip adds them there unpinned.
# Local version labels are removed from the pins (sed below): on these machines torch resolves
# to the local CPU wheel, 2.13.0+cpu, but the lock says torch==2.13.0, as requirements.txt does.
# PEP 440's ==2.13.0 matches 2.13.0+cpu, so the same CPU wheel is installed here, while the
# lock stays installable where no +cpu build exists (a Mac, or PyPI's default Linux wheel).
# The lock's first lines record requirements.txt's sha256, which $(STAMP) and
# tests/book/test_lock.py compare with the current file.
PIP_TOOLS_VERSION := 7.6.2
LOCK_VENV := .venv-lock
LOCK_TOOL := $(LOCK_VENV)/.pip-tools-$(PIP_TOOLS_VERSION)
LOCK_NEW := $(LOCK_VENV)/requirements.lock.new
UPGRADE ?=

$(LOCK_TOOL):
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q pip-tools==$(PIP_TOOLS_VERSION)
	@touch $(LOCK_TOOL)

lock: $(LOCK_TOOL)
	rm -f $(LOCK_NEW)
	@test ! -f requirements.lock || cp requirements.lock $(LOCK_NEW)
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_VENV)/bin/pip-compile -q $(if $(UPGRADE),--upgrade) \
	  --allow-unsafe --strip-extras --no-emit-find-links --no-emit-index-url --no-emit-trusted-host \
	  --output-file $(LOCK_NEW) requirements.txt
	{ echo "# requirements.lock: every package \`make install\` puts in .venv, pinned exactly."; \
	  echo "# Made by \`make lock\` (pip-tools $(PIP_TOOLS_VERSION), Python $$($(PYTHON) -c 'import sys; print(*sys.version_info[:2], sep=".")'), $$(uname -s) $$(uname -m)) from:"; \
	  echo "# requirements.txt sha256: $(REQ_SHA256)"; \
	  echo "# Do not edit by hand: edit requirements.txt, then run make lock."; \
	  sed -E 's/^([A-Za-z0-9._-]+==[^+ ]+)\+[A-Za-z0-9.]+/\1/' $(LOCK_NEW); \
	} > requirements.lock
	rm -f $(LOCK_NEW)
	@echo "requirements.lock: $$(grep -cE '^[A-Za-z0-9]' requirements.lock) packages pinned"

# Front-end files the book serves itself (MathJax for a plain `jupyter-book build`, the explorers'
# module and loader; axe-core is installed for the browser tests only): `npm ci` installs exactly
# web/package-lock.json, web/vendor.mjs copies the few files a page needs into _vendor/
# (gitignored; _config.yml serves it as _static/).
NPM_STAMP := web/node_modules/.package-lock.json
VENDOR_STAMP := _vendor/lib/VENDORED.json

$(NPM_STAMP): web/package.json web/package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node.js 18+) is needed to vendor the book's JavaScript"; exit 1; }
	cd web && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $(NPM_STAMP)

# The explorer's ES modules (attnlib/static/src/, one concern each) bundled into the ONE file
# anywidget and the book's loader use, with the esbuild pinned in web/package-lock.json. The
# bundle is committed (pip install -e . && jupyter lab needs no Node);
# tests/widgets/test_explorer_bundle.py fails when it is stale.
EXPLORER_JS := attnlib/static/explorer.js
$(EXPLORER_JS): $(wildcard attnlib/static/src/*.js) web/build-explorer.mjs | $(NPM_STAMP)
	cd web && node build-explorer.mjs

explorer: $(EXPLORER_JS)

$(VENDOR_STAMP): $(NPM_STAMP) $(STAMP) web/vendor.mjs web/explorer-boot.js $(EXPLORER_JS) attnlib/static/explorer.css web/mathjax-load.js
	cd web && node vendor.mjs

vendor: $(VENDOR_STAMP)

# web/build_book.py is `jupyter-book build` with Sphinx's parallel read: the chapters execute on
# BOOK_JOBS processes (default: every core) instead of one after another.
BOOK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# --all: a full rebuild. Sphinx otherwise re-reads (and so re-executes) only the pages whose
# source changed, and keeps stale copies of changed static files.
# The pages are drawn by the book's own Sphinx theme, web/theme/attnbook (templates, CSS, JS;
# web/theme/CONTRACT.md lists the markup explorers and tests rely on), 404.html included.
# Then web/prerender-math.mjs typesets every formula at build time into native MathML (Temml,
# pinned in web/package-lock.json; one copy of each formula, read by screen readers), removes the
# MathJax <script> tags and links one shared stylesheet (_static/lib/math.css): pages load no
# maths JavaScript. A TeX error makes it (and so `make book`) fail. web/subset_math_font.py cuts
# STIX Two Math (from the pinned ziamath package) down to the characters the formulas use.
# web/table-cards.mjs names each cell of a table with words in it by its column (data-label),
# for the stacked cards a phone shows instead of a table wider than the screen.
# web/prerender-explorers.mjs draws each explorer's starting picture into its page (shown at
# first paint and without JavaScript) with its state next to it; web/optimize_images.py stores
# the 2x figure PNGs as palettes when that is faithful. web/search-text.mjs writes each page's
# main text into _search/, which the search page's snippets read instead of whole pages. Last,
# web/inline-css.mjs puts each page's stylesheets into the page (minified, nothing purged).
book: $(STAMP) vendor
	$(PY) web/build_book.py --jobs $(BOOK_JOBS) --all -W -n --keep-going .
	cd web && node prerender-math.mjs ../_build/html
	$(PY) web/subset_math_font.py _build/html
	cd web && node table-cards.mjs ../_build/html
	cd web && node prerender-explorers.mjs ../_build/html
	$(PY) web/optimize_images.py _build/html
	cd web && node search-text.mjs ../_build/html
	cd web && node inline-css.mjs ../_build/html
	@echo "The book is built: open _build/html/index.html"

# Chapters are edited as MyST Markdown (chapters/NN_name.md); the executed .ipynb twins keep
# the outputs that nbval compares and the book shows. This copies each .md's cells into its
# .ipynb (jupytext --update keeps outputs and cell ids) and re-executes the notebook in place.
CH ?=
CHAPTER_MD = $(sort $(wildcard chapters/$(CH)*.md))
chapters: $(STAMP)
	@test -n "$(CHAPTER_MD)" || { echo "no chapter matches CH=$(CH)"; exit 1; }
	@for md in $(CHAPTER_MD); do \
	  nb=$${md%.md}.ipynb; \
	  $(VENV)/bin/jupytext --quiet --to ipynb --update --output $$nb $$md || exit 1; \
	  echo "executing $$nb"; \
	  $(VENV)/bin/jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.timeout=600 $$nb --log-level=WARN || exit 1; \
	done

# One formatter and linter, ruff (pinned in requirements.txt; configured in pyproject.toml, the
# chapters' code cells in chapters/ruff.toml: at most 79 characters, the page column). The
# .ipynb twins are what ruff reads; tests/book/test_chapters_in_sync.py keeps the .md twins
# equal.
LINT_PATHS := attnlib scoringbook tests benchmarks devtools web chapters
lint: $(STAMP)
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)

format: $(STAMP)
	$(VENV)/bin/ruff check --fix $(LINT_PATHS)
	$(VENV)/bin/ruff format $(LINT_PATHS)

# Every pytest session runs its workers on one torch (OpenMP/MKL) thread each: two workers fill
# the two cores; at torch's default, a thread per core in each worker, the threads of one worker
# spin for a core the other holds (make check under load: 165 CPU-s, 129 with one thread).
# tests/book/test_numeric_paths.py then runs torch's own thread count as another path; the
# chapters' nbval kernels inherit the one thread.
ONE_THREAD := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Sessions that run no notebook do not load nbval's plugin: importing it (jupyter_client,
# jsonschema's URI grammars) costs about 2 s in each of a session's three processes.
NO_NBVAL := -p no:nbval

# The contributor's loop, after each edit: lint, then every test that neither drives Chromium
# (`browser`) nor is marked `slow` (trains a model, executes a chapter, re-runs a suite under
# other numeric paths, or takes many seconds), on both cores, the property tests at the `check`
# depth (tests/_depth.py: a quarter of the examples `make test` draws). No book, no npm: the
# tests that need Node skip without web/node_modules (they fail with CI=true).
check: $(STAMP) lint
	TEST_DEPTH=check $(ONE_THREAD) $(PY) -m pytest -q -n 2 --dist loadscope $(NO_NBVAL) tests attnlib scoringbook --doctest-modules \
	  -m "not browser and not slow"

# nbval re-executes every chapter in a numeric environment other than the one `make chapters`
# wrote the committed outputs in: other CPU kernels (ATen's portable ones instead of AVX2/AVX-512,
# MKL's reproducible code path), which change a training run's trajectory as another processor
# would. Outputs that do not depend on the machine must still match exactly; trained numbers are
# glued, not compared, and the claims drawn from them are asserted in the chapters
# (scoringbook/claims.py). `make test NBVAL_ENV=` runs nbval in the plain environment.
NBVAL_ENV ?= ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE

# attnlib's tests and nbval share one pytest session on both cores (--dist loadscope: a notebook,
# or a test module, runs on one worker), the chapters listed first so the longest notebooks
# start first and the short tests fill the other worker. NBVAL_ENV reaches only the chapters'
# kernel (tests/nbval_kernel.py writes it into the kernel spec nbval starts), so the unit tests
# run in the machine's own numeric environment.
# The book build (it executes no notebook: they are committed executed) runs beside that
# session, on one process (`make -j 2 test-python book BOOK_JOBS=1`), filling the cores the
# session leaves idle; the browser tests then run on the built book. (Running the browser tests
# beside the Python session was tried: in a fresh clone the Python session went from about 4 to
# 16 minutes, torch's threads and Chromium's fighting for two cores, and the whole run from
# 11:46 to 16:40.)
test: $(STAMP) $(NPM_STAMP) lint
	$(PY) tests/nbval_kernel.py $(NBVAL_ENV)
	$(MAKE) --no-print-directory -j 2 test-python book BOOK_JOBS=1
	$(MAKE) --no-print-directory test-browser-built

test-python: $(STAMP)
	$(ONE_THREAD) $(PY) -m pytest -q -n 2 --dist loadscope chapters tests attnlib scoringbook --doctest-modules \
	  -m "not browser" --nbval --nbval-kernel-name attnlib-nbval \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg --durations=15

# Builds the book afresh, then drives every page in headless Chromium (/usr/bin/chromium-headless-shell):
# no outside requests, no console errors, maths typeset, explorers match attnlib.
# Screenshots go to _build/screenshots/. Skips locally without Chromium; fails with CI=true.
# The tests run on BROWSER_WORKERS pytest-xdist workers (a file's tests on one worker, so a page
# load serves every check of its file that reads it; the files of tests/conftest.py's
# SHARED_LOADS, which read one load per page and mode between them, on one worker together),
# one per core. No verdict depends on the machine's load: nothing is timed by the
# wall clock (a playback's pace runs on Playwright's virtual clock; page speed is `make bench`'s).
BROWSER_WORKERS ?= 2
test-browser: book
	$(MAKE) --no-print-directory test-browser-built

test-browser-built:
	$(ONE_THREAD) $(PY) -m pytest -q -n $(BROWSER_WORKERS) --dist loadfile $(NO_NBVAL) tests -m browser --durations=15

# Speed and memory targets: ratios measured in one run (see each script's docstring).
bench: $(STAMP) book
	$(PY) benchmarks/bench_attention.py
	$(PY) benchmarks/bench_domains.py
	$(PY) benchmarks/bench_widgets.py
	$(PY) benchmarks/bench_browser.py

lab: $(STAMP)
	$(VENV)/bin/jupyter lab chapters/

clean:
	rm -rf _build .pytest_cache .hypothesis _vendor
