//go:build noasm

package engine

// goldenBuild names the build in the golden checksums' keys: with the
// noasm tag gonum's BLAS runs its pure-Go loops too, which round the
// measurement's dot products differently.
const goldenBuild = "+noasm"
