"""Kakeya's suit renamings (kakeya/symmetry.py, agents/symmetry.py): checked against the engine, a
deal dealt from a renamed deck and played with the renamed moves shows the renamed observations."""

import numpy as np
import pytest

from kabu_envs.agents.symmetry import PolicySymmetries, SymmetricViews, get_symmetries, known_symmetries
from kabu_envs.kakeya.actions import TRUMP_BASE
from kabu_envs.kakeya.cards import NUM_RANKS
from kabu_envs.kakeya.env import raw_env
from kabu_envs.kakeya.symmetry import PERMUTATIONS, suit_applies, suit_rotation_applies

TABLES = [
    {},
    {"rensho_rule": "traditional", "rensho_follow": "must_follow"},
    {"num_players": 6},
    {"num_players": 6, "six_player_mode": "dealers_sit_out"},
]


def _deal(options, deck, moves):
    """The LEAD/PLAY decisions (observation, mask) of the first deal; ``moves(i, mask)`` picks each."""
    env = raw_env(**options)
    env.reset(seed=1, options={"deck": deck})
    out = []
    for _ in env.agent_iter():
        o, _, term, trunc, _ = env.last()
        if term or trunc or (out and o["observation"][0] == 1.0):  # the match ends or the next deal starts
            break
        out.append((o["observation"].copy(), o["action_mask"].astype(bool)))
        env.step(moves(len(out) - 1, out[-1][1]))
    return out


@pytest.mark.parametrize("options", TABLES, ids=["4p", "4p-traditional", "6p", "6p-sit-out"])
def test_a_renamed_deal_shows_the_renamed_observations(options):
    views = SymmetricViews("kakeya", "suits", options)
    checked = 0
    for trump in range(4):
        rng = np.random.default_rng(trump)
        deck = [int(c) for c in rng.permutation(52)]
        chosen: list[int] = []

        def first(i, mask, trump=trump, rng=rng, chosen=chosen):
            legal = np.flatnonzero(mask)
            a = TRUMP_BASE + trump if mask[TRUMP_BASE + trump] else int(legal[rng.integers(len(legal))])
            chosen.append(a)
            return a

        plain = _deal(options, deck, first)
        later = np.stack([o for o, _ in plain[1:]])  # after the trump choice
        applies = suit_applies(later, options)
        assert (applies == applies[0]).all()  # one deal: the same renamings at every decision
        assert applies[0].sum() in (2, 6) and applies[0, 0]
        assert suit_applies(plain[0][0][None], options)[0].sum() == 1  # the trump choice: identity only
        for g in np.flatnonzero(applies[0]):
            sigma = PERMUTATIONS[g]
            renamed = _deal(
                options,
                [sigma[c // NUM_RANKS] * NUM_RANKS + c % NUM_RANKS for c in deck],
                lambda i, mask, g=g, chosen=chosen: int(views.action_image[g][chosen[i]]),
            )
            assert len(renamed) == len(plain)
            obs = np.stack([o for o, _ in plain[1:]])
            masks = np.stack([m for _, m in plain[1:]])
            want_obs = np.stack([o for o, _ in renamed[1:]])
            want_masks = np.stack([m for _, m in renamed[1:]])
            got_obs = np.take_along_axis(obs, np.argsort(views.obs_image[g])[None].repeat(len(obs), 0), 1)
            got_masks = np.take_along_axis(
                masks, np.argsort(views.action_image[g])[None].repeat(len(obs), 0), 1
            )
            assert np.array_equal(got_obs, want_obs) and np.array_equal(got_masks, want_masks), sigma
            checked += len(obs)
    assert checked >= 8 * 53  # at least two renamings (the identity and one) a trump


def test_views_come_in_element_order_and_map_back():
    views = SymmetricViews("kakeya", "suits", {})
    rng = np.random.default_rng(0)
    decisions = _deal({}, [int(c) for c in rng.permutation(52)], lambda i, m: int(np.flatnonzero(m)[0]))
    obs = np.stack([o for o, _ in decisions])
    masks = np.stack([m for _, m in decisions])
    row, element, view_obs, view_masks = views.views(obs, masks)
    assert (np.diff(element) >= 0).all()  # element by element, decisions in order within one
    for r in range(len(obs)):
        mine = element[row == r]
        assert mine[0] == 0 and (np.diff(mine) > 0).all()  # identity first, then in element order
    # a view's mask mapped back is the decision's own mask
    back = views.back(view_masks.astype(np.float32), element)
    assert np.array_equal(back.astype(bool), masks[row])
    assert np.array_equal(view_obs[element == 0], obs)


def test_the_game_declares_its_symmetries_and_bad_ones_are_refused(monkeypatch):
    from kabu_envs.agents import symmetry

    assert (
        sorted(known_symmetries("kakeya")) == ["suit_rotations", "suits"]
        and known_symmetries("oicho_kabu") == {}
    )
    with pytest.raises(
        ValueError,
        match=r"unknown policy symmetries 'seats' for kakeya; known: \['suit_rotations', 'suits'\]",
    ):
        get_symmetries("kakeya", "seats")
    ident = np.arange(4)[None]
    table = {
        "swap_first": PolicySymmetries(
            lambda o: (ident[:, ::-1], ident), lambda x, o: np.ones((len(x), 1), bool), lambda f, o: None, ""
        ),
        "twice": PolicySymmetries(
            lambda o: (np.array([[0, 0, 2, 3]]), ident),
            lambda x, o: np.ones((len(x), 1), bool),
            lambda f, o: None,
            "",
        ),
        "no_identity": PolicySymmetries(
            lambda o: (ident, ident), lambda x, o: np.zeros((len(x), 1), bool), lambda f, o: None, ""
        ),
    }
    monkeypatch.setattr(symmetry, "known_symmetries", lambda game: table)
    with pytest.raises(ValueError, match="element 0 is not the identity"):
        SymmetricViews("x", "swap_first", {})
    with pytest.raises(ValueError, match="an observation map is not a permutation"):
        SymmetricViews("x", "twice", {})
    with pytest.raises(ValueError, match="identity true on every row"):
        SymmetricViews("x", "no_identity", {}).views(np.zeros((2, 4)), np.ones((2, 4), bool))


def test_the_rotations_are_the_turns_of_the_free_suits():
    rng = np.random.default_rng(2)
    decisions = []
    for trump in range(4):
        decisions += _deal(
            {},
            [int(c) for c in rng.permutation(52)],
            lambda i, m, t=trump: TRUMP_BASE + t if m[TRUMP_BASE + t] else int(np.flatnonzero(m)[0]),
        )
    obs = np.stack([o for o, _ in decisions])
    full, turns = suit_applies(obs, {}), suit_rotation_applies(obs, {})
    assert (turns <= full).all() and turns[:, 0].all()
    assert {(int(f), int(t)) for f, t in zip(full.sum(1), turns.sum(1), strict=True)} == {
        (1, 1),
        (2, 2),
        (6, 3),
    }
    for g in np.flatnonzero(turns.any(0)):
        sigma = PERMUTATIONS[g]
        moved = [s for s in range(4) if sigma[s] != s]
        assert len(moved) in (0, 2, 3)  # the identity, a swap of two free suits or a turn of three


@pytest.mark.parametrize("options", [TABLES[0], TABLES[2]], ids=["4p", "6p"])
@pytest.mark.parametrize("features", ["cards", "cards_seats"])
def test_a_views_features_are_its_decisions_features_renamed(options, features):
    """So a policy computes its features once a decision and relabels them for the other views."""
    from kabu_envs.agents.features import FeatureInputs

    views = SymmetricViews("kakeya", "suits", options)
    inputs = FeatureInputs("kakeya", features, options)
    rng = np.random.default_rng(4)
    decisions = []
    for trump in range(4):
        deck = [int(c) for c in rng.permutation(52)]
        decisions += _deal(
            options,
            deck,
            lambda i, m, t=trump: TRUMP_BASE + t if m[TRUMP_BASE + t] else int(rng.choice(np.flatnonzero(m))),
        )
    obs = np.stack([o for o, _ in decisions])
    masks = np.stack([m for _, m in decisions])
    row, element, view_obs, _ = views.views(obs, masks)
    assert len(set(element.tolist())) > 6
    source = views.input_source(features, obs.shape[1])
    assert np.array_equal(views.gather(inputs(obs), row, element, source), inputs(view_obs))
