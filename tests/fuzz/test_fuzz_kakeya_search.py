"""Fuzz the Kakeya search kernels (kabu_envs/kakeya/kernel/sample.py, decide.py, search.py) and the agent
on them, the registry's ``expert`` (kabu_envs/kakeya/agents/kernel_expert.py), over random rule options
(4 and 6 players, both six-player modes, every option of kakeya/config.py) and random positions (random
play prefixes from random seeds).

* A sampled deal fits what the seat saw: its own hand stays its own, no played card comes back, each
  other seat gets as many cards as it holds, no seat gets a card of a suit it has shown out of (Rensho
  excepted under ``rensho_follow="free"``), and the deal's trump and Rensho are the game's.
* No hidden card is read: the other seats' true hands, or another consistent deal of them, in the row
  the sampler and the decision read give the same draws and the same decision as empty hands; the
  agent given the same observation of another deal acts the same.
* A seed fixes the draws and every decision; every decision is legal and nothing crashes.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from fuzz_helpers import _unseen_kakeya, count, examples, option_sets
from hypothesis import given
from hypothesis import strategies as st

from kabu_envs import registry
from kabu_envs.agents.registry import make_agent
from kabu_envs.kakeya import make_config
from kabu_envs.kakeya.agents.kernel_expert import KakeyaKernelExpertAgent, KernelSearch
from kabu_envs.kakeya.agents.net_expert import KakeyaNetExpertAgent
from kabu_envs.kakeya.agents.search import Position
from kabu_envs.kakeya.cards import NUM_RANKS, bits_to_cards
from kabu_envs.kakeya.config import Config
from kabu_envs.kakeya.game import Game, Phase
from kabu_envs.kakeya.knowledge import SeatView
from kabu_envs.kakeya.observation import Encoder

SPEC = registry.get("kakeya")
DECISIONS = (Phase.TRUMP, Phase.LEAD, Phase.PLAY)


@st.composite
def rule_options(draw: Any) -> dict[str, Any]:
    """A valid option set: any of the game's options at a valid value, with 4 or 6 players (and with 6,
    either six-player mode) drawn explicitly so both sizes come up often."""
    options = dict(draw(option_sets(SPEC), label="options"))
    n = draw(st.sampled_from([4, 6]), label="num_players")
    options["num_players"] = n
    if n == 4:
        options.pop("six_player_mode", None)
        options.pop("all_play_payment", None)
    else:
        options["six_player_mode"] = draw(st.sampled_from(["all_play", "dealers_sit_out"]), label="mode")
        if options["six_player_mode"] != "all_play":
            options.pop("all_play_payment", None)
    make_config(**options)  # (valid by construction: a refusal here is a bug of the strategy)
    return options


def _count_rules(options: dict[str, Any]) -> None:
    """Count the table size and six-player mode of a rule set the test went on with."""
    n = options["num_players"]
    count(f"kakeya search: rule sets, {n} players" + (f" {options['six_player_mode']}" if n == 6 else ""))


def _play_to(cfg: Config, seed: int, target: int, phases: tuple[Phase, ...]) -> Game | None:
    """The game of ``seed`` (random legal actions from ``seed``) at its ``target``-th decision in
    ``phases`` that has at least two legal actions, counted modulo their number (None: there is none)."""

    def walk(stop: int | None) -> tuple[Game, int]:
        game = Game(cfg, np.random.Generator(np.random.PCG64(seed)))
        rng = np.random.default_rng(seed)
        seen = 0
        while not game.terminal:
            legal = game.legal_actions()
            if game.phase in phases and len(legal) > 1:
                if seen == stop:
                    return game, seen
                seen += 1
            game.apply_action(legal[int(rng.integers(len(legal)))])
        return game, seen

    _, total = walk(None)
    if total == 0:
        return None
    game, _ = walk(target % total)
    return game


def _position(data: Any, options: dict[str, Any], phases: tuple[Phase, ...]) -> tuple[Game, Encoder] | None:
    cfg = make_config(**options)
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    target = data.draw(st.integers(0, 400), label="decision")
    game = _play_to(cfg, seed, target, phases)
    if game is None:
        return None
    _count_rules(options)
    return game, Encoder(cfg)


def _rel(seq: list[int], seat: int) -> list[int]:
    return list(seq[seat:]) + list(seq[:seat])


def _view(
    agent: KakeyaKernelExpertAgent, game: Game, enc: Encoder
) -> tuple[SeatView, np.ndarray, np.ndarray]:
    seat = game.current_player
    obs, mask = enc.encode_with_mask(game, seat, game.legal_bits())
    return agent.decoder.decode(obs), obs, mask


def _draws(search: KernelSearch, pos: Position, agent: Any, view: SeatView, k: int, tries: int, seed: int):
    """``k`` deals of the kernel sampler from the template ``pos`` (its generator seeded ``seed``)."""
    kernel = search._k
    search.load(search.TEMPLATE, pos, agent._deal(view, view.trump), list(view.hand_counts))
    search.sm[0][kernel.sample.I_TRIES] = tries
    search.seed(seed)
    out = np.zeros((k, search.n), dtype=np.uint64)
    code = kernel.sample.draw_many(search.TEMPLATE, 1, search.state, search.opts, search.sm, search.rng, out)
    return code, out


@examples(3)
@given(data=st.data())
def test_sampled_deals_fit_what_the_seat_saw(data):
    options = data.draw(rule_options(), label="rules")
    found = _position(data, options, (Phase.PLAY,))
    if found is None:
        count("kakeya search: option sets with no card decision")
        return
    game, enc = found
    seat, n = game.current_player, game.num_players
    agent = KakeyaKernelExpertAgent(seed=0, **options)
    view, _, _ = _view(agent, game, enc)
    # the observation gives the seat the facts the sampler reads, exactly
    true_voids = [(game.void_bits >> (4 * ((seat + k) % n))) & 0xF for k in range(n)]
    assert view.hand == game.hands[seat] and view.played == game.played
    assert list(view.hand_counts) == _rel(game.hand_counts, seat)
    assert list(view.voids) == true_voids
    assert (view.trump, view.rensho) == (game.trump, game.rensho)
    others = [game.hands[(seat + k) % n] for k in range(1, n)]
    assert view.unseen == sum(others)  # (disjoint hands)
    deal = agent._deal(view, view.trump)
    assert (deal.trump, deal.rensho) == (game.trump, game.rensho)
    free = game.cfg.rensho_follow == "free"

    tries = data.draw(st.sampled_from([0, 1, 4, 32]), label="tries")  # 0: the counting tables at once
    k = data.draw(st.integers(1, 12), label="deals")
    key = data.draw(st.integers(0, 2**63 - 1), label="key")
    search = agent.search
    pos = agent.position(view, {})
    code, out = _draws(search, pos, agent, view, k, tries, key)
    assert code == 0, code
    for row in out:
        assert int(row[0]) == view.hand
        union = 0
        for s in range(1, n):
            hand = int(row[s])
            assert hand.bit_count() == view.hand_counts[s]
            assert not hand & union and not hand & game.played and not hand & view.hand
            union |= hand
            for card in bits_to_cards(hand):
                if (view.voids[s] >> (card // NUM_RANKS)) & 1:
                    assert free and card == game.rensho, (s, card, view.voids[s])
        assert union == view.unseen
    count("kakeya search: sampled deals checked", k)
    again = _draws(search, pos, agent, view, k, tries, key)
    assert again[0] == 0 and np.array_equal(again[1], out)  # a seed fixes the draws
    count("kakeya search: sampler seeds replayed")


def _permuted_twin(game: Game, rng: np.random.Generator) -> tuple[Game, bool]:
    """A copy of ``game`` whose other seats hold another deal of their unplayed cards (same counts)."""
    twin = copy.deepcopy(game)
    holder = type("Raw", (), {"game": twin})()
    changed = _unseen_kakeya(holder, game.current_player, rng)
    return twin, changed


def _decision(agent: KakeyaKernelExpertAgent, view: SeatView, pos: Position, legal: list[int], key: int):
    """``decide_cards`` from the template ``pos`` (a fresh search each time): drawn, totals, alive."""
    search = KernelSearch(agent.cfg, agent.params["rensho_min_egara"])
    cards = np.asarray(agent.candidates(view, legal), dtype=np.int64)
    search.load(search.TEMPLATE, pos, agent._deal(view, view.trump), list(view.hand_counts))
    p = agent.params
    remaining = view.hand.bit_count() + view.unseen.bit_count()
    playing = sum(1 for c in view.hand_counts if c > 0) + sum(
        1 for s, c in enumerate(view.trick) if c >= 0 and view.hand_counts[s] == 0
    )
    exact = -(-remaining // max(playing, 1)) <= 2  # the solver near the end, as the agent does
    drawn = search.decide(key, cards, exact, 12, 4, 2, p["z"], p["delta"], p["eps"])
    return drawn, search.totals[: len(cards)].copy(), search.alive[: len(cards)].copy()


@examples(2)
@given(data=st.data())
def test_the_search_reads_no_hidden_card(data):
    options = data.draw(rule_options(), label="rules")
    found = _position(data, options, (Phase.PLAY,))
    if found is None:
        count("kakeya search: option sets with no card decision")
        return
    game, enc = found
    seat, n = game.current_player, game.num_players
    eps = data.draw(st.sampled_from([1.0, 0.3]), label="eps")
    agent = KakeyaKernelExpertAgent(seed=0, eps=eps, **options)
    view, obs, mask = _view(agent, game, enc)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="permutation"))
    twin, changed = _permuted_twin(game, rng)
    obs2, mask2 = enc.encode_with_mask(twin, seat, twin.legal_bits())
    assert np.array_equal(obs, obs2) and np.array_equal(mask, mask2)  # the same observation
    blind = agent.position(view, {})
    # the same template but for the other seats' hands: the truth, another deal, nothing
    rows = [blind]
    for g in (game, twin):
        hands = [view.hand] + [g.hands[(seat + k) % n] for k in range(1, n)]
        rows.append(Position(hands, blind.captured, blind.played, blind.voids, blind.order, blind.trick))
    key = data.draw(st.integers(0, 2**63 - 1), label="key")
    draws = [_draws(agent.search, pos, agent, view, 6, 4, key)[1] for pos in rows]
    assert all(np.array_equal(draws[0], d) for d in draws[1:])
    legal = [int(a) for a in np.flatnonzero(mask)]
    if len(agent.candidates(view, legal)) > 1:
        first = _decision(agent, view, rows[0], legal, key)
        for pos in rows[1:]:
            other = _decision(agent, view, pos, legal, key)
            assert other[0] == first[0]
            assert np.array_equal(other[1], first[1]) and np.array_equal(other[2], first[2])
        count("kakeya search: card decisions blind to the other hands")
    seed = data.draw(st.integers(0, 2**32 - 1), label="agent seed")
    params = {"samples": 12, "min_samples": 4, "check_every": 2, "eps": eps}
    assert KakeyaKernelExpertAgent(seed=seed, **params, **options).act(obs, mask) == KakeyaKernelExpertAgent(
        seed=seed, **params, **options
    ).act(obs2, mask2)
    count("kakeya search: hidden-card checks")
    if changed:
        count("kakeya search: hidden-card checks (cards moved)")


@st.composite
def agent_params(draw: Any) -> dict[str, Any]:
    """The expert's budget and race, small enough for a fuzz run; the solver now and then."""
    samples = draw(st.integers(1, 24), label="samples")
    return {
        "samples": samples,
        "min_samples": draw(st.integers(1, samples), label="min_samples"),
        "check_every": draw(st.integers(1, 6), label="check_every"),
        "z": draw(st.sampled_from([0.0, 0.5, 2.0, 5.0]), label="z"),
        "delta": draw(st.sampled_from([0.0, 0.5, 3.0]), label="delta"),
        "eps": draw(st.sampled_from([1.0, 0.5, 0.05]), label="eps"),
        "lead_samples": draw(st.integers(1, 6), label="lead_samples"),
        "trump_samples": draw(st.integers(1, 4), label="trump_samples"),
        "dd_tricks": draw(st.integers(0, 3), label="dd_tricks"),
    }


@examples(3)
@given(data=st.data())
def test_the_expert_plays_a_legal_action_fixed_by_its_seed(data):
    options = data.draw(rule_options(), label="rules")
    phases = data.draw(st.sampled_from([DECISIONS, (Phase.PLAY,)]), label="phases")
    found = _position(data, options, phases)
    if found is None:
        count("kakeya search: option sets with no decision")
        return
    game, enc = found
    params = data.draw(agent_params(), label="params")
    name = "expert:" + ",".join(f"{k}={v}" for k, v in params.items())
    seed = data.draw(st.integers(0, 2**32 - 1), label="agent seed")
    obs, mask = enc.encode_with_mask(game, game.current_player, game.legal_bits())
    agent = make_agent("kakeya", name, seed, **options)
    assert type(agent) is KakeyaNetExpertAgent  # (the registry's expert: the network search)
    action, values = agent.act_with_values(obs, mask)
    assert mask[action] == 1, (action, np.flatnonzero(mask))
    assert action in game.legal_actions()
    searched = np.flatnonzero(np.isfinite(values))
    assert set(searched.tolist()) <= set(np.flatnonzero(mask).tolist())  # values only for legal actions
    again = make_agent("kakeya", name, seed, **options)
    assert again.act(obs, mask) == action  # a seed fixes the decision
    count(f"kakeya search: expert decisions ({game.phase.name.lower()})")
    count("kakeya search: expert decisions replayed")
