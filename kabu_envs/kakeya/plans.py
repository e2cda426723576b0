"""What the tools do with Kakeya, as records of the declared protocol
(``kabu_envs.core.declared``); the game's record (``registration.py``) says what the game is."""

from __future__ import annotations

from kabu_envs.core.declared import BenchPlan, DemoPlan, Evaluation, ExploitPlan, Screenshot

EVALUATION = Evaluation(opponents=("random", "scripted"), deals=1000)

# the searches (`expert`, the search with network play-outs, and the fixed references `expert_0_2` and
# `expert_0_3`, the scripted-play-out search) decide one move at a time (their cost: docs/studies/speed.md):
# their matchups play 1000 deals, the batched ones 2000; the shipped models meet `expert` and `expert_0_2`,
# and `expert` meets both references; the strongest network, `ens5_kakeya`, meets `expert_0_3` too (a
# learned agent against the fixed search it is measured against)
DEMO = DemoPlan(
    roles=("partnership",),
    opponents=("random", "scripted", "expert", "expert_0_2"),
    reference_rows=(
        ("scripted", "random"),
        ("expert", "random"),
        ("expert", "scripted"),
        ("expert", "expert_0_2"),
        ("expert", "expert_0_3"),
        ("ens5_kakeya", "expert_0_3"),
    ),
    deals=2000,
    sample_title="Kakeya deal",
    order=1,
    agent_deals={"expert": 1000, "expert_0_2": 1000, "expert_0_3": 1000},
    # the short demo's headline: the search against its previous version, and the strongest network
    # against that version (`expert` costs ~7x its CPU a decision: one row of it keeps the short demo short)
    headline_rows=(("expert", "expert_0_3"), ("ens5_kakeya", "expert_0_3")),
)

# The benchmark (kabu-eval bench, docs/benchmark.md): a partnership meets random, scripted, the search
# `expert` and the strongest shipped network on 1000 held-out deals a row (CI about +-0.06 stones).
# v2: the strongest network is `ens5_kakeya` (v1's was `ens_kakeya`).
BENCH = BenchPlan(
    version="v2",
    field={"partnership": ("random", "scripted", "expert", "ens5_kakeya")},
    deals=1000,
    seed=1_700_001,
)

# The exploitability yardstick (kabu_envs.training.exploit, docs/evaluation.md#exploitability): the
# exploiter partnership (both seats the learning policy) fine-tunes the strongest shipped network
# (`ei2_kakeya`, the expert-iteration clone with the card features: a tighter bound than `ei_kakeya`,
# itself 0.35 stones a deal above `ppo_kakeya`) at a small step against the frozen partnership; the
# better of it and its warm start on 500 validation deals is kept. The search experts' frozen decisions
# are the slow part of the budget. The exploiter's network is the warm start's (its features included).
EXPLOIT = ExploitPlan(
    timesteps=100_000,
    seed=27,
    deals=1000,
    eval_seed=20_270,
    config={
        "batch_envs": 64,
        "reward_scale": 0.5,
        "ppo": {"learning_rate": 5.0e-5, "n_steps": 32, "batch_size": 512, "n_epochs": 4, "clip_range": 0.1},
        "policy_kwargs": {"net_arch": [256, 256]},  # a fresh exploiter's (rules no shipped model fits)
    },
    init_from={"partnership": "ei2_kakeya"},
    select_deals=500,
    demo_deals=1000,
)

SCREENSHOTS = (
    Screenshot("kakeya_god", 33, seed=4, caption="Kakeya, god view: the eighth trick, three cards played"),
    Screenshot("kakeya_seat", 33, seed=4, seat=0, caption="the same moment as player_0 sees it"),
    Screenshot(
        "kakeya_6p_all_play",
        19,
        seed=3,
        rule_options={"num_players": 6, "six_player_mode": "all_play"},
        caption="Kakeya, six players, all play: three partnerships",
    ),
)
