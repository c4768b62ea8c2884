#!/usr/bin/env python3
"""An independent reading of the network model's semantics (docs/networks.md
§2–§4, docs/design.md §2.4 and §2.5), written from the documents, not from
the engine: Algorithm 2 (sync) or Algorithm 3 (async) for the AUC logistic
loss with psi = 0 under message loss (two-way or one-way) and churn with
geometric sessions, replayed on the activations a run wrote (--write-edges)
and compared with the running averages it saved (--save-model).

Usage: netcheck.py DATA.csv EDGES.txt THETA_BAR.npy --seed S --iters T
                   [--algo sync|async] [--loss Q] [--oneway]
                   [--churn-up U --churn-down D] [--delay A..B] [--gamma-c C]

--delay A..B (async): each delivered message arrives tau events after it was
sent, tau uniform on {A, ..., B} (A = B: constant), docs/networks.md §5.

async assumes a regular graph (cycle, torus, ...): p_k = 2/n for every node.

DATA.csv: rows x_1..x_d,label (two classes; the larger label is +1), as the
run read it (no preprocessing). Prints one JSON object: the largest
difference between the two sets of running averages, relative to their
largest entry, and counts of what happened. Exit status 1 if it exceeds 1e-9.

The draws are the counter-based ones of docs/networks.md §2: rng.Hash(seed,
a, b) (SplitMix64's finaliser, internal/rng) keyed by the domains of
network/model.go; a loss draw is unit(Hash(dLoss, t, dir)) >= q, a
session's length ceil(log(1 - u)/log1p(-1/mean)) (Python's log and log1p:
the same numbers as the engine's but in the rarest cases, which the
tolerance would show as a mismatch of a whole session).
"""
import argparse
import json
import math
import sys

import numpy as np

M64 = (1 << 64) - 1


def mix(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & M64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & M64
    x ^= x >> 31
    return x


def hash3(seed, a, b):
    key = mix((seed + 0x9E3779B97F4A7C15) & M64)
    return mix(mix(key ^ ((a + 0x632BE59BD9B4E019) & M64)) ^ ((b + 0xD1B54A32D192ED03) & M64))


def unit(h):
    return (h >> 11) * 2.0 ** -53


def hash_int_n(seed, a, b, n):
    """A uniform integer in [0, n) from (seed, a, b): Lemire's multiply and
    reject, the redraws from successive counters (internal/rng)."""
    h = hash3(seed, a, b)
    k = 0
    while True:
        x = h if k == 0 else mix((h + k * 0x9E3779B97F4A7C15) & M64)
        k += 1
        m = x * n
        lo = m & M64
        if lo >= n or lo >= ((1 << 64) - n) % n:
            return m >> 64


HASH_LOSS, HASH_CHURN, HASH_CHURN_START, HASH_DELAY = 16, 17, 18, 19  # network/model.go's domains
DIR_TO_J, DIR_TO_I = 0, 1


class Churn:
    """Node k's sessions: session 0 starts at t = 1, online with probability
    U/(U + D); session s has a geometric length of mean U (online) or D."""

    def __init__(self, seed, up, down):
        self.up, self.down = up, down
        self.dom = hash3(seed, HASH_CHURN, 0)
        self.dom_start = hash3(seed, HASH_CHURN_START, 0)
        self.state = {}  # k -> [on, start, next, s]

    def length(self, k, s, on):
        mean = self.up if on else self.down
        if mean <= 1:
            return 1
        u = unit(hash3(self.dom, k, s))
        x = math.ceil(math.log(1 - u) / math.log1p(-1 / mean))
        return max(1, x)

    def online(self, k, t):
        st = self.state.get(k)
        if st is None or t < st[1]:
            on = unit(hash3(self.dom_start, k, 0)) < self.up / (self.up + self.down)
            st = [on, 1, 1 + self.length(k, 0, on), 0]
            self.state[k] = st
        while t >= st[2]:
            st[0], st[3] = not st[0], st[3] + 1
            st[1], st[2] = st[2], st[2] + self.length(k, st[3], st[0])
        return st[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("edges")
    ap.add_argument("theta_bar")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--iters", type=int, required=True)
    ap.add_argument("--loss", type=float, default=0)
    ap.add_argument("--oneway", action="store_true")
    ap.add_argument("--churn-up", type=float, default=0)
    ap.add_argument("--churn-down", type=float, default=0)
    ap.add_argument("--gamma-c", type=float, default=1)
    ap.add_argument("--algo", choices=["sync", "async"], default="sync")
    ap.add_argument("--delay", default="", help="A..B: uniform delays (async)")
    a = ap.parse_args()
    a.delay_ab = tuple(map(int, a.delay.split(".."))) if a.delay else None

    raw = np.loadtxt(a.data, delimiter=",", ndmin=2)
    X, lab = raw[:, :-1], raw[:, -1]
    hi = lab.max()
    L = np.where(lab == hi, 1, -1)
    n, d = X.shape

    edges = {}
    for line in open(a.edges):
        line = line.split("#")[0].split()
        if line:
            t, i, j = map(int, line)
            edges[t] = (i, j)

    d_loss = hash3(a.seed, HASH_LOSS, 0)
    churn = Churn(a.seed, a.churn_up, a.churn_down) if a.churn_up > 0 else None

    y = np.arange(n)  # node k's auxiliary point is x_{y[k]}
    z = np.zeros((n, d))
    theta = np.zeros((n, d))  # theta_k of node k's last step
    bar = np.zeros((n, d))
    cnt = np.zeros(n, dtype=np.int64)  # online rounds
    counts = {"exchanges": 0, "one_way": 0, "lost": 0, "idle": 0, "offline_steps_skipped": 0}
    if a.algo == "async":
        run_async(a, X, L, edges, d_loss, churn, y, z, theta, bar, cnt, counts)
    else:
        run_sync(a, X, L, edges, d_loss, churn, y, z, theta, bar, cnt, counts)
    got = np.load(a.theta_bar)
    scale = max(np.abs(bar).max(), np.abs(got).max(), 1e-300)
    diff = float(np.abs(bar - got).max() / scale)
    out = dict(counts, algo=a.algo, n=n, d=d, iters=a.iters, max_rel_diff=diff, max_abs_bar=float(np.abs(bar).max()))
    print(json.dumps(out))
    sys.exit(0 if diff <= 1e-9 else 1)


def deliveries(a, d_loss, t):
    """Whether i receives and whether j receives at iteration t (§3)."""
    if a.oneway:
        return unit(hash3(d_loss, t, DIR_TO_I)) >= a.loss, unit(hash3(d_loss, t, DIR_TO_J)) >= a.loss
    ok = unit(hash3(d_loss, t, 2)) >= a.loss
    return ok, ok


def exchange(i, j, to_i, to_j, z, y, counts):
    """The exchange on (i, j): both messages, the paper's averaging and swap;
    one, the receiver averages with what it got (no swap); none, nothing."""
    zi, zj = z[i].copy(), z[j].copy()
    if to_i and to_j:
        v = (zi + zj) / 2
        z[i], z[j] = v, v
        y[i], y[j] = y[j], y[i]
        counts["exchanges"] += 1
    elif to_i or to_j:
        if to_j:
            z[j] = (zj + zi) / 2
        else:
            z[i] = (zi + zj) / 2
        counts["one_way"] += 1
    else:
        counts["lost"] += 1


def grad_factor(theta_k, diff):
    """d/dm log(1 + e^(-m)) = -sigma(-m) at m = theta_k . diff."""
    m = float(theta_k @ diff)
    return -(1 / (1 + math.exp(m))) if m <= 0 else -(math.exp(-m) / (1 + math.exp(-m)))


def run_async(a, X, L, edges, d_loss, churn, y, z, theta, bar, cnt, counts):
    """Algorithm 3 (§2.5): an event on (i, j) with both endpoints online
    exchanges what the loss model delivers, then both endpoints step with
    1/p_k = n/2 and their own clocks m_k = c_k/p_k; an event with an
    endpoint offline does nothing."""
    n = X.shape[0]
    inv_p = n / 2
    d_delay = hash3(a.seed, HASH_DELAY, 0)
    queue = {}  # arrival event -> [(receiver, z sent, y sent, swap)], in send order
    counts["dropped_offline"] = 0

    def tau(t, direction):
        lo, hi = a.delay_ab
        return lo + hash_int_n(d_delay, t, direction, hi - lo + 1)

    for t in range(1, a.iters + 1):
        # Arrivals first (§5): the receiver, if online, averages with the z
        # sent and, after a handshake, takes the observation sent.
        for to, zs, ys, swap in queue.pop(t, []):
            if churn is not None and not churn.online(to, t):
                counts["dropped_offline"] += 1
                continue
            z[to] = (z[to] + zs) / 2
            if swap:
                y[to] = ys
        if t not in edges:
            continue
        i, j = edges[t]
        if churn is not None and not (churn.online(i, t) and churn.online(j, t)):
            counts["idle"] += 1
            continue
        to_i, to_j = deliveries(a, d_loss, t)
        tau_j = tau(t, DIR_TO_J) if a.delay_ab and to_j else 0
        tau_i = tau(t, DIR_TO_I) if a.delay_ab and to_i else 0
        if tau_i == 0 and tau_j == 0:
            exchange(i, j, to_i, to_j, z, y, counts)
        else:
            # The message carries the sender's z and y before the event; a
            # direction with tau = 0 is applied now, from the old values.
            swap = to_i and to_j
            counts["delayed"] = counts.get("delayed", 0) + 1
            if to_j and tau_j > 0:
                queue.setdefault(t + tau_j, []).append((j, z[i].copy(), y[i], swap))
            if to_i and tau_i > 0:
                queue.setdefault(t + tau_i, []).append((i, z[j].copy(), y[j], swap))
            if to_j and tau_j == 0:
                z[j] = (z[j] + z[i]) / 2
                if swap:
                    y[j] = y[i]
            if to_i and tau_i == 0:
                z[i] = (z[i] + z[j]) / 2
                if swap:
                    y[i] = y[j]
        for k in (i, j):
            diff = X[k] - X[y[k]]
            if L[k] > L[y[k]]:
                z[k] = z[k] + (inv_p * grad_factor(theta[k], diff)) * diff
            cnt[k] += 1
            m = float(cnt[k]) * inv_p
            theta[k] = -(a.gamma_c / math.sqrt(m)) * z[k]
            c = float(cnt[k])
            bar[k] = (1 - 1 / c) * bar[k] + (1 / c) * theta[k]


def run_sync(a, X, L, edges, d_loss, churn, y, z, theta, bar, cnt, counts):
    """Algorithm 2 (§2.4): the round's exchange on (i, j) if both are online,
    then every online node steps with gamma(t) of the global t and averages
    theta-bar over its own online rounds."""
    n = X.shape[0]
    for t in range(1, a.iters + 1):
        on = np.ones(n, dtype=bool)
        if churn is not None:
            on = np.array([churn.online(k, t) for k in range(n)])
        if t in edges:
            i, j = edges[t]
            if not (on[i] and on[j]):
                counts["idle"] += 1
            else:
                to_i, to_j = deliveries(a, d_loss, t)
                exchange(i, j, to_i, to_j, z, y, counts)
        gamma = a.gamma_c / math.sqrt(t)
        for k in range(n):
            if not on[k]:
                counts["offline_steps_skipped"] += 1
                continue
            diff = X[k] - X[y[k]]
            if L[k] > L[y[k]]:
                z[k] = z[k] + grad_factor(theta[k], diff) * diff
            cnt[k] += 1
            theta[k] = -gamma * z[k]
            c = float(cnt[k])
            bar[k] = (1 - 1 / c) * bar[k] + (1 / c) * theta[k]


if __name__ == "__main__":
    main()
