# The only two setup commands: `make test` and `make demo`. Each creates .venv on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
# Where torch comes from. Empty: pip's configured index (on the project's build machines a local
# folder holding the CPU wheel; on PyPI the default torch wheel is a CUDA build, ~0.5 GB plus several GB
# of NVIDIA libraries). For the CPU build elsewhere: make test TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=

.PHONY: test demo lint bench install clean

# kabu_envs/__init__.py holds the version: a bump reinstalls, so the installed metadata follows it
$(VENV)/.installed: pyproject.toml constraints.txt kabu_envs/__init__.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(if $(TORCH_INDEX),$(PY) -m pip install -c constraints.txt torch --index-url $(TORCH_INDEX))
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
	$(PY) benchmarks/bench_batch.py
	$(PY) benchmarks/bench_agents.py

lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy kabu_envs agents eval training

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
