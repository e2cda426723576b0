"""What the tools do with Oicho-Kabu, as records of the declared protocol
(``kabu_envs.core.declared``); the game's record (``registration.py``) says what the game is."""

from __future__ import annotations

from typing import Any

import numpy as np

from kabu_envs.core.declared import BenchPlan, DemoPlan, Evaluation, ExploitPlan, Screenshot

EVALUATION = Evaluation(opponents=("random", "scripted", "expert"), deals=1000)

# Oicho-Kabu deals are cheap but their advantages vary a lot (stakes up to 10 chips times yaku
# multipliers), so the demo gives it more deals than Kakeya.
DEMO = DemoPlan(
    roles=("bettor", "dealer"),
    opponents=("random", "scripted", "expert"),
    reference_rows=(("scripted", "random"), ("expert", "random"), ("expert", "scripted")),
    deals=20000,
    sample_title="Oicho-Kabu round",
    order=0,
    best_response_agents=("random", "scripted", "expert"),
    best_response_deals=1000,
    best_response_setting_deals=300,
    headline_rows=(("expert", "scripted"),),
    headline_settings=True,  # each rule set's expert against scripted, beside its own bettor network
)

# The benchmark (kabu-eval bench, docs/benchmark.md): each role meets random, the two hand-written
# players and the shipped network of its role; 10000 deals a row (an Oicho-Kabu advantage varies a lot:
# at 10000 deals a bettor's 95% CI against scripted is about +-0.1 chips).
BENCH = BenchPlan(
    version="v1",
    field={
        "bettor": ("random", "scripted", "expert", "ppo_oicho_bettor"),
        "dealer": ("random", "scripted", "expert", "ppo_oicho_dealer"),
    },
    deals=10000,
    seed=1_700_001,
)

BEST_RESPONSE = "kabu_envs.oicho_kabu.agents.best_response:OichoBestResponse"


def observation_roles(observations: np.ndarray, **rule_options: Any) -> np.ndarray:
    """Each observing seat's role index in the registry's order (0 bettor, 1 dealer): its
    ``dealer_position`` one-hot says 0 seats to the dealer when it deals (seats are relative)."""
    from kabu_envs.oicho_kabu.config import make_config
    from kabu_envs.oicho_kabu.observation import obs_spec

    where = obs_spec(make_config(**rule_options)).slices["dealer_position"]
    return (np.asarray(observations)[:, where][:, 0] > 0.5).astype(np.int64)


# The exploitability yardstick (kabu_envs.training.exploit, docs/evaluation.md#exploitability): each
# exploiter fine-tunes the shipped model of its role (standard rules), or a behaviour clone of the expert
# (a richer rule set: no dealer model of those rules), at the shipped presets' small step against the
# frozen table; the better of it and its warm start on 2000 validation deals is kept.
EXPLOIT = ExploitPlan(
    timesteps=50_000,
    seed=27,
    deals=4000,
    eval_seed=20_270,
    config={
        "batch_envs": 64,
        "reward_scale": 0.1,
        "ppo": {"learning_rate": 5.0e-5, "n_steps": 32, "batch_size": 512, "n_epochs": 4, "clip_range": 0.1},
        "policy_kwargs": {"net_arch": [128, 128]},
    },
    scratch_config={"bc": {"teacher": "expert", "steps": 20_000, "epochs": 5}},
    init_from={"bettor": "ppo_oicho_bettor", "dealer": "ppo_oicho_dealer"},
    select_deals=2000,
    demo_deals=4000,
    observation_roles="kabu_envs.oicho_kabu.plans:observation_roles",
)

# a scripted dealer, bettors scripted and random (random stakes leave spreads unbacked, so player_3's
# view hides their second cards)
SCREENSHOTS = (
    Screenshot(
        "oicho_kabu_god",
        14,
        seed=7,
        agents=("scripted", "random"),
        rule_options={"dealer_selection": "fixed"},  # player_0 deals, as in the committed picture
        caption="Oicho-Kabu, god view: player_1 decides spread 2 (blue frames: face down)",
    ),
    Screenshot(
        "oicho_kabu_seat",
        14,
        seed=7,
        seat=3,
        agents=("scripted", "random"),
        rule_options={"dealer_selection": "fixed"},
        caption="the same moment as player_3 sees it (it backs spreads 0 and 1 only)",
    ),
    Screenshot(
        "oicho_kabu_hanafuda_showdown",
        100,
        seed=2,
        rule_options={"rules": "kansai", "deck": "hanafuda", "num_players": 5},
        caption="Oicho-Kabu, Kansai rules with hanafuda cards: the showdown",
    ),
)
