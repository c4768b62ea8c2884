// Package graph holds the communication topologies of pairgossip and their
// spectral analysis.
//
// # Representation
//
// A Graph is simple and undirected, on nodes 0..N-1. Its edge list holds each
// undirected edge once as a pair (i, j) with i < j, sorted lexicographically,
// without duplicates or self-loops; the adjacency is also stored in CSR form
// (Offsets, Adj) with each node's neighbours in increasing order. Graphs are
// built by FromEdges, by the generators (Complete, Cycle, WattsStrogatz, ...),
// by the edge-list loader or by Build, and are immutable afterwards: the
// slices are shared and must not be modified.
//
// # Construction at scale
//
// The edge list and the CSR adjacency are built in parallel without maps
// and without a global sort (two-level counting sorts by blocks of nodes,
// each node's smaller neighbours sorted, the rest a transpose), the
// closed-form families are written straight into CSR, and connectivity is a
// parallel union–find. Every result (Edges, Offsets, Adj, Tries) is
// identical whatever the number of workers or GOMAXPROCS: the work is cut
// into chunks that depend only on the sizes, and every random draw of the
// large generators is keyed by what it decides (an edge, a node, a block of
// rows), never by the worker that makes it.
//
// # Conventions (docs/design.md §2.2, §2.3, §2.11)
//
// |E| counts ORDERED pairs, twice the number of undirected edges:
// OrderedEdges() = 2·UndirectedEdges(). The gossip engine draws one undirected
// edge uniformly per iteration, so node k is an endpoint of the drawn edge with
// probability
//
//	p_k = 2·d_k / |E| = d_k / UndirectedEdges()
//
// (method P), and Σ_k p_k = 2. The gossip matrix is W = I − L/|E| with L = D − A
// the Laplacian, and the spectral gap is
//
//	1 − λ₂(W) = β_{n−1}(L) / |E| = β_{n−1}(L) / (2·UndirectedEdges()),
//
// where β_{n−1} is the second-smallest Laplacian eigenvalue (the algebraic
// connectivity). This is the reading that reproduces Table 1 of Colin et al.
// (ICML 2016): complete n=699 gives 1.43e-3, cycle n=699 5.78e-8, complete
// n=1000 1.00e-3, cycle n=1000 1.97e-8. SpectralGap computes it from a closed
// form for the generator families that have one, with a dense symmetric
// eigensolver for small graphs, and with a thick-restart Lanczos method on the
// sparse Laplacian for large ones.
//
// WattsStrogatz(n, k, p) follows the common generator (networkx): a ring
// lattice joining each node to ⌊k/2⌋ neighbours on each side (k = 5 gives
// degree 4), each lattice edge rewired with probability p. The random
// generators (WattsStrogatz, ErdosRenyi, RandomGeometric) redraw with a new
// sub-seed until the graph is connected and record the number of attempts in
// Graph.Tries.
//
// Seeds: below 131072 nodes the random generators draw exactly as in
// earlier releases, so a seed gives the same graph as before. From 131072
// nodes on they use parallel, counter-based draws (same models; for
// Watts–Strogatz a rewired edge never lands on a lattice pair, an event of
// probability about k·p/n in the sequential process), so a seed gives a
// different graph than releases before this change did, and the same one
// on any number of workers. The deterministic families (complete, cycle,
// star, path, grid, torus) are unchanged at every size.
//
// Tensor(G, k) is the graph G ⊗ K_k of the paper's appendix (several data
// points per physical node); its spectral gap is gap(G)/k when G is connected,
// non-bipartite and not complete.
//
// All randomness comes from internal/rng, so a seed gives the same graph on
// every platform and Go release.
package graph
