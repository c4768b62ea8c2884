package kernel

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// EnvVar names the environment variable read once at start-up: set to an
// implementation name (e.g. PAIRGOSSIP_KERNEL=generic) it forces that
// implementation, as Use would.
const EnvVar = "PAIRGOSSIP_KERNEL"

// chunk bounds the elements one assembly call processes: assembly is not
// preemptible, so the wrappers split longer vectors into calls of at most
// chunk elements (512 KiB per row operand: tens of microseconds each at the
// STREAM-triad bandwidth recorded in bench/RESULTS.md). The generic
// implementation is plain Go and is never split, so it is exactly the
// documented reference loop at every length.
const chunk = 1 << 16

// funcs is one implementation: a table of kernels. Every entry takes the
// base pointer of each array, the element count n, then the scalars (the
// assembly's calling convention; passing pointers rather than slices
// halves the argument words, which the short rows the engine calls most,
// d = 9 … 16, feel).
// The exported wrappers check the slices' lengths before calling.
type funcs struct {
	name     string
	requires []cpuid.FeatureID // CPU features it needs
	bounded  bool              // calls must be split into chunks (assembly)

	syncLinear    func(z, bar, x, y *float64, n int, w, c, a, b float64) float64
	scale         func(dst, src *float64, n int, c float64)
	triad         func(a, b, c *float64, n int, s float64)
	logisticRound func(s0, q, w, eta, m *float64, n int, c, a, bc float64) (int, bool)
	prefetch      func(addrs *uintptr, n int)
	eventPre      func(xi, yi, zi, xj, yj, zj *float64, n int, ci, cj float64) (float64, float64)
	eventLogistic func(xi, yi, zi, bi, xj, yj, zj, bj *float64, n int, sc *float64) (int, int)
	eventLost     func(xi, yi, zi, bi, xj, yj, zj, bj *float64, n int, sc *float64) (int, int)
	log1pSum      func(e *float64, n int, c float64) float64

	// The kernels only some implementations have (nil: the exported
	// wrapper runs the reference loop, as the generic implementation
	// does; prefetchRows nil: no operation).
	eventPair      EventLogisticPairFunc
	householder    func(y, h *float64, n, rows, stride int, tau float64)
	ger2           func(a, x, y, u, v *float64, n, rows, stride int)
	ger2Dot        func(a, x, y, u, v, z, out *float64, n, rows, stride int)
	metricHinge    func(r, a, x, q, lab *float64, d, stride, n int, sc *float64, diag int)
	metricDist     func(out, theta, xk, x, delta *float64, d, stride int)
	gemm8          func(out, a *float64, astride int, b *float64, bstride, d, n int)
	writeRecords   func(x *float64, sx int, yidx *int32, z, bar *float64, sr, n int, nodes *int32, m int, sc *float64)
	averageRecords func(z, bar *float64, sr, n int, nodes *int32, m int, al, be float64)
	prefetchRows   func(base *byte, idx *int32, n, stride, lines int)
}

// view rebuilds a slice from a kernel argument.
func view(p *float64, n int) []float64 { return unsafe.Slice(p, n) }

// ptr is the base pointer of a slice, as kernels take it.
func ptr(x []float64) *float64 { return unsafe.SliceData(x) }

// generic is the pure-Go reference, available everywhere.
var generic = &funcs{
	name: "generic",
	syncLinear: func(z, bar, x, y *float64, n int, w, c, a, b float64) float64 {
		return syncLinearGeneric(view(z, n), view(bar, n), view(x, n), view(y, n), w, c, a, b)
	},
	scale: func(dst, src *float64, n int, c float64) { scaleGeneric(view(dst, n), view(src, n), c) },
	triad: func(a, b, c *float64, n int, x float64) { triadGeneric(view(a, n), view(b, n), view(c, n), x) },
	logisticRound: func(s0, q, w, eta, m *float64, n int, c, a, bc float64) (int, bool) {
		return logisticRoundGeneric(view(s0, n), view(q, n), view(w, n), view(eta, n), view(m, n), c, a, bc)
	},
	prefetch: func(*uintptr, int) {},
	eventPre: func(xi, yi, zi, xj, yj, zj *float64, n int, ci, cj float64) (float64, float64) {
		return eventPreGeneric(view(xi, n), view(yi, n), view(zi, n), view(xj, n), view(yj, n), view(zj, n), ci, cj)
	},
	log1pSum: func(e *float64, n int, c float64) float64 { return log1pSumGeneric(view(e, n), c) },
	eventLogistic: func(xi, yi, zi, bi, xj, yj, zj, bj *float64, n int, sc *float64) (int, int) {
		return eventLogisticGeneric(view(xi, n), view(yi, n), view(zi, n), view(bi, n), view(xj, n), view(yj, n), view(zj, n), view(bj, n),
			(*EventScalars)(unsafe.Pointer(sc)))
	},
	eventLost: func(xi, yi, zi, bi, xj, yj, zj, bj *float64, n int, sc *float64) (int, int) {
		return eventLostGeneric(view(xi, n), view(yi, n), view(zi, n), view(bi, n), view(xj, n), view(yj, n), view(zj, n), view(bj, n),
			(*EventScalars)(unsafe.Pointer(sc)))
	},
}

var (
	// usable lists the implementations this CPU supports, generic first,
	// the preferred one last. Fixed at init.
	usable []*funcs
	// cur is the active implementation (atomic, so that Use may race with
	// running kernels without a data race: each call uses one table).
	cur atomic.Pointer[funcs]
	// envErr is why EnvVar could not be honoured, if it could not.
	envErr error
)

func init() {
	var active *funcs
	usable, active, envErr = selectKernels(cpuid.CPU.Supports, os.Getenv(EnvVar))
	cur.Store(active)
	if envErr != nil {
		fmt.Fprintf(os.Stderr, "pairgossip: %v; using %s\n", envErr, active.name)
	}
}

// selectKernels returns the implementations among generic and
// archCandidates whose CPU features supports reports present (generic
// first, the preferred last) and the one to activate: the one named by env
// if env is not empty and names a usable implementation, else the
// preferred one (with an error saying why env was not honoured).
func selectKernels(supports func(ids ...cpuid.FeatureID) bool, env string) (impls []*funcs, active *funcs, err error) {
	impls = []*funcs{generic}
	for _, f := range archCandidates {
		if supports(f.requires...) {
			impls = append(impls, f)
		}
	}
	active = impls[len(impls)-1]
	if env != "" {
		f, e := find(impls, env)
		if e != nil {
			return impls, active, fmt.Errorf("%s=%s: %w", EnvVar, env, e)
		}
		active = f
	}
	return impls, active, nil
}

func find(impls []*funcs, name string) (*funcs, error) {
	for _, f := range impls {
		if f.name == name {
			return f, nil
		}
	}
	for _, f := range archCandidates {
		if f.name == name {
			return nil, fmt.Errorf("kernel implementation %q is not supported by this CPU (usable: %s)", name, strings.Join(names(impls), ", "))
		}
	}
	return nil, fmt.Errorf("unknown kernel implementation %q (usable: %s)", name, strings.Join(names(impls), ", "))
}

func names(impls []*funcs) []string {
	s := make([]string, len(impls))
	for i, f := range impls {
		s[i] = f.name
	}
	return s
}

// Implementations returns the names of the implementations this CPU
// supports, "generic" first and the one selected by default last
// (e.g. ["generic", "avx2"] on an x86-64 CPU with AVX2 and FMA).
func Implementations() []string { return names(usable) }

// Active returns the name of the implementation in use.
func Active() string { return cur.Load().name }

// Use makes the named implementation (one of Implementations) the active
// one. It is safe to call while kernels run on other goroutines (each call
// uses one implementation throughout), though results then depend on
// timing; call it at start-up or between runs. Use does not change the
// active implementation if it returns an error.
func Use(name string) error {
	f, err := find(usable, name)
	if err != nil {
		return err
	}
	cur.Store(f)
	return nil
}

// EnvError reports why the implementation named by the environment variable
// EnvVar could not be used (nil when it was, or when it is unset). The
// package then runs the default implementation and has said so once on
// standard error.
func EnvError() error { return envErr }

// lengthPanic panics with a message naming the kernel, the slice and its
// length against the one the kernel's other arguments call for (the first
// slice's length, a row count, d·d, 4·len(nodes), …: the caller's want).
// Kept out of line so that the wrappers stay small.
//
//go:noinline
func lengthPanic(kernel, name string, got, want int) {
	panic(fmt.Sprintf("kernel.%s: len(%s) = %d, want %d", kernel, name, got, want))
}

// CacheL2 returns the size in bytes of one core's L2 cache as the CPU
// reports it (cpuid), or 0 when it does not say. The engine sizes its
// prefetching decisions by it (a state that outgrows it is served from L3
// or memory).
func CacheL2() int { return max(cpuid.CPU.Cache.L2, 0) }
