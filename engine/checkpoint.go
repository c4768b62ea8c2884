package engine

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"strings"

	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
)

// Checkpoint format (little-endian):
//
//	"PGCKPT\x00\x01"            8-byte magic
//	uint32 header length, header JSON (checkpointHeader)
//	Z, Θ, Θ̄ as rows×P float64 each
//	Y as rows int32; Count as rows int64 (Async only); what the executor
//	saves (saver.writeSaved: the margins as rows float64 on the
//	synchronous fast path, the cached eigendecompositions of the reduced
//	metric schedule); with a network model (or an edge sink), the
//	network's state (state.writeNet, network.go)
//	trace: TraceLen records of 5 int64 (iteration, gradient counts, pairs
//	sampled, measurement methods packed) and 10 float64 (mean, std, min, max
//	objective, AUC, bias, consensus, the three standard errors); version 1
//	files, read too, have 3 int64 and 7 float64 (an exact measurement);
//	with a network model, then TraceLen records of 4 int64 (attempted,
//	delivered, one-way, online)
//	SHA-256 of every byte above
//
// A checkpoint is read completely and its checksum verified before any of it
// is applied, so a corrupt, truncated or mismatched file is refused whole.
const (
	checkpointMagic = "PGCKPT\x00\x02"
	// CheckpointVersion is the format version written; version 1 (records
	// without the measurement's standard errors) is read too.
	CheckpointVersion = 2
	checkpointMagicV1 = "PGCKPT\x00\x01"
	// maxHeader bounds the header so that a corrupt length cannot allocate.
	maxHeader = 1 << 20
)

// ErrCheckpoint is wrapped by every error about a checkpoint's content.
var ErrCheckpoint = errors.New("invalid checkpoint")

type checkpointHeader struct {
	Version   int    `json:"version"`
	Identity  []byte `json:"identity"` // SHA-256 of the caller's identity and the engine's configuration
	Algorithm string `json:"algorithm"`
	Rows      int    `json:"rows"`
	P         int    `json:"p"`
	Iter      int64  `json:"iter"`
	GradEvals int64  `json:"grad_evals"`
	Nonzero   int64  `json:"grad_evals_nonzero"`
	RNG       []byte `json:"rng"`
	TraceLen  int    `json:"trace_len"`
	HasCount  bool   `json:"has_count"`
	// Network is the network model's String (Config.Network; empty for
	// the paper's network): a run resumes only with the same model.
	Network string `json:"network,omitempty"`
	// Build is the writer's fusedBuild (empty: the default amd64 build's
	// arithmetic): a run resumes only in a build of the same arithmetic.
	Build string `json:"build,omitempty"`
	// Kernels are the writer's kernel.Active() (absent in checkpoints
	// written before it was recorded; the identity holds it too): a run
	// resumes only on the kernels that wrote it, which compute its bits.
	Kernels string `json:"kernels,omitempty"`
	// Schedule is the writer's executor (also in the identity), named
	// when a resume runs another.
	Schedule string `json:"schedule,omitempty"`
	// About is the caller's description of the run (pairgossip: its
	// configuration as JSON), kept so that a resume whose identity differs
	// can say what differs (MismatchError).
	About json.RawMessage `json:"about,omitempty"`
}

// networkMismatch is the refusal of a checkpoint whose network model is not
// this run's, saying what differs where it can: only the contents of the
// files (the same flags, another fingerprint), or only their paths in a
// checkpoint written before files were known by their contents.
func (s *Sim) networkMismatch(hdr checkpointHeader) error {
	mine := s.netName(false)
	hName, hData, hHas := strings.Cut(hdr.Network, " [data ")
	mName, mData, mHas := strings.Cut(mine, " [data ")
	switch {
	case hHas && mHas && hName == mName && hData != mData:
		return ckptErr("written by a run with the same network flags, %q, over other data ([data %s, this run's [data %s): a file the model reads was edited or replaced since, or a Go function it calls (weights, picker) answers otherwise", hName, hData, mData)
	case hdr.Kernels == "" && hHas && mHas && hData == mData:
		// Written before the checkpoints named files FILE: its name holds
		// the paths, and so must the run that resumes it.
		return ckptErr("written by a run with the network model %q, before checkpoints knew files by their contents: resume it with the paths it names (the files' contents are the same)", netLabel(hdr.Network))
	}
	return ckptErr("written by a run with the network model %q, this run has %q", netLabel(hdr.Network), netLabel(mine))
}

// MismatchError is the error of a checkpoint written by another run (its
// identity differs): About is the writer's description, when the caller
// gave one (WriteCheckpointAbout), for the caller to name what differs.
type MismatchError struct {
	About json.RawMessage
}

func (e *MismatchError) Error() string {
	return ErrCheckpoint.Error() + ": written by a run with another configuration, data or graph (resume needs the same flags)"
}

func (e *MismatchError) Unwrap() error { return ErrCheckpoint }

// identity hashes what must match for a checkpoint to be resumed: the
// caller's description (configuration, data, graph) and the engine's own
// parameters. Workers are excluded: they do not change results. The
// network model is named without the paths of its files (FileBlind), whose
// contents netName's fingerprint identifies; legacy names them by their
// paths, as the checkpoints written before did.
func (s *Sim) identity(caller []byte, legacy bool) []byte {
	h := sha256.New()
	h.Write(caller)
	c := s.cfg
	fmt.Fprintf(h, "|%d|%d|%d|%x|%x|%d|%d|%d|%d|%d|%d|%v|%s|%s|%v", c.Algorithm, c.Estimator, c.Iters,
		math.Float64bits(c.GammaC), math.Float64bits(c.GammaAlpha), c.Seed, c.LogPoints, len(s.meas.rows),
		s.prob.N, s.prob.D, s.prob.P, s.prob.Loss, s.kind.schedule, kernel.Active(), c.ExactPSD)
	if id := s.prob.ObjectiveID(); id != "" {
		// A user objective: its name and parameters (another loss, or other
		// parameters, is another run).
		fmt.Fprintf(h, "|objective %s", id)
	}
	if c.Measure != 0 || c.MeasurePrecision != 0 {
		// They change the trace at large n (the default keeps the identity
		// of the checkpoints written before they existed).
		fmt.Fprintf(h, "|measure %d %x", c.Measure, math.Float64bits(c.MeasurePrecision))
	}
	if c.StopChecks {
		// Another measurement schedule (the default keeps the identity).
		fmt.Fprintf(h, "|stopchecks")
	}
	if !c.Network.IsPerfect() {
		// Another network (the paper's keeps the identity).
		if legacy {
			fmt.Fprintf(h, "|network %s", c.Network)
		} else {
			fmt.Fprintf(h, "|network %s", c.Network.FileBlind())
		}
	}
	return h.Sum(nil)
}

// buildLabel names a fusedBuild value in an error.
func buildLabel(b string) string {
	if b == "" {
		return "of the default amd64 build (no fused multiply-add)"
	}
	return b + " (fused multiply-adds)"
}

// fusedBuild is the build's arithmetic a checkpoint carries and a resume
// must match (kernel.FusedBuild; a variable for the tests).
var fusedBuild = kernel.FusedBuild()

type hashWriter struct {
	w *bufio.Writer
	h hash.Hash
}

func (hw hashWriter) Write(p []byte) (int, error) {
	hw.h.Write(p)
	return hw.w.Write(p)
}

// WriteCheckpoint writes the whole state and the trace so far. identity
// describes the run (for example its configuration as JSON); ReadCheckpoint
// refuses a checkpoint whose identity differs.
func (s *Sim) WriteCheckpoint(w io.Writer, identity []byte, trace []Record) error {
	return s.writeCheckpoint(w, identity, nil, trace, false)
}

// WriteCheckpointAbout is WriteCheckpoint that keeps about, the caller's
// description of the run (JSON), in the checkpoint: a resume whose identity
// differs returns it in its MismatchError.
func (s *Sim) WriteCheckpointAbout(w io.Writer, identity, about []byte, trace []Record) error {
	if about != nil && !json.Valid(about) {
		return errors.New("engine: checkpoint: about is not JSON")
	}
	return s.writeCheckpoint(w, identity, about, trace, false)
}

// writeCheckpoint is WriteCheckpoint; legacy writes the identity and the
// network's name of the checkpoints written before the files a run reads
// were named FILE in them (what the tests of ReadCheckpointOf need).
func (s *Sim) writeCheckpoint(w io.Writer, identity, about []byte, trace []Record, legacy bool) error {
	rngState, err := s.edges.State()
	if err != nil {
		return err
	}
	hdr := checkpointHeader{Version: CheckpointVersion, Identity: s.identity(identity, legacy), Algorithm: s.cfg.Algorithm.String(),
		Rows: s.Z.Rows, P: s.Z.Cols, Iter: s.t, GradEvals: s.gradEvals, Nonzero: s.nonzero,
		RNG: rngState, TraceLen: len(trace), HasCount: s.Count != nil, Network: s.netName(legacy), Build: fusedBuild,
		Kernels: kernel.Active(), Schedule: string(s.kind.schedule), About: about}
	if legacy { // the header as it was then
		hdr.Kernels, hdr.Schedule, hdr.About = "", "", nil
	}
	hj, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	if len(hj) > maxHeader && hdr.About != nil {
		// A configuration too long to keep (a schedule of very many
		// phases): the checkpoint is written without it, a mismatch then
		// unnamed, rather than one the reader refuses.
		hdr.About = nil
		if hj, err = json.Marshal(hdr); err != nil {
			return err
		}
	}
	if len(hj) > maxHeader {
		return fmt.Errorf("engine: checkpoint: header of %d bytes, more than the %d a checkpoint may have", len(hj), maxHeader)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	hw := hashWriter{bw, sha256.New()}
	hw.Write([]byte(checkpointMagic))
	binary.Write(hw, binary.LittleEndian, uint32(len(hj)))
	hw.Write(hj)
	if err := s.writeState(hw); err != nil {
		return err
	}
	for _, r := range trace {
		binary.Write(hw, binary.LittleEndian, [5]int64{r.Iter, r.GradEvals, r.GradEvalsNonzero, r.MeasurePairs, r.Measure.Pack()})
		binary.Write(hw, binary.LittleEndian, [10]float64{r.ObjMean, r.ObjStd, r.ObjMin, r.ObjMax, r.AUCMean, r.Bias, r.Consensus,
			r.ObjStdErr, r.AUCStdErr, r.BiasStdErr})
	}
	if s.net != nil {
		for _, r := range trace {
			binary.Write(hw, binary.LittleEndian, netTraceRecord(r))
		}
	}
	if _, err := bw.Write(hw.h.Sum(nil)); err != nil {
		return err
	}
	return bw.Flush()
}

// writeState writes the state sections: the common ones (Z, Θ, Θ̄, Y, the
// clocks), then what the executor saves.
func (s *Sim) writeState(w io.Writer) error {
	fc := new(floatCodec)
	if err := s.writeCommon(w, fc, s.exec.theta); err != nil {
		return err
	}
	if sv := s.caps.saver; sv != nil && sv.savedLen() > 0 {
		if err := sv.writeSaved(w, fc); err != nil {
			return err
		}
	}
	if s.net != nil {
		return s.writeNet(w, fc) // network.go
	}
	return nil
}

// floatCodec converts float64 slices to and from little-endian bytes
// through one buffer, allocated once per checkpoint (a buffer per call
// escapes to the heap through the io.Writer: 4 KiB of garbage per row,
// gigabytes for a checkpoint of a million nodes).
type floatCodec struct{ buf [8 * 512]byte }

func (c *floatCodec) write(w io.Writer, v []float64) error {
	for len(v) > 0 {
		k := min(len(v), 512)
		for i := 0; i < k; i++ {
			binary.LittleEndian.PutUint64(c.buf[8*i:], math.Float64bits(v[i]))
		}
		if _, err := w.Write(c.buf[:8*k]); err != nil {
			return err
		}
		v = v[k:]
	}
	return nil
}

func (c *floatCodec) read(r io.Reader, v []float64) error {
	for len(v) > 0 {
		k := min(len(v), 512)
		if _, err := io.ReadFull(r, c.buf[:8*k]); err != nil {
			return err
		}
		for i := 0; i < k; i++ {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(c.buf[8*i:]))
		}
		v = v[k:]
	}
	return nil
}

func ckptErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCheckpoint, fmt.Sprintf(format, a...))
}

// ReadCheckpoint restores the state written by WriteCheckpoint and returns
// the trace so far. Nothing is changed unless the whole checkpoint is valid:
// magic, version, checksum, identity and shapes are all checked first.
func (s *Sim) ReadCheckpoint(r io.Reader, identity []byte) ([]Record, error) {
	// The caller's identity is the same in both forms: a checkpoint written
	// before files were named FILE resumes as it did.
	return s.ReadCheckpointOf(r, identity, identity)
}

// ReadCheckpointOf is ReadCheckpoint that also resumes a checkpoint written
// before the files a run reads were identified by their contents alone,
// whose identity named them by their paths: legacy is the caller's
// identity of that form (nil: none is taken).
func (s *Sim) ReadCheckpointOf(r io.Reader, identity, legacy []byte) ([]Record, error) {
	h := sha256.New()
	tr := io.TeeReader(bufio.NewReaderSize(r, 1<<20), h)
	var magic [8]byte
	if _, err := io.ReadFull(tr, magic[:]); err != nil || (string(magic[:]) != checkpointMagic && string(magic[:]) != checkpointMagicV1) {
		if err == nil && string(magic[:6]) == checkpointMagic[:6] {
			return nil, ckptErr("format version %d, this program reads versions 1 to %d", int(magic[6])<<8|int(magic[7]), CheckpointVersion)
		}
		return nil, ckptErr("not a pairgossip checkpoint")
	}
	var hl uint32
	if err := binary.Read(tr, binary.LittleEndian, &hl); err != nil || hl == 0 || hl > maxHeader {
		return nil, ckptErr("corrupt header length")
	}
	hj := make([]byte, hl)
	if _, err := io.ReadFull(tr, hj); err != nil {
		return nil, ckptErr("truncated header")
	}
	var hdr checkpointHeader
	if err := json.Unmarshal(hj, &hdr); err != nil {
		return nil, ckptErr("corrupt header: %v", err)
	}
	if hdr.Version != int(magic[7]) || hdr.Version < 1 || hdr.Version > CheckpointVersion {
		return nil, ckptErr("format version %d, this program reads versions 1 to %d", hdr.Version, CheckpointVersion)
	}
	old := legacy != nil && hdr.Network != s.netName(false) && hdr.Network == s.netName(true)
	if hdr.Network != s.netName(false) && !old {
		return nil, s.networkMismatch(hdr)
	}
	if hdr.Build != fusedBuild {
		return nil, ckptErr("written by a build with the arithmetic %s, this program's is %s: they compute other bits (build with the same GOARCH and GOAMD64 level to resume)",
			buildLabel(hdr.Build), buildLabel(fusedBuild))
	}
	if hdr.Kernels != "" && hdr.Kernels != kernel.Active() {
		return nil, ckptErr("written with the %s kernels, this program runs the %s kernels: they compute other bits (resume it with the kernels that wrote it: on a CPU with the same instruction set, in a build with the same tags, with the same %s)", hdr.Kernels, kernel.Active(), kernel.EnvVar)
	}
	if hdr.Schedule != "" && hdr.Schedule != string(s.kind.schedule) {
		return nil, ckptErr("written by the %s executor, this run has the %s executor: they compute other bits (resume it with --schedule %s)", hdr.Schedule, s.kind.schedule, hdr.Schedule)
	}
	if !bytes.Equal(hdr.Identity, s.identity(identity, false)) && (legacy == nil || !bytes.Equal(hdr.Identity, s.identity(legacy, true))) {
		return nil, &MismatchError{About: hdr.About}
	}
	if hdr.Rows != s.Z.Rows || hdr.P != s.Z.Cols || hdr.HasCount != (s.Count != nil) {
		return nil, ckptErr("state shape %d×%d does not match this run's %d×%d", hdr.Rows, hdr.P, s.Z.Rows, s.Z.Cols)
	}
	if hdr.Iter < 0 || hdr.Iter > s.cfg.Iters || hdr.TraceLen < 0 || hdr.TraceLen > len(s.sched) {
		return nil, ckptErr("iteration %d or trace length %d out of range", hdr.Iter, hdr.TraceLen)
	}
	// Read everything into fresh buffers; apply only after the checksum.
	fc := new(floatCodec)
	z, th, bar := layout.New(s.Z.Rows, s.Z.Cols), layout.New(s.Z.Rows, s.Z.Cols), layout.New(s.Z.Rows, s.Z.Cols)
	for _, m := range []layout.Matrix{z, th, bar} {
		for i := 0; i < m.Rows; i++ {
			if err := fc.read(tr, m.Row(i)); err != nil {
				return nil, ckptErr("truncated state")
			}
		}
	}
	y := make([]int32, len(s.Y))
	if err := binary.Read(tr, binary.LittleEndian, y); err != nil {
		return nil, ckptErr("truncated state")
	}
	var count []int64
	if s.Count != nil {
		count = make([]int64, len(s.Count))
		if err := binary.Read(tr, binary.LittleEndian, count); err != nil {
			return nil, ckptErr("truncated state")
		}
	}
	var extra []float64
	if n := s.savedLen(); n > 0 {
		extra = make([]float64, n)
		if err := fc.read(tr, extra); err != nil {
			return nil, ckptErr("truncated state")
		}
	}
	var nv *netSaved
	if s.net != nil {
		var err error
		if nv, err = s.readNet(tr, fc); err != nil {
			return nil, err
		}
	}
	trace := make([]Record, hdr.TraceLen)
	ni, nf := 5, 10
	if hdr.Version == 1 {
		ni, nf = 3, 7
	}
	for i := range trace {
		var ints [5]int64
		var fl [10]float64
		if binary.Read(tr, binary.LittleEndian, ints[:ni]) != nil || binary.Read(tr, binary.LittleEndian, fl[:nf]) != nil {
			return nil, ckptErr("truncated trace")
		}
		trace[i] = Record{Iter: ints[0], GradEvals: ints[1], GradEvalsNonzero: ints[2], ObjMean: fl[0], ObjStd: fl[1],
			ObjMin: fl[2], ObjMax: fl[3], AUCMean: fl[4], Bias: fl[5], Consensus: fl[6],
			MeasurePairs: ints[3], Measure: UnpackMeasureMethods(ints[4]), ObjStdErr: fl[7], AUCStdErr: fl[8], BiasStdErr: fl[9]}
	}
	for i := range trace {
		trace[i].Online = -1
		if s.net != nil {
			var v [4]int64
			if binary.Read(tr, binary.LittleEndian, v[:]) != nil {
				return nil, ckptErr("truncated trace")
			}
			trace[i].Attempted, trace[i].Delivered, trace[i].OneWay, trace[i].Online = v[0], v[1], v[2], int(v[3])
		}
	}
	sum := h.Sum(nil)
	var stored [32]byte
	if _, err := io.ReadFull(tr, stored[:]); err != nil || !bytes.Equal(sum, stored[:]) {
		return nil, ckptErr("checksum mismatch: the file is corrupt or truncated")
	}
	if n, _ := tr.Read(make([]byte, 1)); n != 0 {
		return nil, ckptErr("trailing bytes after the checksum")
	}
	for k, v := range y {
		if v < 0 || int(v) >= s.prob.N {
			return nil, ckptErr("auxiliary index %d of node %d out of range", v, k)
		}
	}
	if extra != nil {
		if err := s.caps.saver.checkSaved(extra); err != nil {
			return nil, err
		}
	}
	if err := s.edges.SetState(hdr.RNG); err != nil {
		return nil, ckptErr("random generator state: %v", err)
	}
	s.Z.CopyFrom(z)
	if s.kind.storesTheta {
		s.Theta.CopyFrom(th) // otherwise θ is a function of the restored state
	}
	s.ThetaBar.CopyFrom(bar)
	s.Y = y
	if count != nil {
		s.Count = count
	}
	if extra != nil {
		s.caps.saver.applySaved(extra)
	}
	s.t, s.gradEvals, s.nonzero = hdr.Iter, hdr.GradEvals, hdr.Nonzero
	if nv != nil {
		s.applyNet(nv, hdr.Iter)
	}
	s.restoreAux()
	if s.caps.restore != nil {
		s.caps.restore.restore()
	}
	return trace, nil
}

// savedLen is the number of floats the executor adds to a checkpoint (0:
// none; see saver).
func (s *Sim) savedLen() int {
	if s.caps.saver == nil {
		return 0
	}
	return s.caps.saver.savedLen()
}
