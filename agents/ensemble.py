"""Several policy files played as one: the mean of their masked log-probabilities.

Why: two clones of the same teacher, fitted on different decisions, make partly independent fitting
errors; averaging their log-probabilities cancels some of them (measured in
docs/studies/kakeya_models.md#two-clones-together), at the sum of the members' cost.

A model directory holding an ensemble has a ``policy.json`` like any model (so names, the registry and
``find_policy`` find it the same way), with another ``format``, naming its members (name and the SHA-256
of each member's ``policy.json``). A member is an ordinary policy file, found by its name: under the
ensemble's ``members/<name>/`` when it carries it (a member that is no model of its own, e.g. a stage
specialist), else the model of that name (``models_dir()``, then the shipped models) -- so a shipped
ensemble names the shipped models it plays instead of storing copies of them:

```json
{
  "format": "kabu-envs policy ensemble", "format_version": 1, "combine": "mean_log_probs",
  "members": [{"name": "ei2_kakeya", "record_sha256": "..."}, ...],
  "trained_for": {...}, "training": {...}
}
```

Each member is read and validated by ``read_policy`` (its own weights' checksum included) and the
record pins each member's ``policy.json`` by its SHA-256, so no member can be swapped: a model of that
name with other bytes is refused, naming where it was looked for. Every member
must have been trained for the same table (``trained_for``). Nothing here can run code either.

The combination, per decision: each member's masked log-probabilities as ``Policy.masked_probs``
computes them before its softmax (log-sum-exp normalised, illegal actions at -1e8, normalised again),
summed in member order in float32 and divided by the number of members; the ensemble's probabilities
are the softmax of that mean (a normalised geometric mean of the members' distributions), so arg-max
play is the action the members prefer on average in log space. ``masked_probs_batch`` equals it row for
row, bit for bit, as each member's batch path does.

Views (optional ``"views": "<name>"``, one member is then enough): the game's policy symmetries
(agents/symmetry.py, e.g. Kakeya's suits renamed). Every member then also plays every relabeled view of
the decision that its symmetries allow, and the mean runs over (view, member) pairs, each view's
log-probabilities mapped back to the decision's own actions: the same cancelling of fitting errors,
bought with forward passes instead of training. The sums run view by view, member by member, through
the batch path for one decision too, so a decision gets the same bits alone and in any batch.

Stages (optional ``"stages": "<split>"``): the game's split of its decisions into named stages
(agents/stages.py, e.g. Kakeya's ``endgame``: the last four tricks). A member entry may then name the
stages it plays (``"stages": ["endgame"]``; without it, every stage); each decision's mean runs over the
members of its stage only (and over the views, if any), and every stage needs one. A specialist fitted
to one stage's decisions thus replaces the generalists there, and each decision pays only for its own
members. It too runs through the batch path for one decision.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kabu_envs.agents.features import prefix_sets
from kabu_envs.agents.policy_file import (
    ENSEMBLE_FORMAT,
    MASKED_LOGIT,
    RECORD_FILE,
    WEIGHTS_FILE,
    Policy,
    _bad,
    _check_training,
    _int,
    _normalise,
    _normalise_rows,
    _obj,
    _str,
    batch_masks_of,
    read_policy,
    read_record,
    record_path,
    softmax,
    softmax_rows,
)
from kabu_envs.agents.stages import StageSplit
from kabu_envs.agents.symmetry import SymmetricViews

ENSEMBLE_FORMAT_VERSION = 1
COMBINE_RULES = ("mean_log_probs",)  # the first is what a new ensemble uses
MEMBERS_DIR = "members"
_TOP_KEYS = {"format", "format_version", "combine", "members", "trained_for", "training"}
_MEMBER_KEYS = {"name", "record_sha256"}
_OPTIONAL_TOP_KEYS = {"views", "stages"}
_OPTIONAL_MEMBER_KEYS = {"stages"}


@dataclass
class PolicyEnsemble:
    """Members that play as one policy; the playing surface of ``Policy`` (``masked_probs``,
    ``masked_probs_batch``, ``check_fits``, ``describe``), not its weights (no ``init_from``)."""

    members: tuple[Policy, ...]
    names: tuple[str, ...]
    training: dict[str, Any]
    combine: str = COMBINE_RULES[0]
    source: Path | None = None
    views: str | None = None
    stages: str | None = None
    member_stages: tuple[tuple[str, ...] | None, ...] | None = None  # per member (None: every stage)
    _scale: np.float32 = field(default=np.float32(1.0), repr=False)
    _split: StageSplit | None = field(default=None, repr=False)
    _plays: np.ndarray | None = field(default=None, repr=False)  # (members, stages) bool
    _views: SymmetricViews | None = field(default=None, repr=False)
    _sources: dict[str | None, np.ndarray] | None = field(default=None, repr=False)
    _plan: dict[str | None, tuple[str | None, int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        where = str(self.source or "ensemble")
        if len(self.members) < (1 if self.views else 2):
            raise _bad(where, f"an ensemble needs at least 2 members (1 with views), got {len(self.members)}")
        if self.stages is None and self.member_stages is not None and any(self.member_stages):
            raise _bad(where, "members name stages, but the ensemble names no stage split (stages)")
        if len(self.names) != len(self.members):
            raise _bad(where, f"{len(self.names)} names for {len(self.members)} members")
        for name in self.names:
            _member_name(name, where)
        if len(set(self.names)) != len(self.names):
            raise _bad(where, f"member names must differ, got {list(self.names)}")
        if self.combine not in COMBINE_RULES:
            raise _bad(where, f"unknown combine rule {self.combine!r}; known: {list(COMBINE_RULES)}")
        _check_training(self.training, f"{where}: training")
        first = self.members[0]
        for name, m in zip(self.names[1:], self.members[1:], strict=True):
            if m.trained_for != first.trained_for or (m.obs_size, m.num_actions) != (
                first.obs_size,
                first.num_actions,
            ):
                raise _bad(
                    where,
                    f"member {name!r} was trained for {m.describe()}, member {self.names[0]!r} for "
                    f"{first.describe()}: every member must fit the same table",
                )
        self._scale = np.float32(len(self.members))
        self._plan = self._input_plan()
        if self.views is not None:
            try:
                self._views = SymmetricViews(
                    first.trained_for["game"], self.views, first.trained_for["env_options"]
                )
            except ValueError as e:
                raise _bad(where, f"views: {e}") from None
            sources = {f: self._views.input_source(f, self.obs_size) for f in self._plan}
            if all(src is not None for src in sources.values()):
                self._sources = {f: src for f, src in sources.items() if src is not None}
        if self.stages is not None:
            self._plays = self._stage_plan(where)

    def _stage_plan(self, where: str) -> np.ndarray:
        """``(members, stages)``: which member plays which stage of the split; every stage needs one."""
        assert self.stages is not None
        try:
            self._split = StageSplit(self.trained_for["game"], self.stages, self.trained_for["env_options"])
        except ValueError as e:
            raise _bad(where, f"stages: {e}") from None
        split = self._split
        chosen = self.member_stages if self.member_stages is not None else (None,) * len(self.members)
        if len(chosen) != len(self.members):
            raise _bad(where, f"{len(chosen)} stage lists for {len(self.members)} members")
        plays = np.zeros((len(self.members), len(split.names)), dtype=bool)
        for k, (name, stages) in enumerate(zip(self.names, chosen, strict=True)):
            if stages is None:
                plays[k] = True
                continue
            if not stages or len(set(stages)) != len(stages):
                raise _bad(where, f"member {name!r}: its stages must be distinct stage names, got {stages}")
            for stage in stages:
                try:
                    plays[k, split.index(stage)] = True
                except ValueError as e:
                    raise _bad(where, f"member {name!r}: {e}") from None
        idle = [split.names[j] for j in np.flatnonzero(~plays.any(axis=0))]
        if idle:
            raise _bad(where, f"no member plays stage(s) {idle} of the {self.stages!r} split")
        return plays

    def _input_plan(self) -> dict[str | None, tuple[str | None, int]]:
        """For each distinct member input (its features' name), the input computed for it and its
        width: an input whose features another member's extend (``PolicyFeatures.extends``) is that
        member's input's prefix, not computed again."""
        game = self.trained_for["game"]
        widths = {m.features: m.input_size for m in self.members}
        chains = {f: prefix_sets(game, f) for f in widths if f is not None}
        plan: dict[str | None, tuple[str | None, int]] = {}
        for f, width in widths.items():
            covering = [g for g, chain in chains.items() if f is not None and f in chain]
            source = max(covering, key=lambda g: len(chains[g])) if covering else f
            plan[f] = (source, width)
        return plan

    # the table, as ``Policy`` has it
    @property
    def trained_for(self) -> dict[str, Any]:
        return self.members[0].trained_for

    @property
    def obs_size(self) -> int:
        return self.members[0].obs_size

    @property
    def num_actions(self) -> int:
        return self.members[0].num_actions

    def describe(self) -> str:
        views = f" over the {self.views} views" if self.views else ""
        names = list(self.names)
        if self.stages is not None and self.member_stages is not None:
            chosen = zip(names, self.member_stages, strict=True)
            names = [n if st is None else f"{n} [{'+'.join(st)}]" for n, st in chosen]
        stages = f", {self.stages} stages" if self.stages else ""
        return (
            f"an ensemble of {len(self.members)} ({', '.join(names)}){views}{stages}; "
            f"{self.members[0].describe()}"
        )

    def check_fits(self, **expect: Any) -> None:
        """``Policy.check_fits`` (every member fits the same table, so the first one answers)."""
        label = expect.pop("label", None) or f"model {str(self.source or '')!r}"
        self.members[0].check_fits(**expect, label=f"{label} (an ensemble)")

    # playing
    def masked_log_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The mean of the members' masked log-probabilities (float32; illegal actions near -1e8)."""
        mask = np.asarray(action_mask).astype(bool).reshape(-1)
        if mask.size != self.num_actions:
            raise ValueError(f"action mask of size {mask.size} for a policy with {self.num_actions} actions")
        if self._views is not None or self._split is not None:
            obs = np.asarray(observation, dtype=np.float32).reshape(1, -1)
            return self._mean_log_probs(obs, mask[None])[0]
        inputs = self._shared_inputs(np.asarray(observation, dtype=np.float32).reshape(1, -1))
        acc = np.zeros(self.num_actions, dtype=np.float32)
        for m in self.members:
            z = m.actor(inputs[m.features][0])
            acc += _normalise(np.where(mask, _normalise(z), MASKED_LOGIT))
        return acc / self._scale

    def _checked(self, observations: np.ndarray) -> np.ndarray:
        """A batch of observations ``(B, obs_size)`` as float32, or a ``ValueError`` naming the shapes."""
        obs = np.asarray(observations, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(
                f"observations of shape {obs.shape} for a policy trained on size {self.obs_size} "
                f"(expected (B, {self.obs_size}); {self.describe()})"
            )
        return obs

    def _shared_inputs(self, observations: np.ndarray) -> dict[str | None, np.ndarray]:
        """Each distinct member input of a batch ``(B, obs_size)``, computed once (members with the same
        features share them, and a set another extends is read off as that one's prefix: the features,
        not the networks, are most of a member's cost)."""
        obs = self._checked(observations)
        computed: dict[str | None, np.ndarray] = {}
        for m in self.members:
            source = self._plan[m.features][0]
            if source == m.features and source not in computed:
                computed[source] = m.inputs(obs)
        return {f: computed[source][:, :width] for f, (source, width) in self._plan.items()}

    def masked_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """float32 probabilities: the softmax of ``masked_log_probs``."""
        return softmax(self.masked_log_probs(observation, action_mask))

    def masked_probs_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``masked_probs`` of every row, ``(B, num_actions)`` float32, equal to it bit for bit."""
        masks = batch_masks_of(action_masks, self.num_actions)
        if self._views is not None or self._split is not None:
            return softmax_rows(self._mean_log_probs(np.asarray(observations, dtype=np.float32), masks))
        inputs = self._shared_inputs(observations)
        acc = np.zeros(masks.shape, dtype=np.float32)
        for m in self.members:
            acc += _normalise_rows(
                np.where(masks, _normalise_rows(m.actor_batch(inputs[m.features])), MASKED_LOGIT)
            )
        return softmax_rows(acc / self._scale)

    def _mean_log_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Over the views and the stages: each decision's mean of the (view, member) masked
        log-probabilities, mapped back to the decision's own actions, over the views that apply to it (the
        identity alone without views) and the members of its stage (every member without stages); a
        member runs only on the rows of its stages. Summed view by view (in the views' order) and member
        by member, each row computed exactly as alone (``actor_batch``), so a decision gets the same sums
        alone and in any batch."""
        views = self._views
        obs = self._checked(observations)
        if views is not None:
            row, element = views.select(obs)
            view_masks = views.gather(masks, row, element, views.action_source)
            if self._sources is not None:  # the views' inputs are the decisions' relabeled
                own = self._shared_inputs(obs)
                inputs = {f: views.gather(own[f], row, element, src) for f, src in self._sources.items()}
            else:  # computed from the views themselves
                inputs = self._shared_inputs(views.gather(obs, row, element, views.obs_source))
        else:
            row, element = np.arange(len(obs)), np.zeros(len(obs), dtype=np.int64)
            view_masks, inputs = masks, self._shared_inputs(obs)
        # (members, B): which member plays each decision
        plays = None if self._split is None or self._plays is None else self._plays[:, self._split.of(obs)]
        logs = []
        for k, m in enumerate(self.members):
            at = slice(None) if plays is None or plays[k].all() else np.flatnonzero(plays[k][row])
            lp = np.zeros(view_masks.shape, dtype=np.float32)
            x = inputs[m.features][at]
            if len(x):
                z = _normalise_rows(m.actor_batch(x))
                part = _normalise_rows(np.where(view_masks[at], z, MASKED_LOGIT))
                lp[at] = part if views is None else views.back(part, element[at])
            logs.append(lp)
        acc = np.zeros(masks.shape, dtype=np.float32)
        for g in np.unique(element):
            at = element == g
            for lp in logs:
                acc[row[at]] += lp[at]
        members = len(self.members) if plays is None else plays.sum(axis=0)
        count = np.bincount(row, minlength=len(masks)) * members
        return acc / count.astype(np.float32)[:, None]

    def record(self, member_shas: Sequence[str]) -> dict[str, Any]:
        """The ensemble's ``policy.json`` content, given its members' record checksums."""
        views = {} if self.views is None else {"views": self.views}
        stages = {} if self.stages is None else {"stages": self.stages}
        chosen = self.member_stages or (None,) * len(self.names)
        return (
            {
                "format": ENSEMBLE_FORMAT,
                "format_version": ENSEMBLE_FORMAT_VERSION,
                "combine": self.combine,
                "members": [
                    {"name": n, "record_sha256": s} | ({} if st is None else {"stages": list(st)})
                    for n, s, st in zip(self.names, member_shas, chosen, strict=True)
                ],
                "trained_for": self.trained_for,
                "training": self.training,
            }
            | views
            | stages
        )


def _member_name(name: Any, where: str) -> str:
    _str(name, f"{where}: member name")
    if name in (".", "..") or any(c in name for c in "/\\:"):
        raise _bad(where, f"member name {name!r} must be a plain folder name")
    return str(name)


def _member_places(rec_path: Path, name: str) -> list[Path]:
    """Where member ``name`` of the ensemble at ``rec_path`` may be, in order: its own ``members/``
    folder, the models folder (``$KABU_MODELS_DIR``), the shipped models, then the ``members/`` folders
    of the other ensembles there (a member that is no model of its own, shared by two ensembles, is
    stored once; the checksum decides)."""
    from kabu_envs.agents.registry import SHIPPED_MODELS, models_dir

    places = [rec_path.parent / MEMBERS_DIR / name / RECORD_FILE]
    roots = (models_dir(), SHIPPED_MODELS)
    candidates = [root / name / RECORD_FILE for root in roots]
    candidates += [p for root in roots for p in sorted(root.glob(f"*/{MEMBERS_DIR}/{name}/{RECORD_FILE}"))]
    for place in candidates:
        if place.resolve() not in {p.resolve() for p in places}:
            places.append(place)
    return places


def _find_member(rec_path: Path, name: str, sha: str, where: str) -> Path:
    """The ``policy.json`` of member ``name`` with SHA-256 ``sha``: the ensemble's own copy when it carries
    one, else the first model of that name with those bytes (``_member_places``); a missing member or
    one whose bytes differ is refused, naming the places looked in."""
    own, *models = _member_places(rec_path, name)
    found = [own] if own.is_file() else [p for p in models if p.is_file()]
    for place in found:
        if hashlib.sha256(place.read_bytes()).hexdigest() == sha:
            return place
    if not found:
        looked = ", ".join(str(p.parent) for p in _member_places(rec_path, name))
        raise _bad(where, f"member {name!r} is missing (looked in {looked})")
    raise _bad(
        where,
        f"member {name!r}: its {RECORD_FILE} does not match the record_sha256 recorded here "
        f"(found at {', '.join(str(p) for p in found)})",
    )


def member_records(path: str | Path) -> dict[str, Path]:
    """Each member's ``policy.json`` as the ensemble at ``path`` plays it (name -> path, checked)."""
    rec_path, rec = read_record(path)
    where = str(rec_path)
    return {
        str(m["name"]): _find_member(rec_path, _member_name(m["name"], where), str(m["record_sha256"]), where)
        for m in rec["members"]
    }


def read_ensemble(path: str | Path) -> PolicyEnsemble:
    """Read and validate an ensemble (its record, every member and the members' checksums)."""
    rec_path, rec = read_record(path)
    where = str(rec_path)
    _obj(rec, where, _TOP_KEYS, _OPTIONAL_TOP_KEYS)
    if rec["format"] != ENSEMBLE_FORMAT:
        raise _bad(where, f"format {rec['format']!r} is not {ENSEMBLE_FORMAT!r}")
    if rec["format_version"] != ENSEMBLE_FORMAT_VERSION or isinstance(rec["format_version"], bool):
        raise _bad(where, f"format_version {rec['format_version']!r} is not supported (this reader: 1)")
    entries = rec["members"]
    if not isinstance(entries, list):
        raise _bad(where, f"members must be a list, got {type(entries).__name__}")
    views = rec.get("views")
    if views is not None:
        _str(views, f"{where}: views")
    stages = rec.get("stages")
    if stages is not None:
        _str(stages, f"{where}: stages")
    _int(len(entries), f"{where}: number of members", low=1 if views else 2)
    names, members, member_stages = [], [], []
    for i, entry in enumerate(entries):
        _obj(entry, f"{where}: members[{i}]", _MEMBER_KEYS, _OPTIONAL_MEMBER_KEYS)
        own = entry.get("stages")
        if own is not None and (not isinstance(own, list) or not all(isinstance(x, str) for x in own)):
            raise _bad(where, f"members[{i}].stages must be a list of stage names, got {own!r}")
        member_stages.append(None if own is None else tuple(own))
        name = _member_name(entry["name"], f"{where}: members[{i}]")
        sha = _str(entry["record_sha256"], f"{where}: members[{i}].record_sha256")
        member_rec = _find_member(rec_path, name, sha, where)
        names.append(name)
        members.append(read_policy(member_rec))
    ens = PolicyEnsemble(
        members=tuple(members),
        names=tuple(names),
        training=rec["training"],
        combine=rec["combine"],
        source=rec_path.parent,
        views=views,
        stages=stages,
        member_stages=tuple(member_stages),
    )
    if rec["trained_for"] != ens.trained_for:
        raise _bad(where, f"trained_for {rec['trained_for']} is not its members' {ens.trained_for}")
    return ens


def read_model(path: str | Path) -> Policy | PolicyEnsemble:
    """A model to play: a single policy file or an ensemble, whichever ``path``'s record declares
    (``read_policy`` refuses an ensemble's record, naming its members)."""
    _, rec = read_record(path)
    if isinstance(rec, dict) and rec.get("format") == ENSEMBLE_FORMAT:
        return read_ensemble(path)
    return read_policy(path)


def write_ensemble(
    members: Mapping[str, str | Path],
    out_dir: str | Path,
    training: Mapping[str, Any],
    views: str | None = None,
    stages: str | None = None,
    member_stages: Mapping[str, Sequence[str]] | None = None,
    named: Collection[str] = (),
) -> Path:
    """Copy each member's policy file (name -> model directory or path) byte for byte into
    ``out_dir/members/<name>/``, except the members of ``named`` (models of that name, byte for byte
    the file given: the record names them and its reader finds them, no copy), and write the ensemble's
    ``policy.json`` (``views``: the game's policy
    symmetries to average over too, agents/symmetry.py; ``stages``: the game's stage split, with
    ``member_stages`` naming the stages of the members that do not play every stage, agents/stages.py);
    returns its path.

    The members are read first (a bad member or a table mismatch raises before anything is written).
    """
    read = {name: read_policy(path) for name, path in members.items()}
    chosen = dict(member_stages or {})
    unknown = sorted(set(chosen) - set(read))
    if unknown:
        raise ValueError(f"stages given for {unknown}, which are not members ({list(read)})")
    if set(named) - set(read):
        raise ValueError(f"named {sorted(set(named) - set(read))}, which are not members ({list(read)})")
    ens = PolicyEnsemble(
        members=tuple(read.values()),
        names=tuple(read),
        training=dict(training),
        views=views,
        stages=stages,
        member_stages=tuple(tuple(chosen[n]) if n in chosen else None for n in read) if chosen else None,
    )
    out = Path(out_dir)
    if (out / MEMBERS_DIR).exists():
        shutil.rmtree(out / MEMBERS_DIR)
    out.mkdir(parents=True, exist_ok=True)
    shas = []
    for name, src in members.items():
        src_rec = record_path(src)
        if name in named:  # found by name when read: the model of that name must be these bytes
            shas.append(hashlib.sha256(src_rec.read_bytes()).hexdigest())
            _find_member(out / RECORD_FILE, name, shas[-1], f"member {name!r}")
            continue
        dst = out / MEMBERS_DIR / name
        dst.mkdir(parents=True)
        for f in (RECORD_FILE, WEIGHTS_FILE):
            shutil.copyfile(src_rec.with_name(f), dst / f)
        shas.append(hashlib.sha256((dst / RECORD_FILE).read_bytes()).hexdigest())
    (out / RECORD_FILE).write_text(json.dumps(ens.record(shas), indent=2) + "\n", encoding="utf-8")
    read_ensemble(out)  # what was written reads back
    return out / RECORD_FILE
