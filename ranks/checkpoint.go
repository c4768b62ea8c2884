package ranks

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/internal/filelock"
	"github.com/pairgossip/pairgossip/mpi"
)

// Checkpoints over ranks (issue #17, item 3): one file per rank and a
// manifest.
//
//   - The manifest, at the checkpoint's path (rank 0 writes it): JSON with
//     the format, the ranks P, n, the partition (each rank's [lo, hi)), the
//     run's identity (SHA-256 of the configuration and the graph's edges),
//     the iteration, the generation of the rank files it belongs to, each
//     rank file's SHA-256, and the trace so far (gob, base64 in the JSON).
//   - Rank r's file, path.g<G>.rank<r>: a magic, a JSON header (rank, P,
//     lo, hi, iteration, identity, the scale c, the rank's non-zero
//     gradient count, the edge stream's state), then the rank's z, θ̄,
//     margins, y indices and y labels, then the SHA-256 of every byte before.
//
// A checkpoint is taken at a block boundary (where every rank is), every
// rank writes its file atomically (internal/atomicfile: temporary file,
// fsync, rename) into the generation G the manifest does not name, the
// ranks' checksums are gathered, and rank 0 replaces the manifest
// atomically: a job killed at any moment leaves a manifest and the rank
// files it names, whole. Each rank holds the lock of its files
// (internal/filelock) and rank 0 that of the manifest for the whole run.
// Resuming needs the same number of ranks; another is refused, naming the
// manifest and both numbers.

const (
	manifestFormat = "pairgossip-mpi-checkpoint"
	manifestVer    = 1
	rankMagic      = "PGMPIRK1"
)

// Manifest is the checkpoint's manifest.
type Manifest struct {
	Format     string   `json:"format"`
	Version    int      `json:"version"`
	Ranks      int      `json:"ranks"`
	N          int      `json:"n"`
	Partition  [][2]int `json:"partition"`
	Identity   string   `json:"identity"`
	Iter       int64    `json:"iter"`
	Generation int      `json:"generation"`
	Files      []string `json:"files"`
	SHA256     []string `json:"sha256"`
	Trace      []byte   `json:"trace"`
	// Config is the configuration the identity hashes (absent in
	// manifests written before): a resume with other flags names them.
	Config json.RawMessage `json:"config,omitempty"`
}

type rankHeader struct {
	Rank, Ranks, Lo, Hi int
	Iter                int64
	Identity            string
	CBits               uint64
	Nonzero             int64
	Edges               []byte
}

// IsManifest reports whether the file at path is a checkpoint manifest
// written over ranks, and for how many ranks.
func IsManifest(path string) (ranks int, ok bool) {
	b, err := readPrefix(path, 1<<20)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		return 0, false
	}
	var m struct {
		Format string `json:"format"`
		Ranks  int    `json:"ranks"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if dec.Decode(&m) != nil && m.Format == "" {
		// A large manifest (a long trace) may not fit the prefix: the
		// format and the ranks come first.
		if i := bytes.Index(b, []byte(`"ranks":`)); i >= 0 && bytes.Contains(b[:i], []byte(manifestFormat)) {
			fmt.Sscanf(string(b[i+len(`"ranks":`):]), "%d", &m.Ranks)
			return m.Ranks, true
		}
		return 0, false
	}
	return m.Ranks, m.Format == manifestFormat
}

func readPrefix(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return b[:k], err
}

func rankFile(path string, gen, r int) string { return fmt.Sprintf("%s.g%d.rank%d", path, gen, r) }

// identity is the run's identity: its configuration and its graph
// (computeIdentity, at Prepare).
func (r *Run) identity() string { return r.ident }

// computeIdentity sets the run's identity: SHA-256 of its configuration
// and of the SHA-256 of each rank's edges, in rank order (a rank holds only
// its own; one Allgatherv of 32 bytes a rank).
func (r *Run) computeIdentity() error {
	eh := sha256.New()
	binary.Write(eh, binary.LittleEndian, r.l.myEdges)
	size := r.Comm.Size()
	all := make([]byte, 32*size)
	counts := make([]int, size)
	for i := range counts {
		counts[i] = 32
	}
	if err := r.Comm.AllgathervBytes(eh.Sum(nil), counts, all); err != nil {
		return err
	}
	// The network's files and the graph file are named FILE (their
	// contents are hashed: the model's Fingerprint, the edges), so that a
	// run resumes with them under other paths; the data's path stays, its
	// rows not being hashed here. legacy names them all by their paths, as
	// the manifests written before did.
	hash := func(legacy bool) (string, []byte) {
		cfg := r.Config
		if !legacy {
			cfg = cfg.FileBlind()
			cfg.Data, cfg.LabelsFile = r.Config.Data, r.Config.LabelsFile
		}
		h := sha256.New()
		cj, _ := json.Marshal(cfg)
		h.Write(cj)
		h.Write(all)
		if m := r.ecfg.Network; !m.IsPerfect() {
			// the model (PrepareModel)
			if legacy {
				h.Write([]byte(m.String()))
			} else {
				h.Write([]byte(m.FileBlind()))
			}
			if r.l.nt != nil {
				// and the data it read (a churn file): the same flags over
				// an edited file are another run (Net.Fingerprint; 0 for a
				// model that read none, whose identity stays what it was).
				if fp := r.l.nt.net.Fingerprint(); fp != 0 {
					binary.Write(h, binary.LittleEndian, fp)
				}
			}
		}
		return hex.EncodeToString(h.Sum(nil)), cj
	}
	r.ident, r.identConfig = hash(false)
	r.identLegacy, _ = hash(true)
	return nil
}

// mismatch is the refusal of a manifest another run wrote (m.Identity is
// neither of this run's identities), naming the flags that differ where the
// manifest keeps its configuration.
func (r *Run) mismatch(path string, m *Manifest) error {
	var old, cur pairgossip.Config
	if len(m.Config) > 0 && json.Unmarshal(m.Config, &old) == nil && json.Unmarshal(r.identConfig, &cur) == nil {
		if was, now := config.Diff(old, cur); len(was) > 0 {
			return fmt.Errorf("checkpoint %s: saved by a run with %s; this run has %s (every flag but --out and the checkpoint flags must be as in the saved run)",
				path, strings.Join(was, ", "), strings.Join(now, ", "))
		}
		return fmt.Errorf("checkpoint %s: saved by a run with the same flags over another graph or other network files (their contents differ)", path)
	}
	return fmt.Errorf("checkpoint %s: saved by another run (its configuration or graph differs): every flag but --out and the checkpoint flags must be as in the saved run", path)
}

// agree returns the first error of any rank (by rank order) on every rank:
// err's text is sent by the rank that has one.
func (r *Run) agree(err error) error {
	c := r.Comm
	flag := []int64{math.MaxInt64}
	if err != nil {
		flag[0] = int64(c.Rank())
	}
	if e := c.AllreduceInt64(flag, mpi.Min); e != nil {
		return e
	}
	if flag[0] == math.MaxInt64 {
		return nil
	}
	msg := make([]byte, 512)
	if err != nil && int64(c.Rank()) == flag[0] {
		copy(msg, err.Error())
	}
	if e := c.Bcast(msg, int(flag[0])); e != nil {
		return e
	}
	return errors.New(string(bytes.TrimRight(msg, "\x00")))
}

// LockCheckpoint takes the locks of this rank's checkpoint files (and rank
// 0 that of the manifest) and removes what a killed write left behind; the
// returned function releases them. Every rank gets the same error.
func (r *Run) LockCheckpoint(path string) (func(), error) {
	var locks []*filelock.Lock
	release := func() {
		for _, l := range locks {
			l.Unlock()
		}
	}
	var paths []string
	if r.Comm.Rank() == 0 {
		paths = append(paths, path)
	}
	me := r.Comm.Rank()
	paths = append(paths, rankFile(path, 0, me), rankFile(path, 1, me))
	var err error
	for _, p := range paths {
		var l *filelock.Lock
		if l, err = filelock.Acquire(p); err != nil {
			err = fmt.Errorf("rank %d: %v", me, err)
			break
		}
		locks = append(locks, l)
		if _, err = atomicfile.RemoveStale(p); err != nil {
			err = fmt.Errorf("rank %d: %v", me, err)
			break
		}
	}
	if err = r.agree(err); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// SaveCheckpoint writes the checkpoint at path: this rank's file, then
// (rank 0) the manifest with the trace so far. Every rank gets the same
// error.
func (r *Run) SaveCheckpoint(path string, trace []engine.Record) error {
	l := r.l
	gen := 1 - r.ckptGen
	name := rankFile(path, gen, r.Comm.Rank())
	var sum []byte
	err := atomicfile.Write(name, func(f *os.File) error {
		var e error
		sum, e = r.writeRank(f)
		return e
	})
	if err = r.agree(err); err != nil {
		return err
	}
	size := r.Comm.Size()
	counts := make([]int, size)
	for q := range counts {
		counts[q] = sha256.Size
	}
	all := make([]byte, size*sha256.Size)
	if err := r.Comm.AllgathervBytes(sum, counts, all); err != nil {
		return err
	}
	if r.Comm.Rank() == 0 {
		var tb bytes.Buffer
		err = gob.NewEncoder(&tb).Encode(trace)
		m := Manifest{Format: manifestFormat, Version: manifestVer, Ranks: size, N: l.n, Identity: r.identity(),
			Iter: l.t, Generation: gen, Trace: tb.Bytes(), Config: r.identConfig}
		for q := 0; q < size; q++ {
			lo, hi := partition(l.n, size, q)
			m.Partition = append(m.Partition, [2]int{lo, hi})
			m.Files = append(m.Files, filepath.Base(rankFile(path, gen, q)))
			m.SHA256 = append(m.SHA256, hex.EncodeToString(all[q*sha256.Size:(q+1)*sha256.Size]))
		}
		if err == nil {
			b, _ := json.MarshalIndent(m, "", "  ")
			err = atomicfile.WriteBytes(path, append(b, '\n'))
		}
	}
	if err = r.agree(err); err != nil {
		return err
	}
	r.ckptGen = gen
	return nil
}

// writeRank writes this rank's file and returns its checksum.
func (r *Run) writeRank(f io.Writer) ([]byte, error) {
	l := r.l
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	es, err := l.edges.State()
	if err != nil {
		return nil, err
	}
	hdr, _ := json.Marshal(rankHeader{Rank: r.Comm.Rank(), Ranks: r.Comm.Size(), Lo: l.lo, Hi: l.hi, Iter: l.t,
		Identity: r.identity(), CBits: math.Float64bits(l.cPrev), Nonzero: l.nonzero, Edges: es})
	bw.WriteString(rankMagic)
	binary.Write(bw, binary.LittleEndian, uint32(len(hdr)))
	bw.Write(hdr)
	for _, v := range [][]float64{l.z, l.bar, l.marg} {
		if err := binary.Write(bw, binary.LittleEndian, v); err != nil {
			return nil, err
		}
	}
	for _, v := range [][]int32{l.y, l.ylab} {
		if err := binary.Write(bw, binary.LittleEndian, v); err != nil {
			return nil, err
		}
	}
	if l.nt != nil {
		if err := l.writeNetCheckpoint(bw); err != nil { // network.go
			return nil, err
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	sum := h.Sum(nil)
	_, err = f.Write(sum)
	return sum, err
}

// Resume restores the state saved at path (a manifest and its rank files)
// and returns the trace so far. A checkpoint of another number of ranks,
// of another run, or damaged is refused whole, with the same error on
// every rank.
func (r *Run) Resume(path string) ([]engine.Record, error) {
	var trace []engine.Record
	var m Manifest
	err := func() error {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("checkpoint: %v", err)
		}
		if err := json.Unmarshal(b, &m); err != nil || m.Format != manifestFormat {
			return fmt.Errorf("checkpoint %s: not a checkpoint written over MPI ranks: if it is a single process's (1 rank), this job has %d ranks: resume it without mpirun or with mpirun -np 1", path, r.Comm.Size())
		}
		if m.Version != manifestVer {
			return fmt.Errorf("checkpoint %s: manifest version %d, this program reads %d", path, m.Version, manifestVer)
		}
		if m.Ranks != r.Comm.Size() {
			return fmt.Errorf("checkpoint %s was written by %d ranks; this job has %d: resume it with mpirun -np %d (a checkpoint is split by the ranks that wrote it)",
				path, m.Ranks, r.Comm.Size(), m.Ranks)
		}
		if m.N != r.l.n || (m.Identity != r.identity() && m.Identity != r.identLegacy) {
			return r.mismatch(path, &m)
		}
		if len(m.Files) != m.Ranks || len(m.SHA256) != m.Ranks || len(m.Partition) != m.Ranks {
			return fmt.Errorf("checkpoint %s: damaged manifest", path)
		}
		if p := m.Partition[r.Comm.Rank()]; p != [2]int{r.l.lo, r.l.hi} {
			return fmt.Errorf("checkpoint %s: rank %d held nodes [%d, %d), now [%d, %d)", path, r.Comm.Rank(), p[0], p[1], r.l.lo, r.l.hi)
		}
		if err := gob.NewDecoder(bytes.NewReader(m.Trace)).Decode(&trace); err != nil {
			return fmt.Errorf("checkpoint %s: damaged trace: %v", path, err)
		}
		name := filepath.Join(filepath.Dir(path), m.Files[r.Comm.Rank()])
		return r.readRank(name, m)
	}()
	if err = r.agree(err); err != nil {
		return nil, err
	}
	r.ckptGen = m.Generation
	r.prior = trace
	return trace, nil
}

func (r *Run) readRank(name string, m Manifest) error {
	l := r.l
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("checkpoint: rank %d: %v", r.Comm.Rank(), err)
	}
	bad := func(why string) error { return fmt.Errorf("checkpoint %s: %s", name, why) }
	if len(b) < len(rankMagic)+4+sha256.Size || string(b[:len(rankMagic)]) != rankMagic {
		return bad("not a rank file of a checkpoint")
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) || hex.EncodeToString(sum) != m.SHA256[r.Comm.Rank()] {
		return bad("checksum mismatch (damaged, or of another checkpoint than the manifest's)")
	}
	hl := int(binary.LittleEndian.Uint32(b[len(rankMagic):]))
	rest := body[len(rankMagic)+4:]
	if hl > len(rest) {
		return bad("truncated header")
	}
	var h rankHeader
	if err := json.Unmarshal(rest[:hl], &h); err != nil {
		return bad("damaged header")
	}
	if h.Rank != r.Comm.Rank() || h.Ranks != m.Ranks || h.Lo != l.lo || h.Hi != l.hi || h.Iter != m.Iter || h.Identity != m.Identity {
		return bad("header does not match the manifest")
	}
	rest = rest[hl:]
	nl := l.hi - l.lo
	if want := 8*(2*nl*l.P+nl) + 4*2*nl + l.netCheckpointLen(); len(rest) != want {
		return bad(fmt.Sprintf("%d bytes of state, want %d", len(rest), want))
	}
	z, bar, marg := make([]float64, nl*l.P), make([]float64, nl*l.P), make([]float64, nl)
	y, ylab := make([]int32, nl), make([]int32, nl)
	rd := bytes.NewReader(rest)
	for _, v := range []any{z, bar, marg, y, ylab} {
		binary.Read(rd, binary.LittleEndian, v)
	}
	var ns *netSaved
	if l.nt != nil {
		ns = l.readNetCheckpoint(rd) // network.go
	}
	for k, j := range y {
		if j < 0 || int(j) >= l.n || (ylab[k] != 1 && ylab[k] != -1) {
			return bad("y index or label out of range")
		}
	}
	if err := l.edges.SetState(h.Edges); err != nil {
		return bad("edge stream state: " + err.Error())
	}
	copy(l.z, z)
	copy(l.bar, bar)
	copy(l.marg, marg)
	l.t, l.cPrev, l.nonzero = h.Iter, math.Float64frombits(h.CBits), h.Nonzero
	if ns != nil {
		l.applyNetCheckpoint(ns)
	}
	// y: the rows of other ranks' data are regenerated (the synthetic
	// generator is counter-based).
	clear(l.foreign)
	clear(l.foreignRefs)
	for k := range y {
		l.y[k], l.ylab[k] = y[k], ylab[k]
		if j := int(y[k]); !l.own(j) {
			row := make([]float64, l.d)
			r.ms.gen.Row(j, row)
			l.ref(int32(j), row)
		}
	}
	clear(l.stamp)
	l.gen = 0
	return nil
}
