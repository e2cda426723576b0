"""One game between a person (one seat) and agents (the other seats), for the terminal and the web.

A ``Match`` owns a raw AEC env of any registered game, the agents of the other seats
(``kabu_envs.agents.registry.make_agent``) and the game's ``Viewer`` (``viewer_for``). It runs
the agents until the person must act (``advance``), applies the person's moves (``play``), and turns
every step into a *frame*: what the person's seat sees after it and the text of the move (as far as
the seat saw it). Everything the tools show comes from frames and ``legal_moves``, so the person is
shown nothing their seat may not see. ``record()`` is the game record (``kabu_envs.play.records``);
``to_json`` / ``from_json`` save and restore a game mid-way.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from kabu_envs import registry
from kabu_envs.agents.base import as_agent
from kabu_envs.core.messages import CORE, Msg, render, say
from kabu_envs.core.views import GenericViewer, View, Viewer
from kabu_envs.play.godview import god_view
from kabu_envs.play.records import GameRecord, RecordError, check_end, episode_over, iter_replay, step_rewards
from kabu_envs.play.seal import mark_finished, was_finished

HUMAN = "human"


# Where a game's viewer is found: ``VIEWER`` in its package's module ``view.py``.
VIEWER_HOOK = ("view", "VIEWER")


def viewer_for(game: str) -> Viewer:
    """The game's viewer (``view.py:VIEWER`` in its package), else the generic one (raw observation,
    action names)."""
    found: Viewer | None = registry.get(game).hook(*VIEWER_HOOK)
    return found if found is not None else GenericViewer()


# Read-only model weights shared by every game of this process (a copy per game was too much:
# 40 Kakeya games against three models took 872 MB). Key: the policy file and its version.
_MODELS: OrderedDict[tuple[str, int, int], Any] = OrderedDict()
_MODELS_LOCK = threading.Lock()
MAX_MODELS = 16  # distinct policy files kept (a shipped model is a few MB)


def make_seat_agent(game: str, name: str, seed: int, options: dict[str, Any]) -> Any:
    """``make_agent(game, name, seed, **options)``, but a trained model's weights are read once per
    process and shared (each game's agent keeps its own generator): the policies are read-only."""
    from kabu_envs.agents.registry import agent_families, is_model_name, make_agent, models_dir

    spec = registry.get(game)
    own = name == "random" or name in spec.agents or name.partition(":")[0] in spec.agents
    family = name.partition(":")[0] if ":" in name else None
    if own or family in agent_families() or not is_model_name(name):
        return make_agent(game, name, seed, **options)
    from kabu_envs.agents.ensemble import read_model
    from kabu_envs.agents.ppo_agent import PPOAgent, find_policy

    path = find_policy(name, models_dir())  # as make_agent's load_policy_agent finds and checks it
    info = path.stat()
    key = (str(path.resolve()), info.st_mtime_ns, info.st_size)
    with _MODELS_LOCK:
        policy = _MODELS.get(key)
        if policy is not None:
            _MODELS.move_to_end(key)
    if policy is None:
        policy = read_model(path)
        with _MODELS_LOCK:
            policy = _MODELS.setdefault(key, policy)  # (another thread may have read it meanwhile)
            while len(_MODELS) > MAX_MODELS:
                _MODELS.popitem(last=False)
    policy.check_fits(game=game, role=None, env_options=options, label=f"model {name!r}")
    return PPOAgent(policy=policy, seed=seed, deterministic=True, name=path.parent.name)


def agent_seed(seed: int, seat: int) -> int:
    """The seed of the agent on ``seat`` of a game dealt with ``seed`` (recorded with the game)."""
    return int(np.random.SeedSequence([int(seed) & 0xFFFFFFFF, seat, 11]).generate_state(1)[0])


def fresh_seed() -> int:
    """A 63-bit seed from OS entropy, for a game the person did not seed (it is recorded, so it
    replays). 63 bits, not 32: the seed deals every hand, and 2**32 candidates can be tried."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


def name_new_cards(said: Msg | None, before: View, after: View, plays_card: bool = False) -> Msg | None:
    """The move ``said`` (a message), with each card it turned up where the seat sees it and the zone it
    landed in: a zone grown by exactly one face-up card (a draw: "seat 2 draws for spread 3 (dealt: 7♠
    to spread 3)"). The zone is named so the log credits no one with a card that is not theirs (the
    dealer's card a stand turns up). A move that plays a card (``plays_card``) names only that card:
    what lands elsewhere (a finished trick's egara) is not the mover's. Game-generic: it reads the two
    views, nothing else."""
    if said is None or plays_card:
        return said
    old = {z["label"]: len(z["cards"]) for z in before["zones"]}
    dealt = []
    for z in after["zones"]:
        if len(z["cards"]) != old.get(z["label"], -9) + 1 or z["cards"][-1].get("hidden"):
            continue
        label = z["say"].get("label") or say("core.title", name=z["label"])
        named = z["cards"][-1].get("say") or say("core.card", name=z["cards"][-1]["name"])
        dealt.append(say("core.dealt", card=named, zone=label))
    return say("core.moved_dealt", move=said, dealt=dealt) if dealt else said


def move_text(viewer: Viewer, said: Msg | None, seat: int) -> str | None:
    """A move's message in English, as ``seat`` was told it (the terminal's log, the frames' ``move``)."""
    return None if said is None else render(said, {**CORE, **viewer.messages}, me=seat)


class SeatError(ValueError):
    """A seat that is not at the table (``seat``: the one asked for, ``n``: the table's seats)."""

    def __init__(self, seat: int, n: int) -> None:
        super().__init__(f"seat {seat}: this table has seats 0..{n - 1}")
        self.seat, self.n = seat, n


def seat_list(seat: int, opponents: Sequence[str], n: int) -> list[str]:
    """The seats of a table of ``n``: the person on ``seat``, ``opponents`` on the others (one name
    for all of them, or one per other seat in seat order)."""
    if not 0 <= seat < n:
        raise SeatError(seat, n)
    if len(opponents) not in (1, n - 1):
        raise ValueError(f"opponents: give one name, or {n - 1} (one per other seat), not {len(opponents)}")
    others = iter(list(opponents) * (n - 1) if len(opponents) == 1 else opponents)
    return [HUMAN if i == seat else str(next(others)) for i in range(n)]


def game_identity(record: GameRecord) -> str:
    """What names one game (its rules, seed, stacked deck and seats), canonical JSON: the entry of the
    finished games' ledger (``seal.mark_finished``)."""
    names = [record.game, record.options, record.seed, record.deck, record.seats]
    return json.dumps(names, sort_keys=True, separators=(",", ":"))


def seed_was_given(record: GameRecord) -> bool:
    """True when the record's seed was chosen by the person (``--seed``): its agents' seeds are then
    derived from it (``agent_seed``); with a fresh seed they are fresh too. Such a seed is no secret."""
    agents = [(i, s["seed"]) for i, s in enumerate(record.seats) if s["agent"] != HUMAN]
    return bool(agents) and all(seed == agent_seed(record.seed, i) for i, seed in agents)


class IllegalMove(ValueError):
    """The person chose a move that is not legal now; the message lists the legal ones, ``said`` is
    the same as a message (``kabu_envs.play.errors``)."""

    def __init__(self, message: str, said: Msg) -> None:
        super().__init__(message)
        self.said = said


class Match:
    """A game of ``game`` with ``seats[i]`` (an agent name, or ``"human"`` for the person) on seat i."""

    def __init__(
        self,
        game: str,
        seats: Sequence[str],
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        deck: list[int] | None = None,
        created_by: str = "kabu-play",
        agent_seeds: Sequence[int | None] | None = None,
        eye: int | None = None,
        god: bool = False,
    ) -> None:
        """``eye``: the seat whose view the frames show when no person plays (watch mode; default 0);
        ``god``: show every seat's cards instead (``godview``; refused when a person plays).
        ``agent_seeds[i]``: the seed of the agent on seat i (a restored game passes the recorded
        ones); None, or no list: ``agent_seed(seed, i)`` for a game with a given seed, else a fresh one,
        so that the agents' choices, which the person sees, say nothing of an unseen seed."""
        self.spec = registry.get(game)
        self.options = dict(options or {})
        self.seed = fresh_seed() if seed is None else int(seed)
        self.seed_given = seed is not None  # (a fresh seed is shown only once the game is over)
        self.record_ = GameRecord(
            game,
            self.options,
            self.seed,
            [],
            deck=None if deck is None else list(deck),
            created_by=created_by,
        )
        self.env = self.spec.make_raw_env(**self.options)
        n = len(self.env.possible_agents)
        if len(seats) != n:
            raise ValueError(f"{self.spec.title} with these options has {n} seats; {len(seats)} were given")
        self.env.reset(seed=self.seed, options={"deck": list(deck)} if deck is not None else None)
        humans = [i for i, s in enumerate(seats) if s == HUMAN]
        if len(humans) > 1:
            raise ValueError(f"one person per game: seats {humans} are all 'human'")
        self.seat: int | None = humans[0] if humans else None
        self.agents: list[Any] = []
        for i, name in enumerate(seats):
            if name == HUMAN:
                self.agents.append(None)
                self.record_.seats.append({"agent": HUMAN, "seed": None})
            else:
                given = agent_seeds[i] if agent_seeds is not None else None
                if given is not None:
                    s = int(given)
                else:
                    s = agent_seed(self.seed, i) if self.seed_given else fresh_seed()
                self.agents.append(make_seat_agent(game, name, s, self.options))
                self.record_.seats.append({"agent": name, "seed": s})
        self.record_.viewer = self.seat
        # a person's game dealt from a seed they were not told: once finished, a save of it is spent
        self.secret_seed = self.seat is not None and not self.seed_given
        if eye is not None and not 0 <= eye < n:
            raise ValueError(f"view seat {eye}: this table has seats 0..{n - 1}")
        if eye is not None and self.seat is not None and eye != self.seat:
            raise ValueError("a person's game is shown only from the person's seat")
        if god and self.seat is not None:
            raise ValueError("the god view shows every seat's cards: only for a game no person plays")
        self.eye = self.seat if self.seat is not None else (eye or 0)
        self.god = god
        self.viewer = viewer_for(game)
        self.totals = step_rewards(self.env)
        self.n = n

    # --- state -------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return episode_over(self.env)

    @property
    def to_act(self) -> int | None:
        """The seat to act, None once the game is over."""
        return None if self.over else self.env.possible_agents.index(self.env.agent_selection)

    @property
    def human_to_act(self) -> bool:
        return self.seat is not None and self.to_act == self.seat

    def view(self, seat: int | None = None) -> View:
        """What ``seat`` (default: the person's, else seat 0) sees now."""
        return self._see(self._eye(seat))

    def _see(self, seat: int, env: Any = None) -> View:
        """``seat``'s view of ``env`` (default: the game's), or every seat's (the god view) when this
        game shows that."""
        env = self.env if env is None else env
        if self.god and seat == self.eye:
            return god_view(self.viewer, env, self.n, seat)
        return self.viewer.seat_view(env, seat)

    def _round_end(self, seat: int) -> View | None:
        """The showdown of the round the last step ended, as ``seat`` saw it, when the game goes on: that
        step also dealt the next round, whose view would otherwise replace the showdown unseen (a
        viewer that has such rounds offers ``round_end_env``)."""
        hook = getattr(self.viewer, "round_end_env", None)
        end = hook(self.env) if hook is not None else None
        return None if end is None else self._see(seat, end)

    def _eye(self, seat: int | None) -> int:
        return seat if seat is not None else self.eye

    def legal_moves(self) -> list[dict[str, Any]]:
        """The person's legal moves now (empty when it is not their turn): action id, label, card."""
        if not self.human_to_act:
            return []
        return [
            {
                "action": int(a),
                "label": self.viewer.action_label(self.env, a),
                "say": self.viewer.action_say(self.env, a),
                "card": self.viewer.action_card(self.env, a),
            }
            for a in self.env.legal_actions()
        ]

    # --- moves --------------------------------------------------------------------------------------
    def step(self, action: int, eye: int | None = None) -> dict[str, Any]:
        """Apply ``action`` of the seat to act; the frame the seat ``eye`` (default: the person's) sees."""
        seat = self._eye(eye)
        actor = self.to_act
        if actor is None:
            raise IllegalMove("the game is over", say("error.game_over"))
        legal = [int(a) for a in self.env.legal_actions()]
        if action not in legal:
            names = ", ".join(f"{a} ({self.viewer.action_label(self.env, a)})" for a in legal)
            items = [
                say("error.legal_item", action=int(a), label=self.viewer.action_say(self.env, a))
                for a in legal
            ]
            refusal = say("error.illegal_move", action=int(action), legal=items)
            raise IllegalMove(f"{action} is not a legal move now; legal: {names}", refusal)
        said: Msg | None = self.viewer.move_say(self.env, actor, int(action), seat)
        plays = self.viewer.action_card(self.env, int(action)) is not None  # (before the move changes it)
        seen = self._see(seat)
        before = seen["round"]
        self.env.step(int(action))
        self.record_.actions.append(int(action))
        paid = step_rewards(self.env)
        self.totals += paid
        view = self._see(seat)
        over = self.over
        if over:
            self.record_.complete = True
            self.record_.rewards = self.totals.tolist()
            if self.secret_seed:  # its finished record shows the seed: a save of it must not continue
                mark_finished(game_identity(self.record_))  # (``from_record``)
        end = None
        if not over and view["round"] != before:  # the frame shows the showdown; the next one the deal
            end = self._round_end(seat)
        said = name_new_cards(said, seen, view if end is None else end, plays)
        return {
            "actor": actor,
            "move": move_text(self.viewer, said, seat),
            "say": said,
            "view": view if end is None else end,
            "showdown": end is not None,  # a round's end the next deal replaced: the page holds it
            "rewards": paid.tolist() if paid.any() else None,
            "round_over": over or view["round"] != before,
            "over": over,
            "to_act": self.to_act,  # (public: who acts next; the page marks that seat)
        }

    def play(self, action: int) -> dict[str, Any]:
        """The person's move (``IllegalMove`` when it is not their turn or not legal)."""
        if not self.human_to_act:
            if self.over:
                raise IllegalMove("the game is over", say("error.game_over"))
            raise IllegalMove("it is not your turn", say("error.not_your_turn"))
        return self.step(action)

    def advance(self, limit: int = 100_000) -> list[dict[str, Any]]:
        """Let the agents act until the person must act or the game ends; their frames, in order."""
        frames: list[dict[str, Any]] = []
        while not self.over and not self.human_to_act and len(frames) < limit:
            actor = self.to_act
            assert actor is not None
            # an agent seated by hand (an act-only object) is adapted here, once (agents.base.as_agent)
            agent = self.agents[actor] = as_agent(self.agents[actor])
            if agent.capabilities.table:  # a search bot reads the table (agents.base.Capabilities)
                action = int(agent.act_at_table(self.env))
            else:
                obs = self.env.observe(self.env.agent_selection)
                action = int(agent.act(obs["observation"], obs["action_mask"]))
            frames.append(self.step(action))
        return frames

    # --- records ----------------------------------------------------------------------------------------
    def record(self) -> GameRecord:
        return self.record_

    def to_json(self, key: bytes | None = None) -> dict[str, Any]:
        """The game so far (a record, complete or not; a person's game in progress sealed with ``key``,
        see ``GameRecord.to_json``): ``Match.from_json`` restores it."""
        return self.record_.to_json(key)

    @classmethod
    def from_json(cls, data: Any, key: bytes | None = None) -> Match:
        """Restore a game saved by ``to_json`` (``from_record``); ``RecordError`` naming what is wrong."""
        return cls.from_record(GameRecord.from_json(data, key))

    @classmethod
    def from_record(cls, rec: GameRecord) -> Match:
        """Restore a game in progress: the same seats, the agents rebuilt from their names and recorded
        seeds, the recorded actions replayed and checked as ``kabu-replay`` checks them.

        Refused (``RecordError``): a finished game (nothing to continue; its rewards are checked first,
        so an edited one says so), a record whose actions end the game although it says unfinished, an
        illegal action. An agent's own generator is not rewound, so its later choices may differ from
        an unbroken game.
        """
        secret = rec.private and not seed_was_given(rec)
        if secret and was_finished(game_identity(rec)):
            raise RecordError(
                "this saved game was already played to its end (from a copy of this save): its finished "
                "record shows every card, so the save cannot be continued"
            )
        seats = [s["agent"] for s in rec.seats]
        seeds = [s.get("seed") for s in rec.seats]
        try:
            m = cls(rec.game, seats, rec.options, rec.seed, rec.deck, rec.created_by, agent_seeds=seeds)
        except (ValueError, TypeError) as exc:
            raise RecordError(f"the record's game cannot be set up again: {exc}") from None
        m.seed_given = not rec.private  # a sealed seed stays hidden until the game is over
        m.secret_seed = secret
        for _, _, _, action in iter_replay(rec, m.env):
            m.record_.actions.append(action)
            m.totals += step_rewards(m.env)
        check_end(rec, m.env, m.totals)
        if rec.complete:
            raise RecordError("this game is finished (a complete record): there is nothing to continue")
        if m.over:
            raise RecordError(
                f"the record says the game is unfinished, but its {len(rec.actions)} actions end it"
            )
        return m
