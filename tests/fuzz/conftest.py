"""Hypothesis profiles of the fuzz suite and its counters.

* ``ci`` (the default): derandomized (the same examples on every run, so CI is reproducible), no
  example database, no deadline; sized so ``pytest tests/fuzz -q`` takes about a minute on one core.
* ``FUZZ_EXAMPLES=N``: the ``long`` profile, ``N`` examples per unit of test weight (each test scales it
  with ``fuzz_helpers.examples(weight)``), randomized: every long run explores new examples.
  Example: ``FUZZ_EXAMPLES=100 OMP_NUM_THREADS=1 python -m pytest tests/fuzz -q -p no:xdist``.

At the end of the run the counts of what was fuzzed (option sets, episodes, legal and illegal steps,
hidden-information checks, replays, ...) are printed (per process: run long runs without xdist).
Without hypothesis (it comes with the ``dev`` extra) the suite is not collected.
"""

from __future__ import annotations

import importlib.util
import os

CI_EXAMPLES = 20

if importlib.util.find_spec("hypothesis") is None:
    collect_ignore_glob = ["test_*.py"]
else:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "ci",
        max_examples=CI_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    _long = os.environ.get("FUZZ_EXAMPLES", "").strip()
    if _long:
        settings.register_profile(
            "long", settings.get_profile("ci"), max_examples=int(_long), derandomize=False
        )
        settings.load_profile("long")
    else:
        settings.load_profile("ci")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The fuzz counts of this process, and any option the suite can only draw at its default."""
    if importlib.util.find_spec("hypothesis") is None:
        return
    from fuzz_helpers import COUNTS, GAMES, uncovered_options
    from hypothesis import settings

    if not COUNTS:
        return
    tr = terminalreporter
    tr.section("fuzz counts")
    tr.write_line(f"profile: max_examples={settings.default.max_examples} per unit of test weight")
    for key in sorted(COUNTS):
        tr.write_line(f"{COUNTS[key]:>12,}  {key}")
    for spec in GAMES:
        missing = uncovered_options(spec)
        if missing:
            tr.write_line(f"{spec.id}: options drawn only at their default (no strategy): {missing}")
