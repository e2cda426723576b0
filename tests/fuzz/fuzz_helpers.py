"""Shared machinery of the fuzz suite: option, deck and action strategies drawn from the game registry,
the per-game hooks that cannot be generic, the episode driver that checks every invariant, and the
session counters printed at the end of the run (see ``conftest.py``).

Everything is generic over ``registry.games()``: a new game is fuzzed as soon as it registers. Its rule
options come from the ``OptionSet`` of the module named by ``spec.make_config``; a checker built by
``kabu_envs.core.options`` (``choice``, ``boolean``, ``integer``, ``names``) gives its strategy by
itself, and only the few hand-written checkers need an entry in ``VALUE_EXTRAS`` (keyed by option
name). The one thing that needs game knowledge is which cards a seat cannot see: ``UNSEEN_PERMUTERS``
(keyed by game id) permutes them in a copy of the env; a game without an entry is not hidden-info
checked (the summary says so).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import math
import pickle
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

from kabu_envs import registry
from kabu_envs.core import options as core_options
from kabu_envs.core.errors import (
    ActionSpaceError,
    ActionTypeError,
    EpisodeOverError,
    IllegalActionError,
)
from kabu_envs.core.options import MAX_INT, OptionSet

# --- session counters (printed by conftest.pytest_terminal_summary) ---------------------------------------

COUNTS: Counter[str] = Counter()


def count(key: str, n: int = 1) -> None:
    COUNTS[key] += n


# --- budget -----------------------------------------------------------------------------------------------


def examples(weight: float) -> settings:
    """``@settings`` for one test: the loaded profile's ``max_examples`` times ``weight`` (at least 1).

    The profile (``conftest.py``) holds the base count: small in CI, ``FUZZ_EXAMPLES`` for long runs.
    """
    base = settings.default.max_examples
    return settings(max_examples=max(1, math.ceil(base * weight)))


# --- the registry's games and their option sets -----------------------------------------------------------

GAMES = registry.games()
GAME_IDS = [g.id for g in GAMES]


def option_set(spec: registry.GameSpec) -> OptionSet:
    """The ``OptionSet`` of a game: the one its ``make_config`` module holds (``OPTIONS`` by convention)."""
    module = importlib.import_module(spec.make_config.partition(":")[0])
    found = getattr(module, "OPTIONS", None)
    if isinstance(found, OptionSet):
        return found
    sets = [v for v in vars(module).values() if isinstance(v, OptionSet)]
    if len(sets) != 1:
        raise LookupError(f"{spec.id}: no single OptionSet in {module.__name__}")
    return sets[0]


def checker_kind(check: Callable[[Any], Any]) -> tuple[str, dict[str, Any]]:
    """What a checker of ``kabu_envs.core.options`` accepts, read from the checker itself.

    ``("choice", {"allowed"})``, ``("boolean", {})``, ``("integer", {"lo", "hi"})``,
    ``("names", {"universe", "allow_empty"})`` or ``("custom", {})`` for a hand-written checker.
    """
    if check is core_options.boolean:
        return "boolean", {}
    allowed = getattr(check, "allowed", None)
    if allowed is not None:
        return "choice", {"allowed": tuple(allowed)}
    if getattr(check, "__module__", None) == core_options.__name__ and check.__closure__:
        free = inspect.getclosurevars(check).nonlocals
        if {"lo", "hi"} <= free.keys():
            return "integer", {"lo": free["lo"], "hi": free["hi"]}
        if {"universe", "allow_empty"} <= free.keys():
            return "names", {"universe": tuple(free["universe"]), "allow_empty": free["allow_empty"]}
    return "custom", {}


# Options that multiply the episode length: kept small so an episode stays cheap (values above the cap
# are only checked by the option tests, never played).
LENGTH_CAPS = {"max_rounds": 3, "max_deals": 3, "minso_limit": 3, "dealer_max_deals": 3}
# How far above ``lo`` a small integer is drawn (``lo`` and ``hi`` themselves are drawn too).
SMALL_SPAN = 40


def _int_variants(v: int) -> st.SearchStrategy:
    """An int as the types a caller may pass: a Python int or a NumPy integer of a type that holds it."""
    out = [st.just(v), st.just(np.int64(v))]
    if -(2**31) <= v < 2**31:
        out.append(st.just(np.int32(v)))
    return st.one_of(out)


def _str_variants(v: str) -> st.SearchStrategy:
    return st.sampled_from([v, np.str_(v)])


def _seq_variants(items: list) -> st.SearchStrategy:
    """A list as a list, a tuple, or (numbers and strings only) a 1-D NumPy array."""
    out = [st.just(list(items)), st.just(tuple(items))]
    if items and all(isinstance(x, int) for x in items):
        out.append(st.just(np.array(items, dtype=np.int64)))
    elif items and all(isinstance(x, str) for x in items):
        out.append(st.just(np.array(items)))
    return st.one_of(out)


def _yaku_overrides(options: OptionSet) -> st.SearchStrategy:
    """Oicho-Kabu's ``{yaku: {rank, multiplier, holders, beats}}``; the names come from the option set."""
    from kabu_envs.oicho_kabu.yaku import ROLES

    yaku = checker_kind(options.by_name["wake_satsu_beats"].check)[1]["universe"]
    fields = {
        "rank": st.one_of(st.integers(0, 100), st.just(MAX_INT)),
        "multiplier": st.one_of(st.integers(0, 6), st.just(MAX_INT)),
        "holders": st.one_of(
            st.sampled_from(("both", *ROLES)),
            st.lists(st.sampled_from(ROLES), min_size=1, unique=True),
            st.frozensets(st.sampled_from(ROLES), min_size=1),
        ),
        "beats": st.lists(st.sampled_from(yaku), unique=True, max_size=4),
    }
    one = st.fixed_dictionaries({}, optional=fields)
    return st.dictionaries(st.sampled_from(yaku), one, max_size=3)


def _suit(options: OptionSet) -> st.SearchStrategy:
    from kabu_envs.kakeya.cards import NUM_SUITS, SUIT_NAMES

    names = st.sampled_from(SUIT_NAMES).flatmap(lambda s: st.sampled_from([s, s.upper(), s.title()]))
    return st.one_of(names, st.integers(0, NUM_SUITS - 1).flatmap(_int_variants))


# Hand-written checkers only: option name -> (option set -> strategy of valid values).
VALUE_EXTRAS: dict[str, Callable[[OptionSet], st.SearchStrategy]] = {
    "bet_sizes": lambda _o: st.lists(
        st.one_of(st.integers(1, 20), st.integers(1, MAX_INT)), min_size=1, max_size=6, unique=True
    ).flatmap(lambda xs: _seq_variants(sorted(xs))),
    "zoro_values": lambda _o: st.lists(st.integers(1, 10), min_size=1, max_size=12).flatmap(_seq_variants),
    "yaku_overrides": _yaku_overrides,
    "default_trump": _suit,
}
# Options the library merges with a preset's value (so the config does not hold the given value as is).
MERGED_OPTIONS = frozenset({"yaku_overrides"})


def valid_value(options: OptionSet, name: str, *, capped: bool) -> st.SearchStrategy | None:
    """Valid values of one option (None: a hand-written checker without a ``VALUE_EXTRAS`` entry)."""
    opt = options.by_name[name]
    if name in VALUE_EXTRAS:
        return VALUE_EXTRAS[name](options)
    kind, info = checker_kind(opt.check)
    if kind == "boolean":
        return st.sampled_from([True, False, np.True_, np.False_])
    if kind == "choice":
        return st.sampled_from(info["allowed"]).flatmap(
            lambda v: (
                _int_variants(v) if type(v) is int else _str_variants(v) if type(v) is str else st.just(v)
            )
        )
    if kind == "integer":
        lo, hi = info["lo"], info["hi"]
        if capped and name in LENGTH_CAPS:
            hi = min(hi, LENGTH_CAPS[name])
        ints = st.one_of(st.integers(lo, min(hi, lo + SMALL_SPAN)), st.sampled_from(sorted({lo, hi})))
        if not (capped and name in LENGTH_CAPS):
            ints = st.one_of(ints, st.integers(lo, hi))
        return ints.flatmap(_int_variants)
    if kind == "names":
        return st.lists(
            st.sampled_from(info["universe"]), unique=True, min_size=0 if info["allow_empty"] else 1
        ).flatmap(_seq_variants)
    return None


def uncovered_options(spec: registry.GameSpec) -> list[str]:
    """Options only ever drawn at their default (a hand-written checker without a strategy)."""
    options = option_set(spec)
    return [n for n in options.names if valid_value(options, n, capped=False) is None]


def _needs_hanafuda(opts: dict[str, Any]) -> None:
    """A yaku that needs another card set (``sanpachi_hikari``: hanafuda) brings its ``deck``."""
    from kabu_envs.oicho_kabu.yaku import YAKU

    listed: set = set()
    for key in ("core_yaku", "local_yaku"):
        v = opts.get(key)
        if isinstance(v, (list, tuple)) or (isinstance(v, np.ndarray) and v.ndim == 1):
            listed.update(x for x in v if isinstance(x, str))  # junk values are left to the checker
    for y in YAKU:
        if y.deck and y.name in listed:
            opts["deck"] = y.deck


def _six_players(opts: dict[str, Any]) -> None:
    """``six_player_mode`` and ``all_play_payment`` only mean something with 6 players (an error
    otherwise)."""
    opts["num_players"] = 6


def _selection_draws(opts: dict[str, Any]) -> None:
    """``dealer_selection_each_deal`` (given, or set by the ``rules`` preset) needs selection draws:
    with ``dealer_selection="fixed"`` the drawn set turns it off, else it brings ``"lowest"``."""
    from kabu_envs.oicho_kabu.options import PRESETS

    rules = opts.get("rules", "standard")
    preset = PRESETS.get(rules, {}) if isinstance(rules, str) else {}
    each = opts.get("dealer_selection_each_deal", preset.get("dealer_selection_each_deal", False))
    selection = opts.get("dealer_selection", preset.get("dealer_selection", "fixed"))
    if not (each is True or each is np.True_) or selection != "fixed":
        return
    if "dealer_selection" in opts:
        opts["dealer_selection_each_deal"] = False
    else:
        opts["dealer_selection"] = "lowest"


# Cross-option requirements, keyed by the option that brings them: fix the drawn set up in place.
REQUIRES: dict[str, Callable[[dict[str, Any]], None]] = {
    "six_player_mode": _six_players,
    "all_play_payment": _six_players,
    "dealer_selection_each_deal": _selection_draws,
    "dealer_selection": _selection_draws,
    "rules": _selection_draws,
    "core_yaku": _needs_hanafuda,
    "local_yaku": _needs_hanafuda,
}


def fix_up(opts: dict[str, Any]) -> dict[str, Any]:
    out = dict(opts)
    for name in list(out):
        if name in REQUIRES:
            REQUIRES[name](out)
    return out


def option_sets(spec: registry.GameSpec, *, capped: bool = True) -> st.SearchStrategy:
    """Random valid option sets of a game: any subset of its options, each a valid value."""
    options = option_set(spec)
    optional = {}
    for name in options.names:
        s = valid_value(options, name, capped=capped)
        if s is not None:
            optional[name] = s
    return st.fixed_dictionaries({}, optional=optional).map(fix_up)


# --- junk -------------------------------------------------------------------------------------------------


class Weird:
    """An object no checker knows."""

    def __repr__(self) -> str:
        return "Weird()"


SCALAR_JUNK = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 1.0, 4.0, -1.0, 2.5, np.float64(4.0), np.float32(1.0), 1 + 2j]),
    st.integers(2**31, 10**30),
    st.integers(-(10**30), -1),
    st.sampled_from([10**400, -(10**400), 2**63, 2**64, np.uint64(2**63), np.int64(-(2**63))]),
    st.text(max_size=8),
    st.binary(max_size=4),
    st.sampled_from(["", "4", "True", "clubs ", "none", "0x1"]),
    st.builds(Weird),
    st.sampled_from([np.array(4), np.array(True), np.array("x"), np.nan, math.inf, Ellipsis, print]),
)
CONTAINER_JUNK = st.one_of(
    st.dictionaries(st.text(max_size=3), st.integers(-3, 3), max_size=2),
    st.sets(st.integers(0, 9), max_size=3),
    st.frozensets(st.text(max_size=2), max_size=2),
    st.lists(st.integers(-3, 12), max_size=3).map(np.array),
    st.sampled_from([np.zeros((2, 2)), np.ones((1, 3), dtype=np.int64), np.array([1.5]), np.array([])]),
    st.lists(SCALAR_JUNK, min_size=1, max_size=3),
    st.lists(SCALAR_JUNK, min_size=1, max_size=3).map(tuple),
    st.sampled_from([[], (), {}, set(), range(3), b"ab", bytearray(b"x")]),
)
JUNK = st.one_of(SCALAR_JUNK, CONTAINER_JUNK)


def mutate(value: Any, data: st.DataObject) -> Any:
    """``value`` with one leaf (a list/tuple item, a mapping value or key, or itself) replaced by junk."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, Mapping) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value, key=str)))
        out = dict(value)
        if data.draw(st.booleans()):
            out[key] = mutate(out[key], data)
        else:
            junk_key = data.draw(st.one_of(st.text(max_size=4), st.integers(), st.none()))
            out[junk_key] = out.pop(key)
        return out
    if isinstance(value, (list, tuple, set, frozenset)) and value and data.draw(st.booleans()):
        items = list(value)
        i = data.draw(st.integers(0, len(items) - 1))
        items[i] = mutate(items[i], data)
        return type(value)(items) if not isinstance(value, (set, frozenset)) else items
    return data.draw(JUNK)


def is_plain(v: Any) -> bool:
    """A normalised option value: plain Python scalars in tuples/frozensets (hashable, no NumPy)."""
    if v is None or type(v) in (bool, int, str):
        return True
    if type(v) in (tuple, frozenset):
        return all(is_plain(x) for x in v)
    return False


def accepted_is_valid(options: OptionSet, name: str, norm: Any) -> bool:
    """A value the checker accepted is a valid normalised value of the option."""
    if not is_plain(norm) or options.check(name, norm) != norm:
        return False
    kind, info = checker_kind(options.by_name[name].check)
    if kind == "boolean":
        return type(norm) is bool
    if kind == "choice":
        return any(type(norm) is type(a) and norm == a for a in info["allowed"])
    if kind == "integer":
        return type(norm) is int and info["lo"] <= norm <= info["hi"] <= MAX_INT
    if kind == "names":
        return set(norm) <= set(info["universe"]) and len(set(norm)) == len(norm)
    return True


# --- decks ------------------------------------------------------------------------------------------------

_DECK_SIZES: dict[str, int] = {}


def deck_size(spec: registry.GameSpec) -> int:
    """The number of card ids of a game's deck, found through the env: the first id a stacked deck refuses."""
    if spec.id not in _DECK_SIZES:
        env = spec.make_raw_env()
        size = 0
        while size < 1000:
            try:
                env.reset(seed=0, options={"deck": [size]})
            except ValueError:
                break
            size += 1
        _DECK_SIZES[spec.id] = size
    return _DECK_SIZES[spec.id]


def valid_decks(size: int) -> st.SearchStrategy:
    """A stacked deck: distinct card ids in range, as a list, a tuple or a 1-D integer array."""

    def shape(perm: list[int], k: int) -> st.SearchStrategy:
        prefix = perm[:k]
        return st.one_of(
            st.just(prefix),
            st.just(tuple(prefix)),
            st.just([np.int64(c) for c in prefix]),
            st.sampled_from([np.int64, np.int32, np.int16]).map(lambda t: np.array(prefix, dtype=t)),
        )

    return st.tuples(st.permutations(range(size)), st.integers(0, size)).flatmap(lambda pk: shape(*pk))


def broken_decks(size: int) -> st.SearchStrategy:
    """Decks that must be refused with a ``ValueError`` naming the deck."""
    prefixes = st.tuples(st.permutations(range(size)), st.integers(1, size)).map(
        lambda pk: list(pk[0][: pk[1]])
    )

    def dup(p: list[int], data_i: int) -> list[int]:
        return p[: data_i + 1] + [p[data_i % len(p)]] + p[data_i + 1 :]

    return st.one_of(
        st.tuples(prefixes, st.integers(0, size)).map(lambda pi: dup(pi[0], pi[1] % len(pi[0]))),
        st.tuples(
            prefixes,
            st.one_of(st.integers(size, size + 5), st.integers(-5, -1), st.just(10**30)),
            st.integers(),
        ).map(lambda t: t[0][: t[2] % (len(t[0]) + 1)] + [t[1]]),
        st.tuples(
            prefixes, st.sampled_from([1.0, 2.5, "3", None, True, np.float64(0), [1], b"1", np.array(2.0)])
        ).map(lambda t: t[0][:2] + [t[1]]),
        prefixes.map(lambda p: " ".join(map(str, p))),
        prefixes.map(lambda p: ",".join(map(str, p)).encode()),
        prefixes.map(lambda p: dict(enumerate(p))),
        prefixes.map(set),
        prefixes.map(frozenset),
        prefixes.map(
            lambda p: np.array(p[: len(p) // 2 * 2]).reshape(-1, 2) if len(p) > 1 else np.array([p])
        ),
        prefixes.map(lambda p: np.array(p, dtype=np.float64)),
        prefixes.map(lambda p: [float(c) for c in p]),
        st.sampled_from(
            [5, np.int64(3), 2.0, np.array(3), Weird(), {"deck": [1]}, "0", b"", np.zeros((0, 0))]
        ),
    )


# --- per-game hidden-information hooks --------------------------------------------------------------------


def _permute(rng: np.random.Generator, cards: list[int]) -> tuple[list, bool]:
    """``cards`` shuffled over ``slots``; whether any card moved."""
    perm = [cards[i] for i in rng.permutation(len(cards))]
    return perm, perm != cards


def _unseen_toy(raw: Any, seat: int, rng: np.random.Generator) -> bool:
    """Toy Card: a seat sees only its own card: redraw every other seat's card value."""
    g = raw.game
    changed = False
    for j in range(g.num_players):
        if j != seat:
            v = int(rng.integers(0, 10))
            changed |= v != g.values[j]
            g.values[j] = v
    return changed


def _unseen_kakeya(raw: Any, seat: int, rng: np.random.Generator) -> bool:
    """Kakeya: a seat sees its own hand only: deal the other seats' unplayed cards among them again
    (same counts). ``dealt`` follows, so the copy stays a consistent deal."""
    from kabu_envs.kakeya.cards import bits_to_cards

    g = raw.game
    others = [j for j in range(g.num_players) if j != seat]
    cards = [c for j in others for c in bits_to_cards(g.hands[j])]
    perm, changed = _permute(rng, cards)
    at = 0
    for j in others:
        k = g.hands[j].bit_count()
        new = sum(1 << c for c in perm[at : at + k])
        at += k
        g.dealt[j] = (g.dealt[j] & ~g.hands[j]) | new
        g.hands[j] = new
    return changed


def _unseen_oicho(raw: Any, seat: int, rng: np.random.Generator) -> bool:
    """Oicho-Kabu (docs/oicho_kabu.md#a-round, observation.py): unseen by ``seat`` are the undealt deck, the
    other seats' info cards, the face-down second card of every spread ``seat`` does not back (until
    the showdown, or until an unbacked spread is turned up: ``unbacked_spread_card``) and the dealer's
    first two cards until they are shown. Permute all of them."""
    g = raw.game
    face_up = g.cfg.dealer_second_card_face_up
    slots: list[tuple[Any, Any]] = [(g.deck.cards, i) for i in range(g.deck.top, len(g.deck.cards))]
    slots += [(g.info_cards, j) for j in range(g.num_players) if j != seat and g.info_cards[j] >= 0]
    if not g.showdown:
        slots += [
            (sp, 1)
            for t, sp in enumerate(g.spreads)
            if len(sp) > 1 and not g.stakes[t][seat] and not g.turned_up(t)
        ]
        if not (g.dealer_revealed and (face_up or seat == g.dealer)):
            slots += [(g.dealer_cards, k) for k in range(min(2, len(g.dealer_cards)))]
    cards = [where[i] for where, i in slots]
    perm, changed = _permute(rng, cards)
    for (where, i), c in zip(slots, perm, strict=True):
        where[i] = c
    g.version += 1  # the encoder caches a seat's cards per game version: the copy's cards just changed
    return changed


# game id -> permute(raw env copy, seat, rng) -> whether anything changed
UNSEEN_PERMUTERS: dict[str, Callable[[Any, int, np.random.Generator], bool]] = {
    "toy_card": _unseen_toy,
    "kakeya": _unseen_kakeya,
    "oicho_kabu": _unseen_oicho,
}

# Totals a game keeps on its raw env that play only moves between seats (chips, stones).
CONSERVED_ATTRS = ("chips", "stones")
# Options that count rounds/deals of an episode; an episode has at most rounds x steps-per-round steps.
ROUND_OPTIONS = ("max_rounds", "max_deals")


def conserved_totals(raw: Any) -> dict[str, Any]:
    out = {}
    for attr in CONSERVED_ATTRS:
        v = getattr(raw, attr, None)
        if v is not None:
            out[attr] = sum(v.values() if isinstance(v, Mapping) else v)
    return out


def episode_bound(raw: Any) -> int:
    """A generous bound on the steps of one episode, from the rule options: a round takes at most
    ``64 + 8 * seats + 4 * (redeal limits)`` decisions, and an episode ``rounds`` of them."""
    cfg = raw.config
    rounds = 1
    for name in ROUND_OPTIONS:
        rounds *= int(getattr(cfg, name, 1))
    limits = sum(int(getattr(cfg, f.name)) for f in dataclasses.fields(cfg) if f.name.endswith("_limit"))
    return rounds * (64 + 8 * len(raw.possible_agents) + 4 * limits)


# --- the episode driver -----------------------------------------------------------------------------------


def obs_key(obs: Mapping[str, np.ndarray]) -> tuple[bytes, ...]:
    return tuple(np.asarray(obs[k]).tobytes() for k in sorted(obs))


def snapshot(env: Any) -> dict[str, Any]:
    """Everything a step may change, as comparable values (``last()`` only while an agent is left)."""
    raw = env.unwrapped
    out = {
        "rewards": dict(env.rewards),
        "cumulative": dict(raw._cumulative_rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "agent_selection": env.agent_selection,
        "agents": list(env.agents),
        "observations": {a: obs_key(env.observe(a)) for a in env.possible_agents},
        "game": pickle.dumps(raw.game),
        "rng": raw.np_random.bit_generator.state,
    }
    if env.agents:
        obs, r, term, trunc, info = env.last()
        out["last"] = (obs_key(obs), r, term, trunc, dict(info))
    return out


def close(a: float, b: float, scale: float = 1.0) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(scale))


@dataclass
class Plan:
    """How an episode is played: the rule options, the env flavour and the random knobs."""

    game: str
    options: dict[str, Any]
    wrapped: bool
    seed: int
    deck: Any
    policy_seed: int
    p_illegal: float
    p_odd: float
    max_resets: int


@dataclass
class Trace:
    """What a replay must reproduce: per call of the script, the acting seat, its observation and the
    rewards; and the script itself (resets and legal actions only)."""

    script: list[tuple] = field(default_factory=list)
    seen: list[tuple] = field(default_factory=list)


def _record(env: Any, trace: Trace) -> None:
    if env.agents:
        agent = env.agent_selection
        trace.seen.append((agent, obs_key(env.observe(agent)), tuple(sorted(env.rewards.items()))))
    else:
        trace.seen.append(("<over>", tuple(sorted(env.rewards.items()))))


def make_env(spec: registry.GameSpec, wrapped: bool, options: dict[str, Any]) -> Any:
    factory = spec.make_env if wrapped else spec.make_raw_env
    return factory(render_mode="ansi", **options)


def check_views(env: Any) -> None:
    """Every seat's observation lies in its space; only the seat to act (alive) has a non-empty mask."""
    to_act = env.agent_selection if env.agents else None
    live = to_act is not None and not (env.terminations[to_act] or env.truncations[to_act])
    for a in env.possible_agents:
        obs = env.observe(a)
        assert env.observation_space(a).contains(obs), f"{a}: observation outside its space"
        mask = obs["action_mask"]
        if a == to_act and live:
            assert mask.any(), f"{a} must act but its mask is empty"
            assert env.action_space(a).n == mask.size
        else:
            assert not mask.any(), f"{a} is not to act but its mask is {np.flatnonzero(mask)}"
    count("observations checked", len(env.possible_agents))


def illegal_candidates(env: Any, mask: np.ndarray, rng: np.random.Generator) -> list[tuple[Any, str]]:
    """Refused actions of every kind for the agent to act: (action, kind)."""
    n = mask.size
    out: list[tuple[Any, str]] = []
    masked = np.flatnonzero(mask == 0)
    if masked.size:
        a = int(rng.choice(masked))
        out += [(a, "masked"), (np.int64(a), "masked")]
    out += [(n, "range"), (n + int(rng.integers(1, 10**6)), "range"), (-1, "range"), (-(10**30), "range")]
    legal = int(rng.choice(np.flatnonzero(mask)))
    out += [
        (float(legal), "type"),
        (legal + 0.5, "type"),
        (np.float64(legal), "type"),
        (True, "type"),
        (np.bool_(False), "type"),
        (None, "type"),
        (str(legal), "type"),
        (np.array([legal]), "type"),
        (np.array(float(legal)), "type"),
        ([legal], "type"),
        (10**400, "range"),
    ]
    return out


def try_illegal(env: Any, wrapped: bool, mask: np.ndarray, rng: np.random.Generator) -> None:
    """A refused action raises the documented error and changes nothing."""
    cands = illegal_candidates(env, mask, rng)
    action, kind = cands[int(rng.integers(len(cands)))]
    before = snapshot(env)
    try:
        env.step(action)
    except IllegalActionError as exc:
        assert isinstance(exc, ValueError)
        if wrapped and kind in ("range", "type"):
            assert isinstance(exc, ActionSpaceError), (
                f"{action!r}: {type(exc).__name__}, not ActionSpaceError"
            )
        elif kind == "type":
            assert isinstance(exc, ActionTypeError), f"{action!r}: {type(exc).__name__}, not ActionTypeError"
    else:
        raise AssertionError(f"illegal action {action!r} ({kind}) was accepted")
    after = snapshot(env)
    assert after == before, f"refused action {action!r} ({kind}) changed the env"
    count(f"illegal steps ({kind})")
    count("illegal steps")


def check_hidden(spec: registry.GameSpec, env: Any, seat_agent: str, rng: np.random.Generator) -> None:
    """Permuting the cards ``seat_agent`` cannot see (in a deep copy) leaves its observation unchanged."""
    permute = UNSEEN_PERMUTERS.get(spec.id)
    if permute is None:
        count(f"hidden-info checks skipped ({spec.id}: no UNSEEN_PERMUTERS entry)")
        return
    twin = copy.deepcopy(env)
    raw = twin.unwrapped
    seat = raw.possible_agents.index(seat_agent)
    changed = permute(raw, seat, rng)
    a, b = env.observe(seat_agent), twin.observe(seat_agent)
    assert obs_key(a) == obs_key(b), f"{seat_agent}'s observation changed when only cards it cannot see moved"
    count("hidden-info checks")
    if changed:
        count("hidden-info checks (cards moved)")
        others = [x for x in raw.possible_agents if x != seat_agent]
        if any(obs_key(env.observe(x)) != obs_key(twin.observe(x)) for x in others):
            count("hidden-info checks (another seat saw the move)")


def odd_call(env: Any, rng: np.random.Generator) -> None:
    """A call an agent loop does not make at this point: it must not fail or change anything."""
    what = int(rng.integers(3))
    before = snapshot(env)
    if what == 0:
        a = env.possible_agents[int(rng.integers(len(env.possible_agents)))]
        obs = env.observe(a)
        assert env.observation_space(a).contains(obs)
        count("odd calls (observe)")
    elif what == 1:
        obs, reward, term, trunc, info = env.last()
        assert env.observation_space(env.agent_selection).contains(obs)
        assert isinstance(reward, float) and isinstance(info, dict)
        assert env.last(observe=False)[0] is None
        count("odd calls (last)")
    else:
        text = env.render()
        assert isinstance(text, str) and text
        count("odd calls (render)")
    assert snapshot(env) == before, "an odd call changed the env"
    count("odd calls")


def run_episode(spec: registry.GameSpec, plan: Plan) -> Trace:
    """Play one episode (with resets, illegal attempts, odd calls, hidden-info checks) checking every
    invariant on the way; return the script and what a replay must see."""
    trace = Trace()
    rng = np.random.default_rng(plan.policy_seed)
    env = make_env(spec, plan.wrapped, plan.options)
    raw = env.unwrapped
    if plan.wrapped:  # before the first reset the order-enforcing wrapper refuses, naming reset()
        for call in (lambda: env.step(0), lambda: env.observe(env.possible_agents[0]), env.render, env.last):
            try:
                call()
            except (AssertionError, AttributeError) as exc:
                assert "reset" in str(exc)
            else:
                raise AssertionError("a call before reset() did not raise")
    resets = 0

    def reset(seed: int | None, deck: Any) -> None:
        options = None if deck is None else {"deck": deck}
        env.reset(seed=seed, options=options)
        trace.script.append(("reset", seed, deck))
        _record(env, trace)

    reset(plan.seed, plan.deck)
    while True:
        bound = episode_bound(raw)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        collected = dict.fromkeys(env.possible_agents, 0.0)
        start = conserved_totals(raw)
        steps = 0
        restarted = False
        while env.agents:
            check_views(env)
            agent = env.agent_selection
            obs, reward, term, trunc, _info = env.last()
            collected[agent] += reward
            if term or trunc:
                if rng.random() < plan.p_illegal:  # a done agent takes None only
                    before = snapshot(env)
                    try:
                        env.step(int(rng.integers(env.action_space(agent).n)))
                    except ValueError:
                        pass
                    else:
                        raise AssertionError("a done agent's action other than None was accepted")
                    assert snapshot(env) == before
                    count("illegal steps (done agent)")
                env.step(None)
                count("dead steps")
                _record(env, trace)
                trace.script.append(("step", None))
                continue
            mask = obs["action_mask"]
            while rng.random() < plan.p_illegal:
                try_illegal(env, plan.wrapped, mask, rng)
            if rng.random() < plan.p_odd:
                odd_call(env, rng)
            if rng.random() < plan.p_odd:
                check_hidden(spec, env, agent, rng)
                other = env.possible_agents[int(rng.integers(len(env.possible_agents)))]
                check_hidden(spec, env, other, rng)
            if resets < plan.max_resets and rng.random() < plan.p_odd / 10:
                resets += 1
                count("resets mid-episode")
                seed = None if rng.random() < 0.5 else int(rng.integers(2**32))
                reset(seed, None)
                restarted = True
                break
            legal = np.flatnonzero(mask)
            action: Any = int(rng.choice(legal))
            shown = [action, np.int64(action), np.array(action)][int(rng.integers(3))]
            env.step(shown)  # a legal action never raises
            trace.script.append(("step", action))
            _record(env, trace)
            steps += 1
            count("legal steps")
            assert steps <= bound, f"episode longer than {bound} steps"
            paid = env.rewards
            scale = sum(abs(v) for v in paid.values())
            assert close(sum(paid.values()), 0.0, scale), f"rewards do not sum to zero: {paid}"
            for a, v in paid.items():
                totals[a] += v
            now = conserved_totals(raw)
            assert now == start, f"conserved totals moved: {start} -> {now}"
        if restarted:
            continue
        # the episode is over: the accounting adds up and the env says so
        scale = sum(abs(v) for v in totals.values())
        assert close(sum(totals.values()), 0.0, scale), f"episode rewards do not sum to zero: {totals}"
        for a in env.possible_agents:
            assert close(collected[a], totals[a], scale), f"{a}: last() gave {collected[a]}, paid {totals[a]}"
        check_views(env)
        # after the end: last() raises EpisodeOverError; so does step() on the raw env, while the wrapped
        # env keeps PettingZoo's OrderEnforcingWrapper behaviour (a logged warning, nothing happens)
        after_end = [env.last]
        if not plan.wrapped:
            after_end += [lambda: env.step(None), lambda: env.step(0)]
        for call in after_end:
            try:
                call()
            except EpisodeOverError:
                pass
            else:
                raise AssertionError("a call after the end of the episode did not raise EpisodeOverError")
        if plan.wrapped:
            before = snapshot(env)
            env.step(None)
            env.step(0)
            assert snapshot(env) == before, "a step after the end changed the env"
        assert isinstance(env.render(), str)
        count("episodes")
        count(f"episodes ({spec.id})")
        return trace


def replay(spec: registry.GameSpec, plan: Plan, script: list[tuple]) -> Trace:
    """The script (resets and legal actions only) in a fresh env."""
    env = make_env(spec, plan.wrapped, plan.options)
    trace = Trace()
    for item in script:
        if item[0] == "reset":
            env.reset(seed=item[1], options=None if item[2] is None else {"deck": item[2]})
        else:
            env.step(item[1])
        _record(env, trace)
    count("replays")
    return trace
