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

.PHONY: test demo demo-full lint bench install clean docs

# kabu_envs/__init__.py holds the version: a bump reinstalls, so the installed metadata follows it.
# Two stamps: `make demo` installs the runtime and the plots only (no torch); `make test` adds the
# training, development and OpenSpiel extras to the same venv.
$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	touch $@

$(VENV)/.installed-demo: $(VENV)/.created pyproject.toml constraints.txt kabu_envs/__init__.py
	$(PY) -m pip install -c constraints.txt -e ".[demo]"
	touch $@

$(VENV)/.installed: $(VENV)/.created pyproject.toml constraints.txt kabu_envs/__init__.py
	$(if $(TORCH_INDEX),$(PY) -m pip install -c constraints.txt torch --index-url $(TORCH_INDEX))
	$(PY) -m pip install -c constraints.txt -e ".[train,dev,demo,openspiel,docs]"
	touch $@ $(VENV)/.installed-demo

install: $(VENV)/.installed

# `make test` (the README's test command, and CI's via .ci/run) lints, builds the docs site strictly
# (a broken link or anchor fails), then runs the tests.
test: lint docs
	$(PY) -m pytest -n 2 -q

# The documentation site (mkdocs, material theme, API reference from the docstrings) into site/.
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet

# `make demo`: the short demo (a few minutes on 2 cores, install included): every shipped model against
# random and scripted and the headline rows, into reports/short/. `make demo-full`: every row, the gaps to
# a best response, the exploiters and the benchmark cards (about an hour), into reports/ and the generated
# docs pages (docs/results.md, docs/leaderboard.md).
demo: $(VENV)/.installed-demo
	$(PY) -m kabu_envs.eval.demo

demo-full: $(VENV)/.installed-demo
	$(PY) -m kabu_envs.eval.demo --full
	$(PY) -m kabu_envs.eval.report --write
	$(PY) -m kabu_envs.eval.bench cards

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_envs.py
	$(PY) benchmarks/bench_batch.py
	$(PY) benchmarks/bench_agents.py

# mypy through .ci/typecheck.py: agents/, eval/, training/ checked as kabu_envs.agents, ... (their
# installed names, pyproject's package-dir)
lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) .ci/typecheck.py

clean:
	rm -rf $(VENV) $(RLLIB_VENV) .pytest_cache .ruff_cache .mypy_cache site

# Ray RLlib (docs/rllib.md) lives in its own venv: ray[rllib]==2.58.0 pins gymnasium==1.2.2, the main
# venv resolves gymnasium 1.4. `make rllib-demo` builds .venv-rllib (the 'rllib' extra) and trains
# Kakeya by self-play on a local Ray instance (<= 15 min on 2 cores); RLLIB_ARGS passes flags, e.g.
# make rllib-demo RLLIB_ARGS="--address auto --num-env-runners 8". `make rllib-test` runs the tests
# that need Ray (CI's `make test` skips them: its venv has no Ray).
.PHONY: rllib-demo rllib-test
RLLIB_VENV := .venv-rllib
RLLIB_PY := $(RLLIB_VENV)/bin/python
RLLIB_ARGS ?=

$(RLLIB_VENV)/.installed: pyproject.toml constraints.txt kabu_envs/__init__.py
	$(PYTHON) -m venv $(RLLIB_VENV)
	$(RLLIB_PY) -m pip install --upgrade pip
	$(if $(TORCH_INDEX),$(RLLIB_PY) -m pip install -c constraints.txt torch --index-url $(TORCH_INDEX))
	$(RLLIB_PY) -m pip install -c constraints.txt -e ".[rllib,dev]"
	touch $@

rllib-demo: $(RLLIB_VENV)/.installed
	$(RLLIB_PY) -m kabu_envs.training.rllib_demo $(RLLIB_ARGS)

rllib-test: $(RLLIB_VENV)/.installed
	$(RLLIB_PY) -m pytest -q tests/test_rllib_demo.py tests/test_rllib_export.py
