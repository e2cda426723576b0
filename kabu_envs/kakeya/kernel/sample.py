"""Deals of the unseen Kakeya cards drawn on the kernel (numba): the expert's sampler without Python.

The same distribution as ``kabu_envs/kakeya/sampler.py`` (``DealSampler``): uniform over the
deals of the cards a seat cannot see that fit the other seats' hand counts and the suits each has shown
out of (with ``rensho_follow="free"`` a seat shown out of Rensho's suit may still hold Rensho). It reads
what the seat knows from a row of the kernel's state holding the position as the seat sees it (its own
hand, the played cards, the counts, the voids; the other hands empty) and writes a sampled deal into the
other hands of a row, with the kernel's own generator (``core.kernel``: SplitMix64, Lemire's bounded
draws, Fisher-Yates), so ``decide.py`` samples and evaluates a decision in one call. ``DealSampler``
stays in Python for ``expert_0_2`` (its draws are pinned).

Two exact paths, as in ``DealSampler``:

* **shuffles** (rejection): the unseen cards shuffled and dealt in seat order, kept if no seat holds a
  card it may not; uniform over the consistent deals;
* **counting**: cards with the same set of seats allowed to hold them form a group (at most the four
  suits and Rensho); the seats shown out of nothing that still has unseen cards count as one
  pseudo-seat; ``ways`` counts the deals of groups g.. into the pseudo-seats' remaining quotas (a
  multinomial per split of a group's cards, memoised per decision in a table keyed on the quotas); a
  sample picks each group's split with probability proportional to its count (float64 counts: at most
  39!/13!^3 ~ 8e16 deals, relative error 1e-16), deals the group's cards in a random order, and splits
  the pseudo-seat's cards uniformly among the seats it stands for.

A decision starts on shuffles; once a sample needs more than ``tries`` shuffles, the rest of the
decision's samples use the counting tables. Either path draws uniformly and the switch depends only on
how many shuffles failed (which says nothing about the deal a shuffle accepts), so every sample is an
independent uniform draw.

Scratch (``SamplerScratch``, allocated once per agent: the kernel allocates nothing) is the tuple
``sm``; ``setup`` fills it for a decision, ``draw`` deals one sample into a row.
"""

from __future__ import annotations

import numpy as np

from kabu_envs.core import kernel as core
from kabu_envs.kakeya.kernel.rules import bit, popcount
from kabu_envs.kakeya.kernel.spec import (
    O_MUST_FOLLOW,
    O_N,
    RENSHO,
    SUIT_BITS,
    SUITS,
    ZERO,
    Arrays,
    kernel_jit,
)

MAX_SEATS = 8  # per-seat arrays (six players at most)
MAX_GROUPS = 6  # four suits and Rensho, and a spare
RADIX = 14  # a constrained seat's quota is at most 13 cards
CODES = RADIX**4  # the table's key: the quotas of all pseudo-seats but the last (five at most)
ALL_CARDS = np.uint64((1 << 52) - 1)

# info columns
I_CARDS, I_CONSTRAINED, I_LUMP, I_PSEUDO, I_GROUPS, I_COUNTING, I_STAMP, I_FREE, I_TRIES = range(9)
NO_DEAL, BAD_COUNTS = -1, -2  # ``setup`` / ``draw`` failures (the Python side raises)

Scratch = tuple[np.ndarray, ...]


def make_scratch(tries: int = 32) -> Scratch:
    """The sampler's arrays (``sm``), in the order the kernel reads them."""
    info = np.zeros(16, dtype=np.int64)
    info[I_TRIES] = tries
    fact = np.ones(53, dtype=np.float64)
    for k in range(1, 53):
        fact[k] = fact[k - 1] * k
    return (
        info,
        np.zeros(52, dtype=np.int64),  # 1 the unseen cards
        np.zeros(MAX_SEATS, dtype=np.int64),  # 2 quota per relative seat
        np.zeros(MAX_SEATS, dtype=np.uint64),  # 3 the cards each seat may not hold
        np.zeros(MAX_SEATS, dtype=np.int64),  # 4 constrained seats (pseudo-seats 0..C-1)
        np.zeros(MAX_SEATS, dtype=np.int64),  # 5 free seats (the pseudo-seat C)
        np.zeros(MAX_SEATS, dtype=np.int64),  # 6 pseudo-seat quotas
        np.zeros(MAX_GROUPS, dtype=np.int64),  # 7 a group's allowed pseudo-seats (bits)
        np.zeros(MAX_GROUPS, dtype=np.int64),  # 8 a group's size
        np.zeros((MAX_GROUPS, 52), dtype=np.int64),  # 9 a group's cards
        np.zeros((MAX_GROUPS + 1, CODES), dtype=np.float64),  # 10 ways, memo
        np.zeros((MAX_GROUPS + 1, CODES), dtype=np.int64),  # 11 the memo's stamps
        np.zeros((MAX_GROUPS + 1, MAX_SEATS), dtype=np.int64),  # 12 quotas per group depth
        np.zeros((MAX_GROUPS + 1, MAX_SEATS), dtype=np.int64),  # 13 a split per group depth
        np.zeros(52, dtype=np.int64),  # 14 shuffled cards
        np.zeros(MAX_GROUPS, dtype=np.int64),  # 15 a group's number of allowed pseudo-seats
        np.zeros((MAX_GROUPS, MAX_SEATS), dtype=np.int64),  # 16 a group's allowed pseudo-seats
        fact,  # 17 k! as floats
        np.zeros(MAX_SEATS, dtype=np.uint64),  # 18 pseudo-seat hands
    )


@kernel_jit
def setup(template: int, st: Arrays, opts: np.ndarray, sm: Scratch) -> int:  # pragma: no cover
    """Read a decision's constraints from row ``template`` (seat 0 = the deciding seat; the other hands
    empty): the unseen cards, each seat's count and forbidden cards. Returns the number of unseen cards,
    or ``BAD_COUNTS`` when the counts do not add up to them."""
    g, counts, voids, hands, played = st.g, st.counts, st.voids, st.hands, st.played
    info, cards, quota, forbid, cs, fs = sm[0], sm[1], sm[2], sm[3], sm[4], sm[5]
    n = opts[O_N]
    unseen = ALL_CARDS & ~played[template] & ~hands[template, 0]
    k = 0
    for c in range(52):
        if (unseen >> np.uint64(c)) & np.uint64(1):
            cards[k] = c
            k += 1
    rensho = g[template, RENSHO]
    total = 0
    nc = nf = 0
    for s in range(1, n):
        quota[s] = counts[template, s]
        total += quota[s]
        mask = ZERO
        for suit in range(SUITS):
            if (voids[template, s] >> suit) & 1:
                mask |= SUIT_BITS[suit]
        if not opts[O_MUST_FOLLOW]:
            mask &= ~bit(rensho)
        forbid[s] = mask & unseen
        if quota[s] > 0:
            if forbid[s] != ZERO:
                cs[nc] = s
                nc += 1
            else:
                fs[nf] = s
                nf += 1
    info[I_CARDS], info[I_CONSTRAINED], info[I_FREE] = k, nc, nf
    info[I_LUMP] = 1 if nf > 0 else 0
    info[I_PSEUDO] = nc + info[I_LUMP]
    info[I_COUNTING] = 0  # shuffles first; the tables are built when they fail
    if total != k:
        return BAD_COUNTS
    return k


@kernel_jit
def uniform(rng: np.ndarray) -> float:  # pragma: no cover
    """A float in [0, 1) from the generator's top 53 bits."""
    return float(core.next_u64(rng, 0) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel_jit
def build_groups(sm: Scratch) -> None:  # pragma: no cover
    """The counting path's groups: cards by the pseudo-seats allowed to hold them, the groups with
    fewer allowed pseudo-seats first (the last group's split is then forced)."""
    info, cards, quota, forbid, cs = sm[0], sm[1], sm[2], sm[3], sm[4]
    pq, gmask, gsize, gcards, gm, gal = sm[6], sm[7], sm[8], sm[9], sm[15], sm[16]
    nc, lump = info[I_CONSTRAINED], info[I_LUMP]
    for j in range(nc):
        pq[j] = quota[cs[j]]
    if lump:
        free = 0
        for i in range(info[I_FREE]):
            free += quota[sm[5][i]]
        pq[nc] = free
    ng = 0
    for i in range(info[I_CARDS]):
        c = cards[i]
        mask = 0
        for j in range(nc):
            if not (forbid[cs[j]] >> np.uint64(c)) & np.uint64(1):
                mask |= 1 << j
        if lump:
            mask |= 1 << nc
        at = -1
        for h in range(ng):
            if gmask[h] == mask:
                at = h
        if at < 0:
            at = ng
            gmask[at], gsize[at] = mask, 0
            ng += 1
        gcards[at, gsize[at]] = c
        gsize[at] += 1
    # insertion sort by (allowed count, mask), moving the cards along
    for h in range(1, ng):
        j = h
        while j > 0:
            a, b = gmask[j - 1], gmask[j]
            ka, kb = popcount(np.uint64(a)), popcount(np.uint64(b))
            if ka < kb or (ka == kb and a <= b):
                break
            gmask[j - 1], gmask[j] = b, a
            size = max(gsize[j - 1], gsize[j])
            for t in range(size):
                x = gcards[j - 1, t]
                gcards[j - 1, t] = gcards[j, t]
                gcards[j, t] = x
            gsize[j - 1], gsize[j] = gsize[j], gsize[j - 1]
            j -= 1
    for h in range(ng):
        m = 0
        for j in range(info[I_PSEUDO]):
            if (gmask[h] >> j) & 1:
                gal[h, m] = j
                m += 1
        gm[h] = m
    info[I_GROUPS] = ng
    info[I_STAMP] += 1


@kernel_jit
def ways(g: int, target: float, sm: Scratch) -> float:  # pragma: no cover
    """With ``target < 0``: the deals of groups g.. into the quotas ``qbuf[g]`` (memoised). Else the
    split of group g whose cumulative count first passes ``target`` is left in ``xbuf[g]`` (a draw)."""
    info, gsize, memo, mstamp, qbuf, xbuf = sm[0], sm[8], sm[10], sm[11], sm[12], sm[13]
    gm, gal, fact = sm[15], sm[16], sm[17]
    npseudo, ng = info[I_PSEUDO], info[I_GROUPS]
    q = qbuf[g]
    if g == ng:
        for j in range(npseudo):
            if q[j] != 0:
                return 0.0
        return 1.0
    code = 0
    scale = 1
    for j in range(npseudo - 1):
        code += q[j] * scale
        scale *= RADIX
    if target < 0 and mstamp[g, code] == info[I_STAMP]:
        return memo[g, code]
    k, m = gsize[g], gm[g]
    x = xbuf[g]
    nxt = qbuf[g + 1]
    acc = 0.0
    if m > 0:
        for i in range(m):
            x[i] = 0
        last = gal[g, m - 1]
        while True:
            used = 0
            for i in range(m - 1):
                used += x[i]
            rest = k - used
            if 0 <= rest <= q[last]:
                x[m - 1] = rest
                for j in range(npseudo):
                    nxt[j] = q[j]
                weight = fact[k]
                for i in range(m):
                    nxt[gal[g, i]] -= x[i]
                    weight /= fact[x[i]]
                weight *= ways(g + 1, -1.0, sm)
                acc += weight
                if target >= 0 and acc > target:
                    return acc
            # the next split (an odometer over the first m - 1 allowed pseudo-seats)
            i = 0
            while i < m - 1:
                x[i] += 1
                if x[i] <= q[gal[g, i]] and used + 1 <= k:
                    break
                used -= x[i] - 1
                x[i] = 0
                i += 1
            if i >= m - 1:
                break
    elif k == 0:
        for j in range(npseudo):
            nxt[j] = q[j]
        acc = ways(g + 1, -1.0, sm)
    if target < 0:
        memo[g, code] = acc
        mstamp[g, code] = info[I_STAMP]
    return acc


@kernel_jit
def draw_counted(
    row: int, st: Arrays, opts: np.ndarray, sm: Scratch, rng: np.ndarray
) -> int:  # pragma: no cover
    """One sample through the counting tables into row ``row``'s other hands (0, or ``NO_DEAL``)."""
    hands = st.hands
    info, quota, cs, fs, pq = sm[0], sm[2], sm[4], sm[5], sm[6]
    gsize, gcards, qbuf, xbuf, perm, gm, gal, phand = (
        sm[8],
        sm[9],
        sm[12],
        sm[13],
        sm[14],
        sm[15],
        sm[16],
        sm[18],
    )
    npseudo, nc = info[I_PSEUDO], info[I_CONSTRAINED]
    for s in range(1, opts[O_N]):
        hands[row, s] = ZERO  # (the seats with no cards keep none)
    for j in range(npseudo):
        qbuf[0, j] = pq[j]
        phand[j] = ZERO
    for g in range(info[I_GROUPS]):
        total = ways(g, -1.0, sm)
        if total <= 0.0:
            return NO_DEAL
        ways(g, uniform(rng) * total, sm)  # the split, in xbuf[g]
        k = gsize[g]
        core.shuffle(rng, 0, gcards[g], k)
        at = 0
        for i in range(gm[g]):
            p = gal[g, i]
            for t in range(at, at + xbuf[g, i]):
                phand[p] |= bit(gcards[g, t])
            at += xbuf[g, i]
        # (the draw left qbuf[g + 1] at the quotas after this split)
    for j in range(nc):
        hands[row, cs[j]] = phand[j]
    if info[I_LUMP]:
        lump = phand[nc]
        k = 0
        for c in range(52):
            if (lump >> np.uint64(c)) & np.uint64(1):
                perm[k] = c
                k += 1
        core.shuffle(rng, 0, perm, k)
        at = 0
        for i in range(info[I_FREE]):
            s = fs[i]
            hand = ZERO
            for t in range(at, at + quota[s]):
                hand |= bit(perm[t])
            hands[row, s] = hand
            at += quota[s]
    return 0


@kernel_jit
def draw(row: int, st: Arrays, opts: np.ndarray, sm: Scratch, rng: np.ndarray) -> int:  # pragma: no cover
    """One uniform consistent deal of the unseen cards into row ``row``'s hands of seats 1..n-1 (after
    ``setup``): shuffles while they work, else the counting tables. 0, or ``NO_DEAL``."""
    hands = st.hands
    info, cards, quota, forbid, perm = sm[0], sm[1], sm[2], sm[3], sm[14]
    n, k = opts[O_N], info[I_CARDS]
    if not info[I_COUNTING]:
        for i in range(k):
            perm[i] = cards[i]
        for _ in range(info[I_TRIES]):
            core.shuffle(rng, 0, perm, k)
            at = 0
            ok = True
            for s in range(1, n):
                hand = ZERO
                for t in range(at, at + quota[s]):
                    hand |= bit(perm[t])
                at += quota[s]
                if hand & forbid[s] != ZERO:
                    ok = False
                    break
                hands[row, s] = hand
            if ok:
                return 0
        info[I_COUNTING] = 1
        build_groups(sm)
    return draw_counted(row, st, opts, sm, rng)


@kernel_jit
def draw_many(
    template: int, row: int, st: Arrays, opts: np.ndarray, sm: Scratch, rng: np.ndarray, out: np.ndarray
) -> int:  # pragma: no cover
    """``out.shape[0]`` samples of row ``template``'s unseen cards (``out[k, s]``: seat s's hand), drawn
    in row ``row``; 0, or the failure code. (The tests' and the trump/lead choices' entry.)"""
    hands = st.hands
    n = opts[O_N]
    code = setup(template, st, opts, sm)
    if code < 0:
        return code
    for k in range(out.shape[0]):
        code = draw(row, st, opts, sm, rng)
        if code < 0:
            return code
        for s in range(n):
            out[k, s] = hands[row, s] if s > 0 else hands[template, 0]
    return 0
