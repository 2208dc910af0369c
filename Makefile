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

.PHONY: help install book test test-lib test-notebooks test-browser lab bench clean

help:
	@echo "make book   build the book into _build/html"
	@echo "make test   run every test (attnlib, notebooks via nbval, browser)"
	@echo "make lab    open the chapters in JupyterLab with live sliders"
	@echo "make bench  run the speed/memory benchmarks"

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps -e .
	@touch $(STAMP)

install: $(STAMP)

book: $(STAMP)
	$(VENV)/bin/jupyter-book build -W -n --keep-going .
	@echo "The book is built: open _build/html/index.html"

test: $(STAMP)
	$(PY) -m pytest -q tests attnlib --doctest-modules -m "not browser"
	$(PY) -m pytest -q --nbval chapters --nbval-sanitize-with tests/nbval_sanitize.cfg

lab: $(STAMP)
	$(VENV)/bin/jupyter lab chapters/

clean:
	rm -rf _build .pytest_cache .hypothesis
