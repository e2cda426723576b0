"""What the tools do with Toy Card beyond the generic (records of ``kabu_envs.core.declared``): a
quick evaluation of 200 deals (the game is small). No demo plan, best response or pictures: the tools
leave it out."""

from __future__ import annotations

from kabu_envs.core.declared import Evaluation

EVALUATION = Evaluation(opponents=("random", "scripted"), deals=200)
