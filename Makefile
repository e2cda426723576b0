# The only two setup commands: `make test` and `make demo`. Each creates .venv on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1

.PHONY: test demo lint bench install clean

# kabu_envs/__init__.py holds the version: a bump reinstalls, so the installed metadata follows it
$(VENV)/.installed: pyproject.toml constraints.txt kabu_envs/__init__.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -c constraints.txt -e ".[train,dev]"
	touch $@

install: $(VENV)/.installed

# `make test` (the README's test command, and CI's via .ci/run) lints first, then runs the tests.
test: lint
	$(PY) -m pytest -n 2 -q

demo: $(VENV)/.installed
	$(PY) -m eval.demo

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_envs.py

lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy kabu_envs agents eval training

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
