"""The environment card of a registered game: what a user needs at a glance, from the code.

PettingZoo's and Gymnasium's env pages open with a table (import, agents, action and observation
spaces, rewards, episode end, versions); ours is generated from the game's registry record and from
envs built at each player count, so the page cannot drift from the code. Each game page holds it in a
``<!-- BEGIN generated:env_card -->`` block (docs/<game id>.md); ``python -m kabu_envs.env_card
--update`` rewrites the blocks and a test compares them. Nothing here asks which game it is.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from kabu_envs import registry
from kabu_envs.core.doc_blocks import read_blocks, replace_blocks

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = "env_card"


def _spaces(spec: registry.GameSpec, players: int) -> tuple[int, int, list[str]]:
    """(actions, observation size, agent names) of the raw env at ``players`` seats, default rules."""
    env: Any = spec.make_raw_env(num_players=players)
    agent = env.possible_agents[0]
    actions = int(env.action_space(agent).n)
    size = int(env.observation_space(agent)["observation"].shape[0])
    return actions, size, list(env.possible_agents)


def _by_players(values: dict[int, int]) -> str:
    """``58`` when every player count gives the same number, else ``4: 438, 6: 571``."""
    distinct = set(values.values())
    if len(distinct) == 1:
        return str(distinct.pop())
    return ", ".join(f"{n} players: {v}" for n, v in values.items())


def env_card(spec: registry.GameSpec) -> str:
    """The card of ``spec`` as a two-column Markdown table."""
    spaces = {n: _spaces(spec, n) for n in spec.players}
    actions = {n: a for n, (a, _, _) in spaces.items()}
    sizes = {n: s for n, (_, s, _) in spaces.items()}
    default_players = spec.config().num_players
    names = spaces[default_players][2]
    module = spec.env.partition(":")[0].rpartition(".")[2] if isinstance(spec.env, str) else spec.id
    lines = [
        "| | |",
        "|---|---|",
        f"| Import | `from kabu_envs import {module}`; `{module}.env(**rule_options)` |",
    ]
    if spec.pettingzoo_id:
        lines.append(
            f'| PettingZoo id | `pettingzoo.make("aec", "{spec.pettingzoo_id}")` after `import kabu_envs` |'
        )
    if spec.gym_ids:
        views = ", ".join(
            f"`kabu_envs.wrappers:{gym_id}` ({kw.get('role', '')})" for gym_id, kw in spec.gym_ids.items()
        )
        lines.append(f"| Gymnasium views | {views} |")
    players = ", ".join(str(n) for n in spec.players)
    lines.append(f"| Players | {players} (default {default_players}: `{names[0]}` .. `{names[-1]}`) |")
    roles = "; ".join(f"`{r.name}`: {r.doc}" if r.doc else f"`{r.name}`" for r in spec.roles)
    lines.append(f"| Roles | {roles} |")
    lines.append(
        f"| Action space | `Discrete`: {_by_players(actions)} actions; always pass the `action_mask` |"
    )
    lines.append(
        '| Observation space | `Dict("observation": Box(0, 1, (size,), float32), "action_mask": '
        f"Box(0, 1, (actions,), int8))`; size: {_by_players(sizes)} (default rules) |"
    )
    if spec.rewards:
        lines.append(f"| Rewards | {spec.rewards} |")
    if spec.episode:
        lines.append(f"| Episode | {spec.episode} |")
    agents = ", ".join(f"`{name}`" for name in spec.agent_names)
    lines.append(f"| Named agents | {agents} (and the shipped models in `kabu_envs/models/`) |")
    if spec.versions:
        history = "; ".join(f"`{name}`: {what}" for name, what in spec.versions.items())
        lines.append(f"| Versions | {history} |")
    return "\n".join(lines)


def page(spec: registry.GameSpec) -> Path:
    """The game's page, ``docs/<game id>.md``."""
    return DOCS / f"{spec.id}.md"


def documented_games() -> list[registry.GameSpec]:
    """The registered games that have a page."""
    return [spec for spec in registry.games() if page(spec).is_file()]


def stale_pages() -> list[str]:
    """The pages whose card differs from the code (empty: every card is current)."""
    out = []
    for spec in documented_games():
        if read_blocks(page(spec).read_text(), [BLOCK])[BLOCK] != env_card(spec):
            out.append(str(page(spec)))
    return out


def update() -> None:
    for spec in documented_games():
        path = page(spec)
        path.write_text(replace_blocks(path.read_text(), {BLOCK: env_card(spec)}, where=str(path)))


if __name__ == "__main__":
    if "--update" in sys.argv[1:]:
        update()
    else:
        for spec in documented_games():
            print(f"{page(spec)}:\n{env_card(spec)}\n")
