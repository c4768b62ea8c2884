//go:build amd64.v3 && !amd64.v4

package kernel

// goamd64 is this build's GOAMD64 level (see Build).
const goamd64 = "v3"
