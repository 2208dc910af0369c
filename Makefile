# The two commands a reader needs: `make book` and `make test`.
# Each creates .venv on first use and installs requirements.txt and attnlib into it.
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

.PHONY: help install vendor explorer book chapters lint format test test-lib test-notebooks test-browser lab bench clean

help:
	@echo "make book   build the book into _build/html"
	@echo "make test   run every test (lint first, attnlib, notebooks via nbval, browser)"
	@echo "make lint   ruff: lint + format check of attnlib, tests, benchmarks, web, chapters"
	@echo "make format ruff: format and fix what it can, in place"
	@echo "make explorer  bundle attnlib/static/src/*.js into attnlib/static/explorer.js"
	@echo "make test-browser  rebuild the book, test every page in headless Chromium"
	@echo "make chapters  sync chapters/*.md into the .ipynb twins and re-execute them"
	@echo "               (one chapter: make chapters CH=03)"
	@echo "make lab    open the chapters in JupyterLab with live sliders"
	@echo "make bench  run the speed/memory benchmarks"

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q --no-compile -r requirements.txt
	$(PY) -m pip install -q --no-compile --no-deps -e .
	@touch $(STAMP)

install: $(STAMP)

# Front-end files the book serves itself (MathJax, the explorers' module and loader; axe-core
# is installed for the browser tests only): `npm ci` installs exactly web/package-lock.json, web/vendor.mjs copies the few
# files a page needs into _vendor/ (gitignored; _config.yml serves it as _static/);
# web/subset_icons.py cuts the theme's icon font down to the icons the book shows.
NPM_STAMP := web/node_modules/.package-lock.json
VENDOR_STAMP := _vendor/lib/VENDORED.json

$(NPM_STAMP): web/package.json web/package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node.js 18+) is needed to vendor the book's JavaScript"; exit 1; }
	cd web && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $(NPM_STAMP)

# The explorer's ES modules (attnlib/static/src/, one concern each) bundled into the ONE file
# anywidget and the book's loader use, with the esbuild pinned in web/package-lock.json. The
# bundle is committed (pip install -e . && jupyter lab needs no Node); tests/test_explorer_bundle.py
# fails when it is stale.
EXPLORER_JS := attnlib/static/explorer.js
$(EXPLORER_JS): $(wildcard attnlib/static/src/*.js) web/build-explorer.mjs | $(NPM_STAMP)
	cd web && node build-explorer.mjs

explorer: $(EXPLORER_JS)

$(VENDOR_STAMP): $(NPM_STAMP) $(STAMP) web/vendor.mjs web/explorer-boot.js $(EXPLORER_JS) attnlib/static/explorer.css web/fontawesome-stub.js web/mathjax-load.js web/book.css web/book.js web/subset_icons.py
	cd web && node vendor.mjs
	$(PY) web/subset_icons.py || { rm -f $(VENDOR_STAMP); exit 1; }

vendor: $(VENDOR_STAMP)

# web/build_book.py is `jupyter-book build` with Sphinx's parallel read: the chapters execute on
# BOOK_JOBS processes (default: every core) instead of one after another.
BOOK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# --all: a full rebuild. Sphinx otherwise re-reads (and so re-executes) only the pages whose
# source changed, and keeps stale copies of changed static files.
# Then web/prerender-math.mjs typesets every formula at build time into native MathML (Temml,
# pinned in web/package-lock.json; one copy of each formula, read by screen readers), removes the
# MathJax <script> tags and links one shared stylesheet (_static/lib/math.css): pages load no
# maths JavaScript. A TeX error makes it (and so `make book`) fail. web/subset_math_font.py cuts
# STIX Two Math (from the pinned ziamath package) down to the characters the formulas use.
# web/prerender-explorers.mjs draws each explorer's starting picture into its page (shown at
# first paint and without JavaScript) with its state next to it; web/optimize_images.py stores
# the 2x figure PNGs as palettes when that is faithful; web/make_404.py writes the "page not
# found" page. Last, web/optimize-pages.mjs inlines into each page only the CSS it uses (purged
# and minified), defers the scripts in <head> and keeps Sphinx's search index to the search page.
# web/search-text.mjs writes each page's main text, cut down to what the search page's snippets
# read, into _search/, and has searchtools.js fetch that instead of the whole page.
book: $(STAMP) vendor
	$(PY) web/build_book.py --jobs $(BOOK_JOBS) --all -W -n --keep-going .
	cd web && node prerender-math.mjs ../_build/html
	$(PY) web/subset_math_font.py _build/html
	cd web && node prerender-explorers.mjs ../_build/html
	$(PY) web/optimize_images.py _build/html
	$(PY) web/make_404.py _build/html
	cd web && node optimize-pages.mjs ../_build/html
	cd web && node search-text.mjs ../_build/html
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
# .ipynb twins are what ruff reads; tests/test_chapters_in_sync.py keeps the .md twins equal.
LINT_PATHS := attnlib tests benchmarks web chapters
lint: $(STAMP)
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)

format: $(STAMP)
	$(VENV)/bin/ruff check --fix $(LINT_PATHS)
	$(VENV)/bin/ruff format $(LINT_PATHS)

test: $(STAMP) $(NPM_STAMP) lint
	$(PY) -m pytest -q -n 2 tests attnlib --doctest-modules -m "not browser"
	$(PY) -m pytest -q -n 2 --dist loadscope --nbval chapters --nbval-sanitize-with tests/nbval_sanitize.cfg
	$(MAKE) test-browser

# Builds the book afresh, then drives every page in headless Chromium (/usr/bin/chromium):
# no outside requests, no console errors, maths typeset, explorers match attnlib.
# Screenshots go to _build/screenshots/. Skips locally without Chromium; fails with CI=true.
# The tests run on both cores (pytest-xdist, a file's tests on one worker, so each worker loads
# a page once). No verdict depends on the machine's load: nothing is timed by the wall clock
# (a playback's pace runs on Playwright's virtual clock; page speed is `make bench`'s).
test-browser: book
	$(PY) -m pytest -q -n 2 --dist loadfile tests -m browser --durations=15

# Speed and memory targets: ratios measured in one run (see each script's docstring).
bench: $(STAMP) book
	$(PY) benchmarks/bench_attention.py
	$(PY) benchmarks/bench_widgets.py
	$(PY) benchmarks/bench_browser.py

lab: $(STAMP)
	$(VENV)/bin/jupyter lab chapters/

clean:
	rm -rf _build .pytest_cache .hypothesis _vendor
