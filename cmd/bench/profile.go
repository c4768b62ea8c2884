package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfileFlag is --cpuprofile's help: the timed run alone is profiled.
const cpuProfileFlag = "write a CPU profile (runtime/pprof; go tool pprof) of the timed run to this file"

// startProfile starts a CPU profile into path ("": none) and returns what
// stops it and reports a failure to write it.
func startProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usageError{Err: fmt.Errorf("--cpuprofile: %w", err)}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile %s: %w", path, err)
		}
		return nil
	}, nil
}
