"""``render_mode="rgb_array"``: frames of every game, per-seat views that hide what the seat cannot see,
the single-agent views (SB3's ``make_vec_env``, Gymnasium's ``RenderCollection``), and no pillow and no
drawing on the stepping path."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from kabu_envs import kakeya_v2, oicho_kabu_v1, oicho_kabu_v2
from kabu_envs.kakeya import Action as KAction
from kabu_envs.kakeya.cards import bits_to_cards, suit_of
from kabu_envs.oicho_kabu import Action as OAction
from kabu_envs.oicho_kabu.deck import card_ids
from kabu_envs.oicho_kabu.render import BACK, render_text, visibility
from kabu_envs.toy_card.env import env as toy_env
from kabu_envs.wrappers.views import make_view

ENVS = {
    "oicho_standard": lambda **kw: oicho_kabu_v1.env(**kw),
    "oicho_kansai_hanafuda_6p": lambda **kw: oicho_kabu_v1.env(
        rules="kansai", deck="hanafuda", num_players=6, **kw
    ),
    "oicho_site_western_8p": lambda **kw: oicho_kabu_v1.env(
        rules="kabufuda_site", deck="western", num_players=8, **kw
    ),
    "kakeya_4p": lambda **kw: kakeya_v2.env(**kw),
    "kakeya_6p_sit_out": lambda **kw: kakeya_v2.env(num_players=6, **kw),
    "kakeya_6p_all_play": lambda **kw: kakeya_v2.env(num_players=6, six_player_mode="all_play", **kw),
    "toy_card": lambda **kw: toy_env(num_players=3, **kw),
}


def _play(env, seed: int, max_steps: int = 400):
    """Random legal play; yields after reset and after every step."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    yield
    for _ in range(max_steps):
        if not env.agents:
            return
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        if action is not None:
            yield


@pytest.mark.parametrize("name", ENVS)
def test_frames_have_one_size_and_change_with_every_action(name):
    env = ENVS[name](render_mode="rgb_array")
    frames = [env.render() for _ in _play(env, seed=3)]
    shape = frames[0].shape
    assert shape[0] >= 300 and shape[1] >= 400 and shape[2] == 3
    assert all(f.shape == shape and f.dtype == np.uint8 for f in frames)
    assert len(frames) > 2
    for before, after in zip(frames, frames[1:], strict=False):  # every action shows on the table
        assert not np.array_equal(before, after)
    assert frames[0].std() > 10  # a picture, not a blank


@pytest.mark.parametrize("name", ENVS)
def test_each_seat_view_differs_from_the_god_view_and_render_seat_is_the_default(name):
    env = ENVS[name](render_mode="rgb_array", render_seat=1)
    env.reset(seed=0)
    raw = env.unwrapped
    assert np.array_equal(env.render(), raw.render_frame(1))
    god = raw.render_frame(None)
    for seat in range(raw.num_players):
        assert not np.array_equal(raw.render_frame(seat), god)  # hands or cards hidden, "view" label


@pytest.mark.parametrize("name", ["oicho_standard", "kakeya_4p", "toy_card"])
def test_pettingzoo_render_test(name):
    """PettingZoo's own check of every render mode the env lists (human, ansi, rgb_array)."""
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: ENVS[name](render_mode=render_mode))


def test_render_seat_and_render_frame_refuse_bad_seats_and_need_a_reset():
    with pytest.raises(ValueError, match=r"render_seat=4: a seat 0..3 or None"):
        oicho_kabu_v1.env(render_seat=4)
    with pytest.raises(ValueError, match="render_seat=True"):
        kakeya_v2.env(render_seat=True)
    env = oicho_kabu_v1.raw_env(render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="call reset"):
        env.render()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"seat='x': a seat 0..3 or None"):
        env.render_frame("x")  # type: ignore[arg-type]
    assert env.render_frame(np.int64(2)).shape == env.render().shape  # any render_mode draws on demand
    assert oicho_kabu_v1.raw_env().metadata["render_fps"] > 0


# --- hidden information --------------------------------------------------------------------------
def test_oicho_seat_frame_ignores_the_cards_it_cannot_see():
    """Two decks that differ only in cards seat 1 cannot see: unbacked spreads' second cards, the
    dealer's face-down first card. Seat 1's frame, text and observation are equal; the god view's not."""
    table = [0, 4, 8, 12]  # values 1, 2, 3, 4 on the four spreads
    deck_a = table + card_ids(5, 6, 7, 8, 9)[:1] + [24, 28, 33, 37]  # dealer 5; second cards 7, 8, 9, 10
    deck_b = table + card_ids(9)[:1] + [24, 37, 28, 33]  # dealer 9; spreads 1..3 get other cards
    frames, obs = {}, {}
    for key, deck in (("a", deck_a), ("b", deck_b)):
        env = oicho_kabu_v1.raw_env(render_mode="rgb_array")
        env.reset(seed=0, options={"deck": deck})
        game = env.game
        assert game.dealer == 0 and game.phase.name == "BET"
        while game.phase.name == "BET":  # seat 1 backs spread 0 only, the others stake nothing
            stake = game.current_player == 1 and game.active_spread == 0
            env.step(OAction.BET(1) if stake else OAction.BET(0))
        assert game.phase.name == "DECIDE" and game.current_player == 1
        frames[key] = (env.render_frame(1), env.render_frame(None))
        obs[key] = env.observe("player_1")["observation"], render_text(game, 1), render_text(game)
    assert deck_a[5] == deck_b[5]  # spread 0's second card: seat 1 sees it, the same in both
    assert np.array_equal(obs["a"][0], obs["b"][0])
    assert obs["a"][1] == obs["b"][1] and "[?]" in obs["a"][1]  # the text view of seat 1 as well
    assert obs["a"][2] != obs["b"][2]
    assert np.array_equal(frames["a"][0], frames["b"][0])
    assert not np.array_equal(frames["a"][1], frames["b"][1])


def test_kakeya_seat_frame_ignores_the_other_hands():
    """Swap cards between seats 2 and 3: seat 0's frame stays, the god view changes."""
    env = kakeya_v2.raw_env(render_mode="rgb_array", render_seat=0)
    deck_a = [int(c) for c in np.random.default_rng(7).permutation(52)]
    env.reset(seed=0, options={"deck": deck_a})
    env.step(KAction.TRUMP(0))  # the first dealer keeps clubs; the cards are dealt now
    hands = env.game.hands
    two = [c for c in bits_to_cards(hands[2]) if suit_of(c) == 1][0]  # a diamond of seat 2
    three = [c for c in bits_to_cards(hands[3]) if suit_of(c) == 2][0]  # a heart of seat 3
    i, j = deck_a.index(two), deck_a.index(three)
    deck_b = deck_a[:]
    deck_b[i], deck_b[j] = deck_b[j], deck_b[i]
    frames = {}
    for key, deck in (("a", deck_a), ("b", deck_b)):
        env.reset(seed=0, options={"deck": deck})
        env.step(KAction.TRUMP(0))
        assert env.game.phase.name == "LEAD"
        frames[key] = (env.render(), env.render_frame(None))
    assert env.game.hands[2] >> three & 1  # deck b did move the cards
    assert np.array_equal(frames["a"][0], frames["b"][0])
    assert not np.array_equal(frames["a"][1], frames["b"][1])


@pytest.mark.parametrize(
    ("module", "rules", "players"),
    [
        (oicho_kabu_v1, "standard", 5),
        (oicho_kabu_v1, "kansai", 5),
        (oicho_kabu_v1, "kabufuda_site", 5),
        # v2: unbacked spreads turned up (two seats leave spreads unbacked), and the site's reading
        (oicho_kabu_v2, "standard", 2),
        (oicho_kabu_v2, "kansai", 2),
        (oicho_kabu_v2, "kabufuda_site", 2),
    ],
)
def test_oicho_picture_hides_exactly_what_the_observation_hides(module, rules, players):
    """``picture.visibility`` draws a card back where the observation marks the card hidden."""
    env = module.raw_env(rules=rules, num_players=players, max_rounds=3)
    spec = env.obs_spec
    checked = turned = 0
    for _ in _play(env, seed=11):
        game = env.game
        turned += any(game.turned_up(s) for s in range(4))
        for seat in range(game.num_players):
            spreads, dealer, _ = visibility(game, seat)
            o = env.observe(f"player_{seat}")["observation"]
            hidden_spreads = o[spec.slices["spread_hidden"]].reshape(4, 3)
            for s, row in enumerate(spreads):
                assert [h == BACK for h in row] == [bool(x) for x in hidden_spreads[s, : len(row)]]
            hidden_dealer = o[spec.slices["dealer_hidden"]]
            assert [h == BACK for h in dealer] == [bool(x) for x in hidden_dealer[: len(dealer)]]
            checked += 1
    assert checked > 20
    assert (turned > 0) == env.game.cfg.unbacked_spread_card


# --- the single-agent views ----------------------------------------------------------------------
@pytest.mark.parametrize(("game", "role"), [("oicho_kabu", "bettor"), ("kakeya", None), ("toy_card", None)])
def test_view_frames_show_the_learner_seat(game, role):
    view = make_view(game, role=role, opponents="random", render_mode="rgb_array")
    view.reset(seed=2)
    aec = view.aec.unwrapped
    acting = aec.agent_selection
    assert acting in view._learners
    seat = int(acting.split("_")[1])
    assert np.array_equal(view.render(), aec.render_frame(seat))
    god = make_view(game, role=role, opponents="random", render_mode="rgb_array", render_seat=None)
    god.reset(seed=2)
    assert np.array_equal(god.render(), god.aec.unwrapped.render_frame(None))
    with pytest.raises(ValueError, match="render_seat='me'"):
        make_view(game, role=role, render_mode="rgb_array", render_seat="me")


def test_render_collection_records_a_frame_after_reset_and_every_step():
    """What Gymnasium's video recorders do: render after reset and after each step."""
    from gymnasium.wrappers import RenderCollection

    env = RenderCollection(make_view("kakeya", opponents="random", render_mode="rgb_array"))
    env.reset(seed=0)
    steps = 0
    done = False
    while not done:
        mask = env.unwrapped.action_masks()
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(mask)[0]))
        done = term or trunc
        steps += 1
    frames = env.render()
    assert len(frames) == steps + 1 and len({f.shape for f in frames}) == 1
    assert frames[0].dtype == np.uint8


def test_make_vec_env_renders_the_views():
    """SB3's make_vec_env passes render_mode="rgb_array" for an id; the vec env's images are frames."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    import kabu_envs.wrappers  # noqa: F401  (registers the ids)

    vec = make_vec_env("kabu_envs/OichoKabuDealer-v2", n_envs=2, env_kwargs={"opponents": "random"})
    vec.seed(0)
    vec.reset()
    images = vec.get_images()
    assert len(images) == 2 and all(i.ndim == 3 and i.dtype == np.uint8 for i in images)
    tiled = vec.render()
    h, w, _ = images[0].shape
    assert tiled is not None and tiled.shape == (2 * h, w, 3)  # SB3 tiles the two frames


# --- no cost on the stepping path ---------------------------------------------------------------
@pytest.mark.parametrize("mode", [None, "rgb_array"])
def test_stepping_never_draws(monkeypatch, mode):
    import kabu_envs.kakeya.picture as kpic
    import kabu_envs.oicho_kabu.picture as opic

    def refuse(*args, **kwargs):
        raise AssertionError("a frame was drawn without render()")

    monkeypatch.setattr(kpic, "draw_table", refuse)
    monkeypatch.setattr(opic, "draw_table", refuse)
    for name in ("oicho_standard", "kakeya_4p"):
        env = ENVS[name](render_mode=mode)
        for _ in _play(env, seed=1):
            pass
    view = make_view("kakeya", opponents="random", render_mode=mode)
    view.reset(seed=0)
    view.step(int(np.flatnonzero(view.action_masks())[0]))


def test_pillow_is_imported_only_for_frames():
    code = (
        "import sys\n"
        "from kabu_envs import kakeya_v2, oicho_kabu_v1\n"
        "from kabu_envs.wrappers.views import make_view\n"
        "for make in (kakeya_v2.env, oicho_kabu_v1.env):\n"
        "    env = make(render_mode='rgb_array')\n"
        "    env.reset(seed=0)\n"
        "    env.step(int(env.last()[0]['action_mask'].argmax()))\n"
        "make_view('kakeya', opponents='random', render_mode='rgb_array').reset(seed=0)\n"
        "assert 'PIL' not in sys.modules, 'pillow imported before any frame'\n"
        "env.render()\n"
        "assert 'PIL' in sys.modules\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
