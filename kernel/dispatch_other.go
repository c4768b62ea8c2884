//go:build !amd64 || noasm

package kernel

// archCandidates is empty: without amd64 assembly (another GOARCH, or the
// noasm build tag) only the generic implementation exists.
var archCandidates []*funcs
