"""What the tools do with Toy Card beyond the generic (records of ``kabu_envs.core.declared``): a
quick evaluation of 200 deals (the game is small). No demo plan, best response or pictures: the tools
leave it out."""

from __future__ import annotations

from kabu_envs.core.declared import BenchPlan, Evaluation

EVALUATION = Evaluation(opponents=("random", "scripted"), deals=200)

# The benchmark protocol (kabu-eval bench): a small field, for the tests and as the template.
BENCH = BenchPlan(version="v1", field={"seat": ("random", "scripted")}, deals=200, seed=1_700_001)
