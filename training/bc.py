"""Behaviour-cloning warm start: fit a MaskablePPO policy to a teacher agent before PPO.

Why: PPO from scratch needs far more experience than our budget to reach the scripted
agents' level, and a duplicate comparison scores zero wherever two agents choose the
same action. Starting from a clone of the scripted agent, PPO only has to find where to
deviate from it.

Data: the teacher acts for the learner's seat(s) in the same ``SingleAgentView`` (the
same opponent mix) the learner trains in, seeing exactly the learner's observation and
mask (no hidden information). Each record is ``(observation, mask, teacher action,
return-to-go)``; the return is the learner's own reward summed from that decision to the
end of the episode (``gamma = 1``), times the training-only ``reward_scale``.

Fit: cross-entropy of the teacher's action under the MASKED policy distribution
(``policy.evaluate_actions(..., action_masks=...)``) plus ``vf_coef`` × the squared error
of the value head against the returns, so PPO starts with a sensible critic.

Soft targets (``bc.temperature`` > 0): a searching teacher knows more than its arg-max, how much
each move is worth (``act_with_values``, agents/base.py). The fit then matches the softmax of those
values / temperature, so the network learns which moves are nearly as good and which lose, not only
the best one (the distillation of expert iteration; Anthony et al. 2017, Silver et al. 2017).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kabu_envs.agents.base import Agent, as_agent
from kabu_envs.agents.features import FeatureInputs
from kabu_envs.agents.policy_file import MASKED_LOGIT
from kabu_envs.core.rng import make_rng
from kabu_envs.training.config import BehaviourCloning, TrainConfig
from kabu_envs.training.stage_log import StageProgress, say
from kabu_envs.wrappers.single_agent import SingleAgentView

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO


@dataclass
class Demonstrations:
    """Teacher decisions in the learner's view (arrays aligned by row)."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    episodes: int
    values: np.ndarray | None = None  # (n, A) the teacher's action values (NaN: none), soft labels only

    def __len__(self) -> int:
        return int(self.actions.size)

    def with_inputs(self, inputs: FeatureInputs | None) -> Demonstrations:
        """The same decisions with the network's inputs as ``obs`` (the policy features appended;
        ``inputs`` None: these). Recorded decisions keep the plain observations; a fit takes these."""
        if inputs is None:
            return self
        return dataclasses.replace(self, obs=inputs.batched(self.obs))

    @classmethod
    def from_lists(
        cls,
        obs: list[np.ndarray],
        masks: list[np.ndarray],
        actions: list[int],
        returns: list[float],
        episodes: int,
        values: list[np.ndarray] | None = None,
    ) -> Demonstrations:
        """The arrays of decisions recorded one by one (the dtypes every fit expects)."""
        return cls(
            np.asarray(obs, dtype=np.float32),
            np.asarray(masks, dtype=bool),
            np.asarray(actions, dtype=np.int64),
            np.asarray(returns, dtype=np.float32),
            episodes,
            None if values is None else np.asarray(values, dtype=np.float32).reshape(len(actions), -1),
        )


class Labeller:
    """The teacher's label of a decision: its action, and with ``soft`` its action values too."""

    def __init__(self, teacher: Any, soft: bool) -> None:
        self.teacher = as_agent(teacher)
        if soft and not self.teacher.capabilities.values:
            raise ValueError(
                "bc.temperature > 0 needs a teacher that values its actions (capabilities.values: "
                f"act_with_values); {type(teacher).__name__} ({self.teacher.name}) only acts: "
                "set bc.temperature to 0"
            )
        self.values: list[np.ndarray] | None = [] if soft else None

    def __call__(self, obs: np.ndarray, mask8: np.ndarray) -> int:
        """The teacher's action (its values, if soft, are appended to ``self.values``)."""
        if self.values is None:
            return int(self.teacher.act(obs, mask8))
        action, raw = self.teacher.act_with_values(obs, mask8)
        values = np.asarray(raw, dtype=np.float64)
        if values.shape != mask8.shape:
            raise ValueError(f"act_with_values returned values of shape {values.shape}, not {mask8.shape}")
        self.values.append(values)
        return int(action)


def soft_targets(
    values: np.ndarray, masks: np.ndarray, actions: np.ndarray, temperature: float
) -> np.ndarray:
    """``(n, A)`` float32 target distributions: the softmax of the legal valued actions' ``values /
    temperature``; a row with no valued legal action is one-hot on the teacher's action."""
    if temperature <= 0:
        raise ValueError(f"soft targets need a temperature > 0, got {temperature!r}")
    v = np.asarray(values, dtype=np.float64)
    valued = masks & np.isfinite(v)
    z = np.where(valued, v / temperature, -np.inf)
    top = z.max(axis=1, keepdims=True)
    has = np.isfinite(top[:, 0])
    e = np.where(valued, np.exp(z - np.where(has[:, None], top, 0.0)), 0.0)
    out = np.zeros(v.shape, dtype=np.float64)
    out[has] = e[has] / e[has].sum(axis=1, keepdims=True)
    out[np.flatnonzero(~has), actions[~has]] = 1.0
    return out.astype(np.float32)


def collect(
    view: SingleAgentView,
    teacher: Agent,
    steps: int,
    seed: int,
    reward_scale: float = 1.0,
    progress: bool = False,
    soft: bool = False,
    stage: str | None = None,
) -> Demonstrations:
    """Let ``teacher`` play the learner's seats of ``view`` for at least ``steps`` decisions.

    ``progress`` shows a bar of the decisions collected (on a terminal only); ``stage`` (e.g. "bc")
    prints plain progress lines on stdout whatever the terminal (training/stage_log.py); ``soft``
    records the teacher's action values too (``act_with_values``).
    """
    if steps <= 0:
        raise ValueError(f"bc.steps must be positive, got {steps}")
    from tqdm.auto import tqdm

    label = Labeller(teacher, soft)
    rng = make_rng(seed)
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    ret_l: list[float] = []
    episodes = 0
    bar = tqdm(total=steps, desc="behaviour cloning: teacher decisions", disable=None if progress else True)
    lines = None if stage is None else StageProgress(stage, steps, "decisions")
    while len(act_l) < steps:
        obs, _ = view.reset(seed=int(rng.integers(2**63 - 1)))
        teacher.reset(int(rng.integers(2**63 - 1)))
        rewards: list[float] = []
        done = False
        while not done:
            mask = view.action_masks()
            action = label(obs, mask.astype(np.int8))
            obs_l.append(obs)
            mask_l.append(mask)
            act_l.append(action)
            obs, reward, term, trunc, _ = view.step(action)
            rewards.append(float(reward))
            done = term or trunc
        # return-to-go of each decision of this episode (gamma = 1)
        ret_l.extend(np.cumsum(rewards[::-1])[::-1] * reward_scale)
        episodes += 1
        bar.update(min(len(rewards), steps - bar.n))
        if lines is not None:
            lines.update(len(act_l))
    bar.close()
    if lines is not None:
        lines.finish(f"{episodes} episodes")
    return Demonstrations.from_lists(obs_l, mask_l, act_l, ret_l, episodes, label.values)


def fit(
    policy: Any,  # sb3-contrib's MaskableActorCriticPolicy (its stubs do not type the calls below)
    data: Demonstrations,
    epochs: int,
    lr: float,
    batch_size: int,
    vf_coef: float,
    seed: int,
    smoothing: float = 0.0,
    temperature: float = 0.0,
    lr_decay: str = "none",
    heldout: np.ndarray | None = None,
    stage: str | None = None,
) -> dict[str, float]:
    """Cross-entropy on the masked distribution + value regression; returns fit statistics.

    ``smoothing`` > 0 fits the teacher's action with probability about ``1 - smoothing``
    instead of 1: the clone still plays the teacher's move (arg-max), but PPO, which samples,
    keeps exploring the alternatives it must compare the teacher's move with.
    ``temperature`` > 0 fits ``soft_targets`` of the recorded action values instead of the action
    (mixed with ``smoothing`` the same way).
    ``lr_decay`` "cosine" lowers the learning rate from ``lr`` to 0 over the fit's steps (the last
    epochs settle instead of jumping around the minimum). ``heldout`` (a boolean row mask, see
    ``holdout_rows``) keeps those rows out of the fit and keeps the epoch whose policy agrees best with
    the teacher on them: more epochs cannot overfit past the best one. ``stage`` (e.g. "bc") prints a
    line per epoch on stdout (training/stage_log.py).
    """
    import copy

    import torch

    if lr_decay not in ("none", "cosine"):
        raise ValueError(f"lr_decay must be 'none' or 'cosine', got {lr_decay!r}")
    gen = make_rng(seed)
    obs = torch.as_tensor(data.obs)
    masks = torch.as_tensor(data.masks)
    actions = torch.as_tensor(data.actions)
    returns = torch.as_tensor(data.returns)
    targets = None
    if temperature > 0:
        if data.values is None:
            raise ValueError("bc.temperature > 0 needs demonstrations with the teacher's action values")
        targets = torch.as_tensor(soft_targets(data.values, data.masks, data.actions, temperature))
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    policy.set_training_mode(True)
    n = len(data)
    held = None if heldout is None or not heldout.any() else np.flatnonzero(heldout)
    rows = None if held is None else np.flatnonzero(~np.asarray(heldout))
    n_fit = n if rows is None else len(rows)
    total_steps = int(epochs) * -(-n_fit // batch_size)
    step = 0
    best: tuple[float, int, dict[str, Any]] | None = None
    ce = vl = float("nan")
    lines = (
        None if stage is None else StageProgress(stage, int(epochs), f"fit epochs on {n_fit} decisions", 0.0)
    )
    for epoch in range(int(epochs)):
        order = gen.permutation(n) if rows is None else rows[gen.permutation(n_fit)]
        ce_sum = vl_sum = 0.0
        for start in range(0, n_fit, batch_size):
            idx = torch.as_tensor(order[start : start + batch_size])
            logp, values = _forward(policy, obs[idx], masks[idx])
            ce_loss = -logp.gather(1, actions[idx][:, None]).mean()
            if targets is not None:  # the soft target's cross-entropy (masked entries have target 0)
                ce_loss = -torch.where(targets[idx] > 0, targets[idx] * logp, 0.0).sum(1).mean()
            if smoothing > 0:  # target: (1 - eps) on the teacher's action + eps spread over the legal ones
                m = masks[idx]
                legal_ce = -(torch.where(m, logp, 0.0).sum(1) / m.sum(1)).mean()
                ce_loss = (1 - smoothing) * ce_loss + smoothing * legal_ce
            v_loss = torch.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = ce_loss + vf_coef * v_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            step += 1
            if lr_decay == "cosine":  # the rate for the next step: lr * (1 + cos(pi * done share)) / 2
                rate = lr * 0.5 * (1.0 + float(np.cos(np.pi * min(step, total_steps) / total_steps)))
                for group in opt.param_groups:
                    group["lr"] = rate
            ce_sum += ce_loss.item() * len(idx)
            vl_sum += v_loss.item() * len(idx)
        ce, vl = ce_sum / n_fit, vl_sum / n_fit
        if held is not None:
            policy.set_training_mode(False)
            score = agreement(policy, data, held)
            policy.set_training_mode(True)
            if best is None or score > best[0]:
                best = (score, epoch, copy.deepcopy(policy.state_dict()))
        if lines is not None:
            lines.done = epoch + 1
            lines.finish(f"cross-entropy {ce:.4f}")
    policy.set_training_mode(False)
    stats = {"cross_entropy": ce, "value_mse": vl}
    if best is not None:  # the best epoch's weights (its training losses are not re-measured)
        policy.load_state_dict(best[2])
        stats.update(holdout_agreement=best[0], best_epoch=best[1])
    return {**stats, "accuracy": agreement(policy, data)}


def _forward(policy: Any, obs: Any, masks: Any) -> tuple[Any, Any]:
    """The masked log-probabilities ``(B, A)`` and the values ``(B,)`` of an SB3 actor-critic in one
    pass (what ``evaluate_actions`` and ``get_distribution`` compute between them, the actor run once:
    a third less work per batch than calling both)."""
    import torch

    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    logits = torch.where(masks, policy.action_net(latent_pi), torch.tensor(float(MASKED_LOGIT)))
    return torch.log_softmax(logits, dim=1), policy.value_net(latent_vf).flatten()


def holdout_rows(lengths: list[int], share: float) -> np.ndarray:
    """The rows to hold out of concatenated batches of ``lengths`` rows: the last ``share`` of each
    (whole episodes but the first, since a batch is recorded episode after episode; the same rows stay
    held out when later batches join the aggregate)."""
    if not 0.0 <= share < 1.0:
        raise ValueError(f"a held-out share must be in [0, 1), got {share!r}")
    out = np.zeros(sum(lengths), dtype=bool)
    end = 0
    for m in lengths:
        end += m
        out[end - int(m * share) : end] = True
    return out


def fit_configured(
    policy: Any,
    data: Demonstrations,
    bc: BehaviourCloning,
    seed: int,
    heldout: np.ndarray | None = None,
    epochs: int | None = None,
    lr: float | None = None,
    stage: str | None = None,
) -> dict[str, float]:
    """``fit`` with the settings of a config's ``bc`` block (``epochs`` / ``lr`` given: a refit's own)."""
    return fit(
        policy,
        data,
        bc.epochs if epochs is None else epochs,
        float(bc.lr if lr is None else lr),
        bc.batch_size,
        float(bc.vf_coef),
        seed,
        float(bc.smoothing),
        float(bc.temperature),
        bc.lr_decay,
        heldout,
        stage,
    )


def agreement(policy: Any, data: Demonstrations, rows: np.ndarray | None = None) -> float:
    """Share of the demonstrations (``rows`` of them, or all) on which the policy's masked arg-max is
    the teacher's action. In chunks: a million rows through a wide network at once would need gigabytes."""
    import torch

    idx = np.arange(len(data)) if rows is None else np.asarray(rows)
    hits = 0
    with torch.no_grad():
        for start in range(0, len(idx), 16_384):
            part = idx[start : start + 16_384]
            dist = policy.get_distribution(torch.as_tensor(data.obs[part]), action_masks=data.masks[part])
            hits += int(np.sum(dist.distribution.probs.argmax(dim=1).numpy() == data.actions[part]))
    return hits / max(len(idx), 1)


def warm_start(
    model: MaskablePPO,
    cfg: TrainConfig,
    view: SingleAgentView,
    teacher: Agent,
    seed: int,
    progress: bool = False,
) -> dict[str, Any]:
    """Collect teacher demonstrations in ``view`` and fit ``model.policy``; the run.json record."""
    import time

    from kabu_envs.training.run import feature_inputs_of

    bc = cfg.bc
    t0 = time.time()
    say("bc", f"collecting {bc.steps} decisions of the teacher {bc.teacher!r}")
    data = collect(
        view, teacher, bc.steps, seed, float(cfg.reward_scale), progress, bc.temperature > 0, stage="bc"
    )
    t1 = time.time()
    fit_data = data.with_inputs(feature_inputs_of(cfg))
    heldout = holdout_rows([len(data)], bc.holdout)
    stats = fit_configured(model.policy, fit_data, bc, seed, heldout, stage="bc")
    return {
        "teacher": bc.teacher,
        "smoothing": bc.smoothing,
        "temperature": bc.temperature,
        "decisions": len(data),
        "episodes": data.episodes,
        "collect_seconds": round(t1 - t0, 1),
        "fit_seconds": round(time.time() - t1, 1),
        **{k: round(v, 4) for k, v in stats.items()},
    }
