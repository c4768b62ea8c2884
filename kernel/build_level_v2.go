//go:build amd64.v2 && !amd64.v3

package kernel

// goamd64 is this build's GOAMD64 level (see Build).
const goamd64 = "v2"
