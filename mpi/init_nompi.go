//go:build !mpi || !cgo

package mpi

import "os"

// Compiled reports whether this build has the MPI implementation (build
// tag mpi with cgo); without it, Init returns Self.
const Compiled = false

// Init returns Self: this build has no MPI. A process that an MPI launcher
// started with more than one rank is refused (each rank would run the whole
// job alone and write the same outputs).
func Init() (Comm, error) {
	if Launched() && launchedSize() > 1 {
		return nil, errArgs("started by an MPI launcher with %d ranks, but this program was built without MPI (build it with -tags mpi)", launchedSize())
	}
	return Self(), nil
}

// Abort ends the process with the exit code.
func Abort(code int) { os.Exit(code) }
