//go:build !amd64 || noasm

package kernel

// eventPairOf returns nil: only the amd64 assembly has a two-event kernel.
func eventPairOf(*funcs) EventLogisticPairFunc { return nil }
