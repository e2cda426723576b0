"""Write the docs' pictures of the games: ``python -m kabu_envs.render_screenshots --out docs/img``.

A game lists its pictures as ``SCREENSHOTS``, a tuple of ``Screenshot`` records, in its package's
module ``plans.py`` (``GameSpec.hook("plans", "SCREENSHOTS")``; a game without it has no pictures): a
seeded game played by named agents (by default the game's ``reference`` agent) up to an interesting
moment, drawn from one seat's view or the god view with the env's own ``render_mode="rgb_array"``
renderer. The PNGs are palette images (256 colours), small enough to commit. The same seeds, steps and
code give the same pictures. Cheap to import (the games' ``plans.py`` import ``Screenshot``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kabu_envs import registry
from kabu_envs.core.declared import PLANS, Screenshot
from kabu_envs.registry import GameSpec


def screenshots(spec: GameSpec) -> tuple[Screenshot, ...]:
    """The game's pictures (its ``plans.SCREENSHOTS``; none without it)."""
    found = spec.hook(PLANS, "SCREENSHOTS")
    if found is None:
        return ()
    if not all(isinstance(shot, Screenshot) for shot in found):
        raise TypeError(f"{spec.id}: plans.SCREENSHOTS must hold Screenshot records")
    return tuple(found)


def shot_frame(spec: GameSpec, shot: Screenshot) -> np.ndarray:
    """The frame of ``shot``: ``shot.steps`` actions of its agents after ``reset(shot.seed)``."""
    from kabu_envs.agents.registry import make_agent

    env = spec.make_raw_env(**shot.rule_options)
    env.reset(seed=shot.seed)
    names = shot.agents or (spec.reference,)
    agents = [
        make_agent(spec.id, names[i % len(names)], shot.seed + i, **shot.rule_options)
        for i in range(len(env.possible_agents))
    ]
    for _ in range(shot.steps):
        if env.game.terminal:
            break
        obs = env.observe(env.agent_selection)
        env.step(agents[env.game.current_player].act(obs["observation"], obs["action_mask"]))
    return env.render_frame(shot.seat)


def save_png(frame: np.ndarray, path: Path) -> int:
    """Save ``frame`` as a 256-colour PNG; returns its size in bytes."""
    from PIL import Image

    image = Image.fromarray(frame).quantize(
        colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    image.save(path, optimize=True)
    return path.stat().st_size


def write_screenshots(out: Path, games: Sequence[str] | None = None) -> list[Path]:
    """Write every screenshot of ``games`` (default: all registered games) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in registry.games():
        if games is not None and spec.id not in games:
            continue
        for shot in screenshots(spec):
            path = out / f"{shot.name}.png"
            size = save_png(shot_frame(spec, shot), path)
            print(f"{path}  {size // 1024} KB  ({shot.caption or spec.title})")
            written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"), help="folder of the PNGs (docs/img)")
    parser.add_argument("--games", nargs="*", choices=registry.game_ids(), help="only these games")
    args = parser.parse_args(argv)
    write_screenshots(args.out, args.games)


if __name__ == "__main__":
    # the imported module's main: its ``Screenshot`` is the class the games' ``plans.py`` use
    from kabu_envs.render_screenshots import main as _main

    _main()
