//go:build !amd64.v2

package kernel

// goamd64 is this build's GOAMD64 level (amd64 only; see Build).
const goamd64 = "v1"
