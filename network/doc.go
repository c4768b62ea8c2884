// Package network models the network that gossip runs on, beyond the
// paper's perfect static graph: message loss (two-way or one-way), node
// churn, message delays, changing graphs with per-phase link failures,
// recorded edge streams, and activation models (uniform edges, node clocks,
// given edge probabilities, adaptive pickers). docs/networks.md gives each
// model's semantics in the paper's notation; this comment is a summary.
//
// A Model is a plain value (its zero value is the paper's network, and
// IsPerfect reports it); New builds the per-run Net from a Model, the graph
// and the run's seed. The engine consults a Net at three points of an
// iteration t (a round of Algorithm 2, an event of Algorithm 3, 1-based):
//
//   - the edge draw: Net.Edge (or, when Net.DefaultEdges is true, the engine
//     keeps its own uniform draw from its edge stream);
//   - the exchange: Net.Delivered says which of the two messages arrive
//     (message loss and link failures), Net.Delay how late (Algorithm 3);
//   - the node step: Net.Online says whether a node is online (churn).
//
// Every random draw is counter-based: a function of (seed, t, direction),
// (seed, node, session index) or (seed, phase instance, edge index), through
// internal/rng's Hash under the package's own identifiers (16–23, clear of
// the engine's sub-streams 1–3). No draw depends on
// which goroutine asks, in which order, or how many workers or MPI ranks
// there are, and a run resumed from a checkpoint at iteration t draws what
// an uninterrupted run draws.
//
// Calls made per iteration allocate nothing. Online(k, t) keeps a cursor per
// node, so it is safe from pool workers on disjoint nodes and O(1)
// amortised for non-decreasing t per node; any t (after a restore) is
// answered by recomputing that node from t = 1; Net.ResumeAt prepares a Net
// for a run resumed at t. Queue holds the messages in flight under delays
// (with its own checkpoint encoding); Net.EffectiveGap gives the spectral
// gap of the expected gossip matrix under the model; StreamWriter and
// StreamReader write and read recorded edge streams.
package network
