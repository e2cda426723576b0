"""A whole card decision of the kernel expert in one kernel call (numba): sample, weigh, evaluate, race.

``decide_cards`` draws consistent deals of the unseen cards with the kernel's sampler (``sample.py``),
weighs each by how likely it makes the cards already played to the current trick (``trick_weight``),
and evaluates every candidate card on it (play-outs of the decision's kind: the scripted policy,
``search.py``, or a small network, ``netplay.py``; or the exact end-game solver: ``search.py``). One
function for both kinds, so the network's search has the same sampler, race and batched path over
numba's threads (``decide_rows``, the network's scratch per thread) as the scripted one. The samples are
spent as a race (``adaptive``): after ``min_samples`` and then
every ``check_every`` samples, a candidate whose paired difference from the best (the same deals) is
more than ``z`` standard errors below it drops out; the decision stops when one candidate is left, when
every candidate left has had the same value on every deal so far (nothing tells them apart), or at
``max_samples``. Close decisions get up to ``max_samples`` deals, clear ones few.

**The inference model** (``trick_weight``). The observation shows the cards of the current trick and who
played each (not who played the cards of the finished tricks: only the voids they revealed, which the
sampler already honours). Before my turn, each earlier seat of the trick chose its card from its own
hand; a sampled deal gives that hand back (the hand now plus the card played), so the deal can be
rewound to the start of the trick and the trick replayed: each card's likelihood under the play model
is ``1 - eps`` when the scripted policy (``search.policy``, the scripted player bit for bit) plays it
from that seat's view, else ``eps`` shared among that seat's other legal cards. A deal's weight is the
product over the trick's earlier cards; the values are weighted means. The rewind clears the void a
seat showed in this trick (it may have shown it earlier too: the leader's view of the voids can be one
suit short). ``eps >= 1`` turns the weighting off (every deal weighs 1).
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from kabu_envs.core import kernel as core
from kabu_envs.kakeya.kernel.netplay import net_playout
from kabu_envs.kakeya.kernel.rules import bit, legal_plays, play, popcount, start_trick
from kabu_envs.kakeya.kernel.sample import Scratch, draw, setup
from kabu_envs.kakeya.kernel.search import copy_row, playout, policy, solve
from kabu_envs.kakeya.kernel.spec import (
    O_MUST_FOLLOW,
    O_N,
    RANKS,
    RENSHO,
    T_LEADER,
    T_LED,
    T_NUM,
    TRUMP,
    ZERO,
    Arrays,
    Fields,
    State,
    kernel_jit,
    kernel_jit_parallel,
)

SCRIPTED, NETWORK = 0, 1  # the play-out kinds: the rules of thumb, or the network (``netplay.py``)


@kernel_jit
def trick_weight(
    row: int,
    scratch: int,
    rmin: int,
    eps: float,
    st: Arrays,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
) -> float:  # pragma: no cover
    """The likelihood of the current trick's earlier cards in row ``row``'s sampled deal under the play
    model (module docstring); row ``scratch`` is rewound to the trick's start and replayed."""
    if eps >= 1.0:
        return 1.0
    g, cur, counts, voids, t_card, hands, t_bits, played = (
        st.g,
        st.current_player,
        st.counts,
        st.voids,
        st.t_card,
        st.hands,
        st.t_bits,
        st.played,
    )
    n = opts[O_N]
    if g[row, T_NUM] == 0:
        return 1.0
    copy_row(row, scratch, st, opts, rewards, over)
    led = g[row, T_LED]
    rensho = g[row, RENSHO]
    for s in range(n):
        c = t_card[row, s]
        if c < 0:
            continue
        cb = bit(c)
        hands[scratch, s] |= cb
        counts[scratch, s] += 1
        played[scratch] &= ~cb
        t_card[scratch, s] = -1
        t_bits[scratch, s] = ZERO
        if c // RANKS != led and c != rensho:
            voids[scratch, s] &= ~(1 << led)
    g[scratch, T_NUM] = 0
    g[scratch, T_LED] = -1
    cur[scratch] = g[row, T_LEADER]
    like = 1.0
    for _ in range(n):
        s = cur[scratch]
        if s == 0:
            break
        c = t_card[row, s]
        if c < 0:
            break  # (a seat with no card in the trick cannot be to play before me)
        if policy(scratch, st, opts, rmin) == c:  # one compiled policy, shared with the search
            like *= 1.0 - eps
        else:
            legal = legal_plays(hands[scratch, s], g[scratch, T_LED], rensho, opts[O_MUST_FOLLOW])
            k = popcount(legal)
            like *= eps / (k - 1) if k > 1 else 1.0
        play(scratch, c, st, opts, rewards, over)
    return like


@kernel_jit
def evaluate(
    work: int,
    card: int,
    exact: bool,
    rmin: int,
    kind: int,
    plies: int,
    net: Fields,
    st: Arrays,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    keys: np.ndarray,
    bounds: np.ndarray,
    stamps: np.ndarray,
    stamp: int,
) -> float:  # pragma: no cover
    """The value of playing ``card`` in row ``work`` (a sampled deal): the deal finished by play-outs of
    ``kind`` (``SCRIPTED``; ``NETWORK``: ``net`` plays ``plies`` cards, then the rules of thumb), or by
    the solver when ``exact``; rows ``work + 1``.. work."""
    copy_row(work, work + 1, st, opts, rewards, over)
    play(work + 1, card, st, opts, rewards, over)
    if exact:
        return solve(work + 1, -np.inf, np.inf, st, opts, rewards, over, keys, bounds, stamps, stamp)
    if kind == NETWORK:
        return net_playout(work + 1, st, opts, rewards, over, rmin, plies, net)
    return playout(work + 1, st, opts, rewards, over, rmin)


@kernel_jit
def race(
    k: int, values: np.ndarray, weights: np.ndarray, alive: np.ndarray, z: float, delta: float
) -> int:  # pragma: no cover
    """Drop the candidates more than ``z`` standard errors (weighted, paired over the ``k`` deals) below
    the best; returns the number left, or 0 when nothing more is to be learnt: every candidate left ties
    the best on every deal, or is within ``delta`` of it (its deficit's upper bound, the mean plus ``z``
    standard errors, below ``delta``: the choice between them costs less than ``delta`` a deal).
    ``values[j, i]``: candidate i's value on deal j, for the ``alive.shape[0]`` candidates."""
    c = alive.shape[0]
    best, best_v = -1, -np.inf
    for i in range(c):
        if alive[i]:
            v = 0.0
            for j in range(k):
                v += weights[j] * values[j, i]
            if v > best_v:
                best, best_v = i, v
    sw = sw2 = 0.0
    for j in range(k):
        sw += weights[j]
        sw2 += weights[j] * weights[j]
    n_eff = sw * sw / sw2 if sw2 > 0 else 0.0
    left = 0
    differ = False
    for i in range(c):
        if not alive[i] or i == best:
            continue
        mean = 0.0
        same = True
        for j in range(k):
            d = values[j, best] - values[j, i]
            mean += weights[j] * d
            if d != 0.0:
                same = False
        mean /= sw
        var = 0.0
        for j in range(k):
            d = values[j, best] - values[j, i] - mean
            var += weights[j] * d * d
        var /= sw
        se = math.sqrt(var / n_eff)
        if mean > 0.0 and mean > z * se:
            alive[i] = False
        else:
            left += 1
            differ = differ or (not same and mean + z * se >= delta)
    if not differ:
        return 0
    return left + 1


@kernel_jit
def decide_cards(
    template: int,
    cards: np.ndarray,
    exact: bool,
    rmin: int,
    kind: int,
    plies: int,
    net: Fields,
    min_samples: int,
    check_every: int,
    z: float,
    delta: float,
    eps: float,
    arrays: Fields,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    keys: np.ndarray,
    bounds: np.ndarray,
    stamps: np.ndarray,
    stamp: int,
    sm: Scratch,
    rng: np.ndarray,
    key: np.uint64,
    values: np.ndarray,
    weights: np.ndarray,
    alive: np.ndarray,
    totals: np.ndarray,
) -> int:  # pragma: no cover
    """A card decision from row ``template`` (the position as the seat sees it): up to
    ``values.shape[0]`` sampled deals, each weighed and every live candidate played on it (module
    docstring), the play-outs of ``kind`` (``evaluate``; ``net``: the network's weights and scratch,
    ``netplay.net_playout``, read only when ``kind`` is ``NETWORK``). ``totals[i]``: candidate i's
    weighted total over the deals drawn, ``alive``: the candidates still in the race. ``rng[0]`` is seeded
    from ``key`` (``core.seed_state``). Returns the
    number of deals drawn, or a sampler failure code (< 0)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    rng[0] = core.seed_state(key, ZERO, ZERO)
    code = setup(template, st, opts, sm)
    if code < 0:
        return code
    work = template + 1
    c = cards.shape[0]
    for i in range(c):
        alive[i] = True
        totals[i] = 0.0
    k = 0
    limit = values.shape[0]
    while k < limit:
        copy_row(template, work, st, opts, rewards, over)
        code = draw(work, st, opts, sm, rng)
        if code < 0:
            return code
        w = trick_weight(work, work + 1, rmin, eps, st, opts, rewards, over)
        weights[k] = w
        for i in range(c):
            if alive[i]:
                v = evaluate(
                    work,
                    cards[i],
                    exact,
                    rmin,
                    kind,
                    plies,
                    net,
                    st,
                    opts,
                    rewards,
                    over,
                    keys,
                    bounds,
                    stamps,
                    stamp,
                )
                values[k, i] = v
                totals[i] += w * v
        k += 1
        look = k >= min_samples and (k - min_samples) % check_every == 0 and k < limit
        if look and race(k, values, weights, alive, z, delta) <= 1:
            break
    return k


@kernel_jit
def lead_strength(hand: np.uint64, trump: int, rensho: int) -> int:  # pragma: no cover
    """The scripted lead rule's count of sure winners in ``hand``: Rensho, the trump A and K, the aces
    (``KakeyaExpertAgent._strength``)."""
    sure = 0
    for c in range(52):
        if (hand >> np.uint64(c)) & np.uint64(1):
            rank = c % RANKS
            if c == rensho or (c // RANKS == trump and rank >= RANKS - 2) or rank == RANKS - 1:
                sure += 1
    return sure


@kernel_jit
def trump_totals(
    templates: np.ndarray,
    receivers: np.ndarray,
    chooser: int,
    partner: int,
    strength: int,
    samples: int,
    rmin: int,
    arrays: Fields,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    rng: np.ndarray,
    perm: np.ndarray,
    totals: np.ndarray,
) -> None:  # pragma: no cover
    """The trump choice's play-outs: row ``templates[j]`` is the deal with the j-th candidate trump (no
    card dealt); each of ``samples`` shuffled packs is dealt to ``receivers`` in turn, the chooser leads
    when its hand is strong enough (``strength`` sure winners) else its partner, and the deal is played
    out under every candidate trump: ``totals[j]`` adds its values in sample order (the packs drawn with
    ``rng[0]`` as it stands: the caller seeds it)."""
    st = State(*arrays)  # (named at once: Python passes the plain tuple, spec.Fields)
    g, counts, hands = st.g, st.counts, st.hands
    n = opts[O_N]
    work = templates.shape[0]
    for c in range(52):
        perm[c] = c
    nr = receivers.shape[0]
    for _ in range(samples):
        core.shuffle(rng, 0, perm, 52)
        for j in range(templates.shape[0]):
            copy_row(templates[j], work, st, opts, rewards, over)
            for s in range(n):
                hands[work, s] = ZERO
            for i in range(52):
                hands[work, receivers[i % nr]] |= bit(perm[i])
            for s in range(n):
                counts[work, s] = popcount(hands[work, s])
            sure = lead_strength(hands[work, chooser], g[work, TRUMP], g[work, RENSHO])
            start_trick(work, chooser if sure >= strength else partner, st, n)
            totals[j] += playout(work, st, opts, rewards, over, rmin)


# ==================================================================================================
# many card decisions at once: one per row of a batch, spread over numba's threads
# ==================================================================================================
@core.inner_jit  # (compiled into ``decide_rows``, not cached: its parallel loop types it anew)
def scratch_of(sms: Scratch, w: int) -> Scratch:  # pragma: no cover
    """Workspace ``w``'s sampler scratch: entry ``w`` of each stacked array of ``sms`` (``make_scratch``'s
    arrays with a leading workspace axis), as the tuple ``decide_cards`` reads."""
    return (
        sms[0][w],
        sms[1][w],
        sms[2][w],
        sms[3][w],
        sms[4][w],
        sms[5][w],
        sms[6][w],
        sms[7][w],
        sms[8][w],
        sms[9][w],
        sms[10][w],
        sms[11][w],
        sms[12][w],
        sms[13][w],
        sms[14][w],
        sms[15][w],
        sms[16][w],
        sms[17][w],
        sms[18][w],
    )


@core.inner_jit  # (compiled into ``decide_rows``, not cached: its parallel loop types it anew)
def net_of(nets: Fields, w: int) -> Fields:  # pragma: no cover
    """Workspace ``w``'s network: the shared weights (``w1, b1, w2, b2, gone_sum``) and entry ``w`` of
    each stacked scratch array (``hidden, idx, hand_acc, gone_acc``: a thread's own), as the tuple
    ``decide_cards`` reads."""
    return (
        nets[0],
        nets[1],
        nets[2],
        nets[3],
        nets[4],
        nets[5][w],
        nets[6][w],
        nets[7][w],
        nets[8][w],
    )


@core.inner_jit  # (compiled into ``decide_rows``, not cached: its parallel loop types it anew)
def decide_job(
    j: int,
    w: int,
    cards: np.ndarray,
    ncards: np.ndarray,
    exact: np.ndarray,
    keys: np.ndarray,
    samples: np.ndarray,
    rmin: int,
    kind: int,
    plies: int,
    nets: Fields,
    race_params: np.ndarray,
    arrays: Fields,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    base: np.ndarray,
    tkeys: np.ndarray,
    tbounds: np.ndarray,
    tstamps: np.ndarray,
    tstamp: np.ndarray,
    sms: Scratch,
    rngs: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    alive: np.ndarray,
    totals: np.ndarray,
    drawn: np.ndarray,
) -> None:  # pragma: no cover
    """Decision ``j`` (template row j) in workspace ``w``: its template copied to the workspace's first
    row, then ``decide_cards`` there with the workspace's table, sampler scratch, generator and values
    (``values[w]``) and network scratch (``net_of``); the results in row j of ``drawn``, ``weights``
    (the deals' weights), ``alive`` and ``totals``. A decision's result depends on its template and key only
    (the table and the sampler's
    memo are caches: a fresh stamp per decision), not on the workspace or what it decided before.
    (``arrays``: the plain tuple, as Python passes ``decide_cards`` its state: one compiled version.)"""
    st = State(*arrays)
    t = base[w]
    copy_row(j, t, st, opts, rewards, over)
    tstamp[w] += 1
    c = ncards[j]
    s = samples[j]
    drawn[j] = decide_cards(
        t,
        cards[j, :c],
        exact[j],
        rmin,
        kind,
        plies,
        net_of(nets, w),
        np.int64(race_params[0]),
        np.int64(race_params[1]),
        race_params[2],
        race_params[3],
        race_params[4],
        arrays,
        opts,
        rewards,
        over,
        tkeys[w],
        tbounds[w],
        tstamps[w],
        tstamp[w],
        scratch_of(sms, w),
        rngs[w],
        keys[j],
        values[w, :s],
        weights[j, :s],
        alive[j, :c],
        totals[j, :c],
    )


@kernel_jit_parallel
def decide_rows(
    cards: np.ndarray,
    ncards: np.ndarray,
    exact: np.ndarray,
    keys: np.ndarray,
    samples: np.ndarray,
    rmin: int,
    kind: int,
    plies: int,
    nets: Fields,
    race_params: np.ndarray,
    arrays: Fields,
    opts: np.ndarray,
    rewards: np.ndarray,
    over: np.ndarray,
    base: np.ndarray,
    tkeys: np.ndarray,
    tbounds: np.ndarray,
    tstamps: np.ndarray,
    tstamp: np.ndarray,
    sms: Scratch,
    rngs: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    alive: np.ndarray,
    totals: np.ndarray,
    drawn: np.ndarray,
) -> None:  # pragma: no cover
    """``len(keys)`` card decisions (``decide_cards`` each: decision j's template in row j, its candidates
    ``cards[j, :ncards[j]]``, its generator's key, its budget ``samples[j]``; ``race_params`` min_samples,
    check_every, z, delta, eps; the play-outs ``kind``, ``plies`` and ``nets``: ``net_of``) over
    ``len(base)`` workspaces, one per thread: workspace w decides j = w, w + W, ... in turn
    (``decide_job``). Each decision's result is its own, so any thread count gives the
    same actions."""
    W = base.shape[0]
    J = keys.shape[0]
    for w in prange(W):
        for j in range(w, J, W):
            decide_job(
                j,
                w,
                cards,
                ncards,
                exact,
                keys,
                samples,
                rmin,
                kind,
                plies,
                nets,
                race_params,
                arrays,
                opts,
                rewards,
                over,
                base,
                tkeys,
                tbounds,
                tstamps,
                tstamp,
                sms,
                rngs,
                values,
                weights,
                alive,
                totals,
                drawn,
            )
