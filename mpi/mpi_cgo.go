//go:build mpi && cgo

package mpi

/*
#cgo pkg-config: ompi-c
#include <mpi.h>
#include <stdlib.h>

// Wrappers: MPI_COMM_WORLD, the datatypes and the operations are macros
// (addresses of OpenMPI's globals), which cgo cannot use directly.
static MPI_Comm pg_world(void) { return MPI_COMM_WORLD; }
static MPI_Datatype pg_type(int t) {
	switch (t) {
	case 0: return MPI_DOUBLE;
	case 1: return MPI_INT64_T;
	default: return MPI_BYTE;
	}
}
static MPI_Op pg_op(int o) {
	switch (o) {
	case 0: return MPI_SUM;
	case 1: return MPI_MAX;
	default: return MPI_MIN;
	}
}
static int pg_init(int want, int *provided) {
	int flag = 0;
	MPI_Initialized(&flag);
	if (flag) {
		MPI_Query_thread(provided);
		return MPI_SUCCESS;
	}
	int rc = MPI_Init_thread(NULL, NULL, want, provided);
	if (rc == MPI_SUCCESS) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	return rc;
}
static int pg_serialized(void) { return MPI_THREAD_SERIALIZED; }
static int pg_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int pg_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }
static int pg_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static int pg_allreduce(void *buf, int n, int t, int o) {
	return MPI_Allreduce(MPI_IN_PLACE, buf, n, pg_type(t), pg_op(o), MPI_COMM_WORLD);
}
static int pg_bcast(void *buf, int n, int t, int root) {
	return MPI_Bcast(buf, n, pg_type(t), root, MPI_COMM_WORLD);
}
static int pg_allgatherv(void *send, int n, void *recv, int *counts, int *displs, int t) {
	return MPI_Allgatherv(send, n, pg_type(t), recv, counts, displs, pg_type(t), MPI_COMM_WORLD);
}
static int pg_gatherv(void *send, int n, void *recv, int *counts, int *displs, int t, int root) {
	return MPI_Gatherv(send, n, pg_type(t), recv, counts, displs, pg_type(t), root, MPI_COMM_WORLD);
}
static int pg_send(void *buf, int n, int t, int peer, int tag) {
	return MPI_Send(buf, n, pg_type(t), peer, tag, MPI_COMM_WORLD);
}
static int pg_recv(void *buf, int n, int t, int peer, int tag, int *got) {
	MPI_Status st;
	int rc = MPI_Recv(buf, n, pg_type(t), peer, tag, MPI_COMM_WORLD, &st);
	if (rc == MPI_SUCCESS) MPI_Get_count(&st, pg_type(t), got);
	return rc;
}
static int pg_sendrecv(void *sbuf, int sn, int dst, void *rbuf, int rn, int src, int tag, int t, int *got) {
	MPI_Status st;
	int rc = MPI_Sendrecv(sbuf, sn, pg_type(t), dst, tag, rbuf, rn, pg_type(t), src, tag, MPI_COMM_WORLD, &st);
	if (rc == MPI_SUCCESS) MPI_Get_count(&st, pg_type(t), got);
	return rc;
}
static int pg_finalize(void) { return MPI_Finalize(); }
static void pg_errstr(int code, char *buf, int *len) { MPI_Error_string(code, buf, len); }
static int pg_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }
*/
import "C"

import (
	"os"
	"runtime"
	"sync"
	"unsafe"
)

// Compiled reports whether this build has the MPI implementation.
const Compiled = true

const (
	tFloat64 = 0
	tInt64   = 1
	tByte    = 2
)

// world is MPI_COMM_WORLD.
type world struct {
	mu         sync.Mutex // MPI_THREAD_SERIALIZED: one call at a time
	rank, size int
	st         Stats
	done       bool
}

var (
	initOnce sync.Once
	theWorld *world
	initErr  error
)

// Init returns MPI_COMM_WORLD when the process was started by an MPI
// launcher (Launched), initialising MPI once, and Self otherwise.
func Init() (Comm, error) {
	if !Launched() {
		return Self(), nil
	}
	return InitMPI()
}

// InitMPI initialises MPI (once) and returns MPI_COMM_WORLD, whether or not
// a launcher started the process (without one, MPI runs as a singleton).
func InitMPI() (Comm, error) {
	initOnce.Do(func() {
		var provided C.int
		if rc := C.pg_init(C.pg_serialized(), &provided); rc != 0 {
			initErr = mpiErr("MPI_Init_thread", rc)
			return
		}
		if provided < C.pg_serialized() {
			// MPI may only be called from this thread: keep the calling
			// goroutine on it.
			runtime.LockOSThread()
		}
		w := &world{}
		var r, s C.int
		if rc := C.pg_rank(&r); rc != 0 {
			initErr = mpiErr("MPI_Comm_rank", rc)
			return
		}
		if rc := C.pg_size(&s); rc != 0 {
			initErr = mpiErr("MPI_Comm_size", rc)
			return
		}
		w.rank, w.size = int(r), int(s)
		theWorld = w
	})
	if initErr != nil {
		return nil, initErr
	}
	return theWorld, nil
}

// Abort ends every rank of the job with the exit code (MPI_Abort): for a
// rank that failed alone, so that the others do not wait for it forever.
func Abort(code int) {
	if theWorld != nil {
		C.pg_abort(C.int(code))
	}
	os.Exit(code)
}

func mpiErr(call string, rc C.int) error {
	buf := make([]byte, 512) // MPI_MAX_ERROR_STRING is 256 in OpenMPI
	var n C.int
	C.pg_errstr(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return &Error{Call: call, Code: int(rc), Msg: string(buf[:int(n)])}
}

func (w *world) Rank() int { return w.rank }
func (w *world) Size() int { return w.size }

func (w *world) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.st
}

func (w *world) call(name string, f func() C.int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errArgs("%s after Finalize", name)
	}
	if rc := f(); rc != 0 {
		return mpiErr(name, rc)
	}
	return nil
}

func (w *world) Barrier() error {
	return w.call("MPI_Barrier", func() C.int { return C.pg_barrier() })
}

// ptr is the address of a slice's first element, nil when it is empty
// (MPI reads nothing for a count of zero).
func ptr[T any](v []T) unsafe.Pointer {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Pointer(&v[0])
}

func allreduce[T any](w *world, buf []T, op Op, t int, size int) error {
	if err := checkOp(op); err != nil {
		return err
	}
	if len(buf) > maxCount {
		return ErrTooLarge
	}
	if len(buf) == 0 {
		return nil
	}
	err := w.call("MPI_Allreduce", func() C.int {
		return C.pg_allreduce(ptr(buf), C.int(len(buf)), C.int(t), C.int(op))
	})
	if err == nil {
		w.count(false, int64(len(buf))*int64(size))
	}
	return err
}

func (w *world) count(p2p bool, bytes int64) {
	w.mu.Lock()
	if p2p {
		w.st.P2PBytes += bytes
		w.st.P2PMessages++
	} else {
		w.st.CollBytes += bytes
		w.st.Collectives++
	}
	w.mu.Unlock()
}

func (w *world) AllreduceFloat64(buf []float64, op Op) error {
	return allreduce(w, buf, op, tFloat64, 8)
}
func (w *world) AllreduceInt64(buf []int64, op Op) error { return allreduce(w, buf, op, tInt64, 8) }

func bcast[T any](w *world, buf []T, root, t, size int) error {
	if err := checkPeer(w, root, 0); err != nil {
		return err
	}
	if len(buf) > maxCount {
		return ErrTooLarge
	}
	err := w.call("MPI_Bcast", func() C.int { return C.pg_bcast(ptr(buf), C.int(len(buf)), C.int(t), C.int(root)) })
	if err == nil && w.rank == root {
		w.count(false, int64(len(buf))*int64(size))
	}
	return err
}

func (w *world) Bcast(buf []byte, root int) error           { return bcast(w, buf, root, tByte, 1) }
func (w *world) BcastFloat64(buf []float64, root int) error { return bcast(w, buf, root, tFloat64, 8) }

func allgatherv[T any](w *world, send []T, counts []int, recv []T, t, size int) error {
	if err := checkCounts(w, len(send), counts, len(recv)); err != nil {
		return err
	}
	cc := (*[1 << 28]C.int)(C.malloc(C.size_t(2 * len(counts) * int(unsafe.Sizeof(C.int(0))))))[: 2*len(counts) : 2*len(counts)]
	defer C.free(unsafe.Pointer(&cc[0]))
	off := 0
	for r, n := range counts {
		cc[r], cc[len(counts)+r] = C.int(n), C.int(off)
		off += n
	}
	// An empty receive buffer still needs an address for MPI's argument
	// checks: a one-element scratch.
	var one [1]T
	rp := ptr(recv)
	if rp == nil {
		rp = unsafe.Pointer(&one[0])
	}
	sp := ptr(send)
	if sp == nil {
		sp = unsafe.Pointer(&one[0])
	}
	err := w.call("MPI_Allgatherv", func() C.int {
		return C.pg_allgatherv(sp, C.int(len(send)), rp, &cc[0], &cc[len(counts)], C.int(t))
	})
	if err == nil {
		w.count(false, int64(len(send))*int64(size))
	}
	return err
}

func (w *world) AllgathervFloat64(send []float64, counts []int, recv []float64) error {
	return allgatherv(w, send, counts, recv, tFloat64, 8)
}
func (w *world) AllgathervInt64(send []int64, counts []int, recv []int64) error {
	return allgatherv(w, send, counts, recv, tInt64, 8)
}
func (w *world) AllgathervBytes(send []byte, counts []int, recv []byte) error {
	return allgatherv(w, send, counts, recv, tByte, 1)
}

func (w *world) GathervFloat64(send []float64, counts []int, recv []float64, root int) error {
	if err := checkGather(w, len(send), counts, len(recv), root); err != nil {
		return err
	}
	cc := (*[1 << 28]C.int)(C.malloc(C.size_t(2 * len(counts) * int(unsafe.Sizeof(C.int(0))))))[: 2*len(counts) : 2*len(counts)]
	defer C.free(unsafe.Pointer(&cc[0]))
	off := 0
	for r, n := range counts {
		cc[r], cc[len(counts)+r] = C.int(n), C.int(off)
		off += n
	}
	var one [1]float64
	rp := ptr(recv)
	if rp == nil {
		rp = unsafe.Pointer(&one[0])
	}
	sp := ptr(send)
	if sp == nil {
		sp = unsafe.Pointer(&one[0])
	}
	err := w.call("MPI_Gatherv", func() C.int {
		return C.pg_gatherv(sp, C.int(len(send)), rp, &cc[0], &cc[len(counts)], C.int(tFloat64), C.int(root))
	})
	if err == nil {
		w.count(false, int64(len(send))*8)
	}
	return err
}

func send[T any](w *world, buf []T, peer, tag, t, size int) error {
	if err := checkPeer(w, peer, tag); err != nil {
		return err
	}
	if len(buf) > maxCount {
		return ErrTooLarge
	}
	var one [1]T
	p := ptr(buf)
	if p == nil {
		p = unsafe.Pointer(&one[0])
	}
	err := w.call("MPI_Send", func() C.int { return C.pg_send(p, C.int(len(buf)), C.int(t), C.int(peer), C.int(tag)) })
	if err == nil {
		w.count(true, int64(len(buf))*int64(size))
	}
	return err
}

func recv[T any](w *world, buf []T, peer, tag, t int) error {
	if err := checkPeer(w, peer, tag); err != nil {
		return err
	}
	if len(buf) > maxCount {
		return ErrTooLarge
	}
	var one [1]T
	p := ptr(buf)
	if p == nil {
		p = unsafe.Pointer(&one[0])
	}
	var got C.int
	if err := w.call("MPI_Recv", func() C.int { return C.pg_recv(p, C.int(len(buf)), C.int(t), C.int(peer), C.int(tag), &got) }); err != nil {
		return err
	}
	if int(got) != len(buf) {
		return errArgs("recv from rank %d (tag %d): %d elements arrived, %d expected", peer, tag, int(got), len(buf))
	}
	return nil
}

func (w *world) SendFloat64(buf []float64, peer, tag int) error {
	return send(w, buf, peer, tag, tFloat64, 8)
}
func (w *world) RecvFloat64(buf []float64, peer, tag int) error {
	return recv(w, buf, peer, tag, tFloat64)
}
func (w *world) SendInt64(buf []int64, peer, tag int) error {
	return send(w, buf, peer, tag, tInt64, 8)
}
func (w *world) RecvInt64(buf []int64, peer, tag int) error { return recv(w, buf, peer, tag, tInt64) }
func (w *world) SendBytes(buf []byte, peer, tag int) error  { return send(w, buf, peer, tag, tByte, 1) }
func (w *world) RecvBytes(buf []byte, peer, tag int) error  { return recv(w, buf, peer, tag, tByte) }

func (w *world) SendrecvFloat64(sendBuf []float64, dst int, recvBuf []float64, src, tag int) error {
	if err := checkPeer(w, dst, tag); err != nil {
		return err
	}
	if err := checkPeer(w, src, tag); err != nil {
		return err
	}
	if len(sendBuf) > maxCount || len(recvBuf) > maxCount {
		return ErrTooLarge
	}
	var one, two [1]float64
	sp, rp := ptr(sendBuf), ptr(recvBuf)
	if sp == nil {
		sp = unsafe.Pointer(&one[0])
	}
	if rp == nil {
		rp = unsafe.Pointer(&two[0])
	}
	var got C.int
	err := w.call("MPI_Sendrecv", func() C.int {
		return C.pg_sendrecv(sp, C.int(len(sendBuf)), C.int(dst), rp, C.int(len(recvBuf)), C.int(src), C.int(tag), tFloat64, &got)
	})
	if err != nil {
		return err
	}
	w.count(true, int64(len(sendBuf))*8)
	if int(got) != len(recvBuf) {
		return errArgs("sendrecv from rank %d (tag %d): %d elements arrived, %d expected", src, tag, int(got), len(recvBuf))
	}
	return nil
}

func (w *world) Finalize() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	w.done = true
	if rc := C.pg_finalize(); rc != 0 {
		return mpiErr("MPI_Finalize", rc)
	}
	return nil
}
