#!/usr/bin/env python3
"""NumPy references of pairgossip's synchronous rounds, as a researcher would
write them: one vectorised iteration over all nodes. Each prints one JSON
object with the median time per round.

Usage: numpy_ref.py sync   --n N --d D --iters T [--reps R] [--seed S]
       numpy_ref.py metric --n N --d D --iters T [--reps R] [--seed S]
       numpy_ref.py metric-async --n N --d D --iters E [--warmup W] [--reps R] [--seed S]

sync: Algorithm 2, AUC logistic, psi = 0.
metric: Algorithm 2, metric learning (hinge, b = 2, psi = the PSD cone) on a
synthetic set like the paper's (10 classes, means in a 5-dimensional
subspace): the hinge test for every node, the rank-one gradients, then one
batched np.linalg.eigh of all n matrices -z_k and the reconstruction
theta_k = gamma V max(w, 0) V^T. Its cost does not depend on the round (the
batch is always all n matrices), so a few rounds give the cost of any.
metric-async: Algorithm 3 on the same set, one event at a time as a
researcher would write it (one np.linalg.eigh per endpoint), timed per event
after a warm-up.

Only the round is timed (the data, graph edges and state are built first);
the edge is drawn uniformly from a Watts-Strogatz-like ring (each node joined
to its 2 successors), which does not change the cost of a round.
"""
import argparse
import json
import statistics
import time

import numpy as np


def sync_round(X, lab, Y, Z, Theta, Bar, edges, t, rng, c=1.0):
    i, j = edges[rng.integers(len(edges))]
    zi = (Z[i] + Z[j]) / 2
    Z[i] = zi
    Z[j] = zi
    Y[i], Y[j] = Y[j], Y[i]
    D = X - X[Y]                                   # x_k - y_k for every node
    m = np.einsum("ij,ij->i", D, Theta)            # margins at the current theta
    w = np.where(lab > lab[Y], -1.0 / (1.0 + np.exp(m)), 0.0)  # phi'(m) = -sigmoid(-m)
    Z += w[:, None] * D
    gamma = c / np.sqrt(t)
    Theta[:] = -gamma * Z
    Bar *= 1.0 - 1.0 / t
    Bar += Theta / t


def cmd_sync(a):
    rng = np.random.default_rng(a.seed)
    n, d = a.n, a.d
    lab = np.where(rng.integers(3, size=n) == 0, 1, -1)
    X = rng.standard_normal((n, d)) + 0.5 * (lab[:, None] > 0)
    k = np.arange(n)
    edges = np.concatenate([np.stack([k, (k + 1) % n], 1), np.stack([k, (k + 2) % n], 1)])
    Y = np.arange(n)
    Z = np.zeros((n, d))
    Theta = np.zeros((n, d))
    Bar = np.zeros((n, d))
    sync_round(X, lab, Y, Z, Theta, Bar, edges, 1, rng)  # warm-up
    times = []
    t = 2
    for _ in range(a.reps):
        t0 = time.perf_counter()
        for _ in range(a.iters):
            sync_round(X, lab, Y, Z, Theta, Bar, edges, t, rng)
            t += 1
        times.append((time.perf_counter() - t0) / a.iters)
    med = statistics.median(times)
    print(json.dumps({"impl": "numpy", "numpy": np.__version__, "n": n, "d": d, "iters": a.iters, "reps": a.reps,
                      "seconds_per_round": med, "ns_per_node_update": med * 1e9 / n}))


def metric_round(X, lab, Y, Z, Theta, Bar, edges, t, rng, b=2.0, c=0.01):
    i, j = edges[rng.integers(len(edges))]
    zi = (Z[i] + Z[j]) / 2
    Z[i] = zi
    Z[j] = zi
    Y[i], Y[j] = Y[j], Y[i]
    D = X - X[Y]                                          # delta_k = x_k - y_k
    s = np.where(lab == lab[Y], 1.0, -1.0)
    dist = np.einsum("ni,nij,nj->n", D, Theta, D)         # delta^T theta delta
    g = np.where(s * (b - dist) < 1, s, 0.0)              # hinge active
    Z += g[:, None, None] * (D[:, :, None] * D[:, None, :])
    w, V = np.linalg.eigh(-Z)                             # batched, ascending
    np.maximum(w, 0, out=w)
    gamma = c / np.sqrt(t)
    Theta[:] = gamma * np.matmul(V * w[:, None, :], V.transpose(0, 2, 1))
    Bar *= 1.0 - 1.0 / t
    Bar += Theta / t


def cmd_metric(a):
    rng = np.random.default_rng(a.seed)
    n, d = a.n, a.d
    S = min(5, d)
    U, _ = np.linalg.qr(rng.standard_normal((d, S)))
    means = rng.standard_normal((10, S)) @ U.T
    lab = np.arange(n) % 10
    X = means[lab] + 0.5 * rng.standard_normal((n, d))
    k = np.arange(n)
    edges = np.concatenate([np.stack([k, (k + 1) % n], 1), np.stack([k, (k + 2) % n], 1)])
    Y = np.arange(n)
    Z = np.zeros((n, d, d))
    Theta = np.zeros((n, d, d))
    Bar = np.zeros((n, d, d))
    metric_round(X, lab, Y, Z, Theta, Bar, edges, 1, rng)  # warm-up
    times = []
    t = 2
    for _ in range(a.reps):
        t0 = time.perf_counter()
        for _ in range(a.iters):
            metric_round(X, lab, Y, Z, Theta, Bar, edges, t, rng)
            t += 1
        times.append((time.perf_counter() - t0) / a.iters)
    med = statistics.median(times)
    print(json.dumps({"impl": "numpy", "numpy": np.__version__, "n": n, "d": d, "iters": a.iters, "reps": a.reps,
                      "ms_per_iteration": med * 1e3, "eig_per_iteration": n}))


def metric_event(X, lab, Y, Z, Theta, Bar, cnt, invp, edges, rng, b=2.0, c=0.01):
    """One event of Algorithm 3 (metric learning, psi = the PSD cone): swap,
    average, then for each endpoint the hinge test at its theta, the rank-one
    gradient / p_k, one np.linalg.eigh of -z_k and theta_k = gamma(m_k) V max(w, 0) V^T."""
    i, j = edges[rng.integers(len(edges))]
    Y[i], Y[j] = Y[j], Y[i]
    zi = (Z[i] + Z[j]) / 2
    Z[i] = zi
    Z[j] = zi
    for k in (i, j):
        dk = X[k] - X[Y[k]]
        s = 1.0 if lab[k] == lab[Y[k]] else -1.0
        if s * (b - dk @ Theta[k] @ dk) < 1:
            Z[k] += invp[k] * s * np.outer(dk, dk)
        cnt[k] += 1
        m = cnt[k] * invp[k]
        w, V = np.linalg.eigh(-Z[k])
        Theta[k] = (c / np.sqrt(m)) * ((V * np.maximum(w, 0)) @ V.T)
        Bar[k] += (Theta[k] - Bar[k]) / cnt[k]


def cmd_metric_async(a):
    rng = np.random.default_rng(a.seed)
    n, d = a.n, a.d
    S = min(5, d)
    U, _ = np.linalg.qr(rng.standard_normal((d, S)))
    means = rng.standard_normal((10, S)) @ U.T
    lab = np.arange(n) % 10
    X = means[lab] + 0.5 * rng.standard_normal((n, d))
    k = np.arange(n)
    edges = np.concatenate([np.stack([k, (k + 1) % n], 1), np.stack([k, (k + 2) % n], 1)])
    deg = np.bincount(edges.ravel(), minlength=n)
    invp = len(edges) / deg                                 # 1/p_k = |E|/(2 d_k), |E| undirected here
    Y = np.arange(n)
    Z = np.zeros((n, d, d))
    Theta = np.zeros((n, d, d))
    Bar = np.zeros((n, d, d))
    cnt = np.zeros(n)
    for _ in range(a.warmup):
        metric_event(X, lab, Y, Z, Theta, Bar, cnt, invp, edges, rng)
    times = []
    for _ in range(a.reps):
        t0 = time.perf_counter()
        for _ in range(a.iters):
            metric_event(X, lab, Y, Z, Theta, Bar, cnt, invp, edges, rng)
        times.append((time.perf_counter() - t0) / a.iters)
    med = statistics.median(times)
    print(json.dumps({"impl": "numpy", "numpy": np.__version__, "n": n, "d": d, "events": a.iters, "reps": a.reps,
                      "ms_per_event": med * 1e3, "eig_per_event": 2}))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sync")
    s.add_argument("--n", type=int, default=1_000_000)
    s.add_argument("--d", type=int, default=16)
    s.add_argument("--iters", type=int, default=5)
    s.add_argument("--reps", type=int, default=5)
    s.add_argument("--seed", type=int, default=1)
    m = sub.add_parser("metric")
    m.add_argument("--n", type=int, default=1000)
    m.add_argument("--d", type=int, default=40)
    m.add_argument("--iters", type=int, default=10)
    m.add_argument("--reps", type=int, default=5)
    m.add_argument("--seed", type=int, default=1)
    ma = sub.add_parser("metric-async")
    ma.add_argument("--n", type=int, default=1000)
    ma.add_argument("--d", type=int, default=40)
    ma.add_argument("--iters", type=int, default=500, help="events timed per rep")
    ma.add_argument("--warmup", type=int, default=2000, help="events run first, untimed")
    ma.add_argument("--reps", type=int, default=5)
    ma.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.cmd == "sync":
        cmd_sync(a)
    elif a.cmd == "metric-async":
        cmd_metric_async(a)
    else:
        cmd_metric(a)


if __name__ == "__main__":
    main()
