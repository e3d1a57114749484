# Tooling for the executable companion book. Two commands matter:
#   make book   -- set up .venv and node_modules (if needed) and build the HTML book
#   make test   -- set up (if needed), run unit tests, nbval on every chapter, strict book build, and the
#                  real-browser test of the built book (headless Debian Chromium, network cut off)
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := book

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# JupyterLab reads this file from the venv: double-clicking a .md in lab opens it as a notebook.
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json

JB_BUILD := $(BIN)/jupyter-book build . --warningiserror --nitpick --keep-going --all
# Chapters run in parallel, one per core (pytest-xdist, whole notebooks per worker: --dist loadfile), as another
# CPU would run them (scripts/environments.py OTHER_CPU: numpy's SSE4.2 loops, OpenBLAS's Sandy Bridge kernels,
# glibc's maths without FMA, attnlib on 3 threads), while the committed outputs were made on this machine's own
# path with attnlib on 1 thread: an output that depends on the CPU or on the threads fails here.
NBVAL    := $(BIN)/python scripts/environments.py other-cpu -- $(BIN)/pytest --nbval book/ \
            --nbval-sanitize-with nbval_sanitize.cfg --nbval-current-env -n auto --dist loadfile --no-loadscope-reorder
# Needs the build; tests/browser/ skips itself unless ATTNLIB_BROWSER_TEST=1. Two at a time (one Chromium each),
# a unit of work being a file or a class (the pages of test_book_in_browser.py are in four classes), the longest first
# (conftest.SLOW_FILES).
BROWSER_TEST := ATTNLIB_BROWSER_TEST=1 $(BIN)/pytest tests/browser -p no:nbval -n auto --dist loadscope \
                --no-loadscope-reorder
# Unit tests on every core too, a test file at a time (its module fixtures are computed once), the longest
# first (conftest.SLOW_FILES).
# (`-p no:nbval` here and above: nbval collects nothing without --nbval, and loading it costs each run a second.)
UNIT     := $(BIN)/pytest tests/ -p no:nbval -n auto --dist loadfile --no-loadscope-reorder

export PYTHONHASHSEED := 0
# Byte-code caches are written (git-ignored __pycache__/, and the venv's), even where the environment sets
# PYTHONDONTWRITEBYTECODE: else every test worker and every chapter's kernel compiles again what it imports, and
# pytest rewrites the tests' asserts in each worker (a few CPU-seconds each time).
export PYTHONDONTWRITEBYTECODE :=

.PHONY: book test browser-test execute lab lab-edit install clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Python >= 3.11 is needed (the pinned numpy/scipy/ipython require it); set PYTHON=..." >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Re-runs only when requirements.txt, pyproject.toml or the npm pins change (or the venv is new).
# npm ci installs the pinned MathJax into node_modules/ (git-ignored); the book build copies it into
# _build/html/_static/mathjax/ (see _ext/offline_assets.py), so the HTML book needs no network.
$(STAMP): requirements.txt pyproject.toml package.json package-lock.json | $(BIN)/python
	@command -v npm >/dev/null || { echo "npm is needed to install MathJax for the book (apt-get install npm)" >&2; exit 1; }
	@# One pip run for the pins and the package, without byte-compiling: the byte-code of a module is written
	@# when it is first imported (see PYTHONDONTWRITEBYTECODE above), about a third of the venv's modules in
	@# `make test`, instead of all of them on one core.
	$(BIN)/python -m pip install --disable-pip-version-check -q --no-compile -r requirements.txt -e .
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@# Build matplotlib's font cache now: on a fresh machine the first import prints a notice to
	@# stderr, which would otherwise land in the first chapter that plots (and fail nbval).
	$(BIN)/python -c "import matplotlib.font_manager"
	@mkdir -p $(dir $(LAB_OVERRIDES))
	@# Chapters (.md) open as notebooks; no first-start "news" prompt and no update check (both want the
	@# network).
	@printf '%s\n' '{' \
	  '  "@jupyterlab/docmanager-extension:plugin": {' \
	  '    "defaultViewers": {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}' \
	  '  },' \
	  '  "@jupyterlab/apputils-extension:notification": {' \
	  '    "fetchNews": "false", "checkForUpdates": false' \
	  '  }' '}' > $(LAB_OVERRIDES)
	@touch $(STAMP)

install: $(STAMP)

book: $(STAMP)
	$(JB_BUILD)
	@echo
	@echo "Book built. Open file://$(CURDIR)/_build/html/index.html"

# nbval runs in the background (its report, written to _build/nbval.log, is printed when it ends) beside the
# HTML build and then the browser tests of that build, so that neither core idles between the stages. The
# build is the one `make book` makes on a fresh clone (no PDF): the browser tests check it has no dead link
# and no link to a PDF. The PDF edition is left to `make pdf` (then `make browser-test` checks the build that
# links it).
test: $(STAMP)
	$(UNIT)
	@mkdir -p _build
	$(NBVAL) > _build/nbval.log 2>&1 & nbval=$$!; \
	rm -f _build/html/$(PDF_NAME) $(PDF_DIR)/book.pdf; \
	built=0; $(JB_BUILD) || built=$$?; \
	browsed=0; if [ $$built -eq 0 ]; then $(BROWSER_TEST) || browsed=$$?; fi; \
	checked=0; wait $$nbval || checked=$$?; \
	echo; echo "nbval (run beside the build and the browser tests):"; cat _build/nbval.log; \
	if [ $$built -ne 0 ]; then echo "the book build failed (above)" >&2; exit $$built; fi; \
	if [ $$browsed -ne 0 ]; then echo "the browser tests failed (above)" >&2; exit $$browsed; fi; \
	if [ $$checked -ne 0 ]; then echo "nbval failed (above)" >&2; exit $$checked; fi
	@echo
	@echo "All tests passed: unit tests, nbval on every chapter, book build without warnings, every page"
	@echo "rendered offline in Chromium (the introduction's first screen in _build/screenshots/; every page"
	@echo "with ATTNLIB_FULL_SCREENSHOTS=1)."

# `make pdf`: the whole book as one PDF, offline: Sphinx's LaTeX builder (_ext/pdf_edition.py), xelatex from
# Debian's texlive (the packages of the README's "The PDF edition"), then scripts/check_pdf.py (no LaTeX error, missing
# glyph, undefined reference or repr; every figure drawn). The PDF lands in _build/latex/book.pdf and, for the HTML's
# links to it (from file:// too), in _build/html/$(PDF_NAME): `make browser-test` after it follows every
# internal link, the PDF's too. latexmk's status is not trusted alone: the
# check reads its log and says what went wrong.
PDF_NAME := how-does-attention-help.pdf
PDF_DIR  := _build/latex
.PHONY: pdf
pdf: $(STAMP)
	@for tool in xelatex latexmk makeindex fc-match pdfinfo pdftotext pdfimages pdffonts; do \
	  command -v $$tool >/dev/null || { echo "$$tool is missing: install the texlive packages of the README (The PDF edition)" >&2; exit 1; }; done
	rm -rf $(PDF_DIR)
	$(BIN)/jupyter-book build . --builder latex --warningiserror --nitpick --keep-going
	$(MAKE) -C $(PDF_DIR) all-pdf LATEXOPTS="-interaction=nonstopmode" >$(PDF_DIR)/latexmk.out 2>&1 || \
	  { tail -n 25 $(PDF_DIR)/latexmk.out; echo "latexmk failed; the check below says why" >&2; }
	$(BIN)/python scripts/check_pdf.py $(PDF_DIR)/book.log $(PDF_DIR)/book.pdf --tex $(PDF_DIR)/book.tex
	@mkdir -p _build/html && cp $(PDF_DIR)/book.pdf _build/html/$(PDF_NAME)
	@# An HTML build made before the PDF does not link it (_ext/edition.py): rebuild it, now with the links.
	@if [ -f _build/html/index.html ]; then $(JB_BUILD); fi
	@echo "PDF: $(PDF_DIR)/book.pdf (and _build/html/$(PDF_NAME))"

# The real-browser test alone, on the current build (run `make book pdf` first: the pages link the PDF).
browser-test: $(STAMP)
	$(BROWSER_TEST)

execute: $(STAMP)
	$(BIN)/python scripts/execute_notebook.py --all

# `make data`: regenerate book/data/: finite_size.npz, the large-d simulations of the chapter "How large is
# large?" (about 14 minutes on two cores), then downstream.npz and attention_layer.npz, the runs of the chapters
# "Experiments" and "Attention in practice" (about half a minute). Each file records its seeds, sizes, versions
# and timings, and a page that reads one re-runs a stored draw from its seed.
.PHONY: data
data: $(STAMP)
	$(BIN)/python scripts/make_data.py
	$(BIN)/python scripts/make_page_data.py

# Jupyter refuses to start as root without --allow-root (containers, CI machines).
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root)

# `make lab`: tinker freely. JupyterLab opens a scratch copy of book/ in _build/lab/ (made fresh each time), so
# saving a chapter after running it never rewrites the committed notebooks. scripts/lab_copy.py writes the
# copy's prose as the HTML book shows it (glued values, numbered theorems and equations, citations), which
# jupyterlab-myst renders.
LAB_COPY := _build/lab
lab: $(STAMP)
	@rm -rf $(LAB_COPY)
	$(BIN)/python scripts/lab_copy.py $(LAB_COPY)/book
	@echo "JupyterLab on a scratch copy of the book in $(LAB_COPY)/book (edits there never touch book/)."
	cd $(LAB_COPY)/book && $(CURDIR)/$(BIN)/jupyter lab $(LAB_FLAGS)

# `make lab-edit`: edit the chapters themselves, roles and directives as written (jupyterlab-myst renders the
# directives; glued values show as their keys). Saving writes book/NN_name.md and .ipynb; run
# `make execute` (or scripts/execute_notebook.py on the chapter) before committing.
lab-edit: $(STAMP)
	cd book && $(CURDIR)/$(BIN)/jupyter lab $(LAB_FLAGS)

clean:
	rm -rf _build .pytest_cache
