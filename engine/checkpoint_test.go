package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/problem"
)

func checkpointSim(t testing.TB, algo Algorithm, iters int64) *Sim {
	t.Helper()
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 24, 3, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 24, K: 4, P: 0.3, Seed: 1})
	s, err := New(p, g, Config{Algorithm: algo, Iters: iters, GammaC: 1, Seed: 4, LogPoints: 8})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func stateBytes(t testing.TB, s *Sim) []byte {
	var b bytes.Buffer
	if err := s.WriteCheckpoint(&b, []byte("id"), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCheckpointResumeIdentical: stopping half-way, saving, restoring into a
// fresh Sim and finishing gives the same state and trace as one run.
func TestCheckpointResumeIdentical(t *testing.T) {
	for _, algo := range []Algorithm{Sync, Async, Centralized} {
		ref := checkpointSim(t, algo, 2000)
		refTrace, _ := ref.Run(context.Background(), nil)

		a := checkpointSim(t, algo, 2000)
		ctx, cancel := context.WithCancel(context.Background())
		var trace []Record
		trace, err := a.RunWith(ctx, RunOptions{OnRecord: func(r Record) {
			if r.Iter >= 300 {
				cancel()
			}
		}}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", algo, err)
		}
		var buf bytes.Buffer
		if err := a.WriteCheckpoint(&buf, []byte("id"), trace); err != nil {
			t.Fatal(err)
		}
		b := checkpointSim(t, algo, 2000)
		tr, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
		if err != nil {
			t.Fatal(err)
		}
		tr, err = b.RunWith(context.Background(), RunOptions{}, tr)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr) != len(refTrace) {
			t.Fatalf("%s: trace length %d vs %d", algo, len(tr), len(refTrace))
		}
		for i := range tr {
			if !sameRecord(tr[i], refTrace[i]) {
				t.Fatalf("%s: record %d differs", algo, i)
			}
		}
		if !bytes.Equal(stateBytes(t, b), stateBytes(t, ref)) {
			t.Fatalf("%s: final state differs", algo)
		}
	}
}

// TestCheckpointRefused: every damaged or mismatched checkpoint is refused
// with ErrCheckpoint and leaves the state untouched.
func TestCheckpointRefused(t *testing.T) {
	src := checkpointSim(t, Async, 500)
	src.Run(context.Background(), nil)
	var good bytes.Buffer
	src.WriteCheckpoint(&good, []byte("id"), nil)
	g := good.Bytes()

	flip := func(i int) []byte { b := bytes.Clone(g); b[i] ^= 1; return b }
	cases := map[string]struct {
		data []byte
		id   string
	}{
		"empty":          {nil, "id"},
		"not ours":       {[]byte("hello world, this is not a checkpoint"), "id"},
		"truncated":      {g[:len(g)/2], "id"},
		"no checksum":    {g[:len(g)-32], "id"},
		"flipped state":  {flip(len(g) / 2), "id"},
		"flipped sum":    {flip(len(g) - 1), "id"},
		"trailing bytes": {append(bytes.Clone(g), 0), "id"},
		"other config":   {g, "other"},
		"other version":  {append([]byte("PGCKPT\x00\x03"), g[8:]...), "id"},
	}
	for name, c := range cases {
		// A state other than the file's, so that a partial apply shows.
		dst := checkpointSim(t, Async, 500)
		dst.Advance(250)
		before := stateBytes(t, dst)
		_, err := dst.ReadCheckpoint(bytes.NewReader(c.data), []byte(c.id))
		if !errors.Is(err, ErrCheckpoint) {
			t.Errorf("%s: err = %v, want ErrCheckpoint", name, err)
		}
		if !bytes.Equal(before, stateBytes(t, dst)) {
			t.Errorf("%s: a refused checkpoint changed the state", name)
		}
	}
	// Written by a build of other arithmetic (kernel.Build: one that
	// fuses multiply-adds, or the default one from such a build).
	defer func(b string) { fusedBuild = b }(fusedBuild)
	if fusedBuild == "" {
		fusedBuild = "amd64.v3"
	} else {
		fusedBuild = ""
	}
	dst := checkpointSim(t, Async, 500)
	if _, err := dst.ReadCheckpoint(bytes.NewReader(g), []byte("id")); !errors.Is(err, ErrCheckpoint) ||
		!strings.Contains(err.Error(), "GOAMD64") {
		t.Errorf("a checkpoint of another build's arithmetic: %v, want ErrCheckpoint naming GOAMD64", err)
	}
	// Another shape: same identity bytes, different problem size.
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 30, 3, 1)
	other, _ := New(p, mustGraph(t, graph.Spec{Kind: "complete", N: 30}), Config{Algorithm: Async, Iters: 500, GammaC: 1, Seed: 4, LogPoints: 8})
	if _, err := other.ReadCheckpoint(bytes.NewReader(g), []byte("id")); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("other shape accepted: %v", err)
	}
}

func FuzzReadCheckpoint(f *testing.F) {
	src := checkpointSim(f, Async, 200)
	src.Run(context.Background(), nil)
	var good bytes.Buffer
	src.WriteCheckpoint(&good, []byte("id"), nil)
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:40])
	f.Add([]byte("PGCKPT\x00\x01\x05\x00\x00\x00{}"))
	dst := checkpointSim(f, Async, 200)
	f.Fuzz(func(t *testing.T, data []byte) {
		before := stateBytes(t, dst)
		if _, err := dst.ReadCheckpoint(bytes.NewReader(data), []byte("id")); err != nil {
			if !bytes.Equal(before, stateBytes(t, dst)) {
				t.Fatal("a refused checkpoint changed the state")
			}
		}
	})
}

// TestCheckpointVersion1: a version-1 checkpoint (records of 3 int64 and 7
// float64, no standard errors) is still read, its records as an exact
// measurement's. The file is made from a version-2 one by rewriting its
// magic, header and records, and checksumming it again.
func TestCheckpointVersion1(t *testing.T) {
	a := checkpointSim(t, Sync, 600)
	trace, err := a.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var v2 bytes.Buffer
	if err := a.WriteCheckpoint(&v2, []byte("id"), trace); err != nil {
		t.Fatal(err)
	}
	raw := v2.Bytes()
	hl := int(binary.LittleEndian.Uint32(raw[8:12]))
	var hdr checkpointHeader
	if err := json.Unmarshal(raw[12:12+hl], &hdr); err != nil {
		t.Fatal(err)
	}
	hdr.Version = 1
	hj, _ := json.Marshal(hdr)
	recs := len(trace) * (5*8 + 10*8)
	body := raw[12+hl : len(raw)-32-recs]
	var v1 bytes.Buffer
	v1.WriteString(checkpointMagicV1)
	binary.Write(&v1, binary.LittleEndian, uint32(len(hj)))
	v1.Write(hj)
	v1.Write(body)
	for _, r := range trace {
		binary.Write(&v1, binary.LittleEndian, [3]int64{r.Iter, r.GradEvals, r.GradEvalsNonzero})
		binary.Write(&v1, binary.LittleEndian, [7]float64{r.ObjMean, r.ObjStd, r.ObjMin, r.ObjMax, r.AUCMean, r.Bias, r.Consensus})
	}
	sum := sha256.Sum256(v1.Bytes())
	v1.Write(sum[:])
	b := checkpointSim(t, Sync, 600)
	got, err := b.ReadCheckpoint(bytes.NewReader(v1.Bytes()), []byte("id"))
	if err != nil {
		t.Fatalf("version 1 refused: %v", err)
	}
	if len(got) != len(trace) {
		t.Fatalf("%d records, want %d", len(got), len(trace))
	}
	for i := range got {
		if !sameRecord(got[i], trace[i]) || got[i].ObjStdErr != 0 || got[i].MeasurePairs != 0 {
			t.Fatalf("record %d: %+v, want %+v", i, got[i], trace[i])
		}
	}
	if !bytes.Equal(stateBytes(t, b), stateBytes(t, a)) {
		t.Fatal("state read from version 1 differs")
	}
}

// TestCheckpointSaysWhatDiffers: a checkpoint another run wrote is refused
// with a MismatchError that carries the writer's description (its About),
// so that the caller can name what differs; one written on other kernels or
// by another executor is refused naming them, not as "another
// configuration".
func TestCheckpointSaysWhatDiffers(t *testing.T) {
	a := checkpointSim(t, Sync, 200)
	if err := a.Advance(100); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := a.WriteCheckpointAbout(&buf, []byte("id"), []byte(`{"iters":200}`), nil); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteCheckpointAbout(&bytes.Buffer{}, []byte("id"), []byte(`{"iters":`), nil); err == nil {
		t.Error("an About that is not JSON was written")
	}
	b := checkpointSim(t, Sync, 200)
	_, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("another id"))
	var me *MismatchError
	if !errors.As(err, &me) || !errors.Is(err, ErrCheckpoint) || string(me.About) != `{"iters":200}` {
		t.Fatalf("another identity: %v (%T), want a MismatchError with the writer's About", err, err)
	}
	// The header's kernels and executor, edited in place (the same length,
	// so that the header still parses; they are checked before the state's
	// checksum).
	for _, c := range []struct{ field, value, want string }{
		{`"kernels":"` + kernel.Active() + `"`, `"kernels":"` + strings.Repeat("x", len(kernel.Active())) + `"`, "kernels, this program runs the"},
		{`"schedule":"` + string(a.Schedule()) + `"`, `"schedule":"` + strings.Repeat("y", len(a.Schedule())) + `"`, "executor: they compute other bits"},
	} {
		if !bytes.Contains(buf.Bytes(), []byte(c.field)) {
			t.Fatalf("the header lacks %s", c.field)
		}
		edited := bytes.Replace(buf.Bytes(), []byte(c.field), []byte(c.value), 1)
		_, err := checkpointSim(t, Sync, 200).ReadCheckpoint(bytes.NewReader(edited), []byte("id"))
		if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal with %q", c.value, err, c.want)
		}
	}
}

// TestCheckpointAboutTooLong: a description too long for a checkpoint's
// header (a configuration with a schedule of very many phases) is left out,
// and the checkpoint stays readable, instead of one the reader refuses.
func TestCheckpointAboutTooLong(t *testing.T) {
	a := checkpointSim(t, Sync, 200)
	about, _ := json.Marshal(map[string]string{"graph_schedule": strings.Repeat("1:cycle;", maxHeader/8+1)})
	var buf bytes.Buffer
	if err := a.WriteCheckpointAbout(&buf, []byte("id"), about, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := checkpointSim(t, Sync, 200).ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id")); err != nil {
		t.Fatalf("a checkpoint whose description was too long: %v", err)
	}
	_, err := checkpointSim(t, Sync, 200).ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("other"))
	var me *MismatchError
	if !errors.As(err, &me) || me.About != nil {
		t.Errorf("another identity: %v, want a MismatchError without the description", err)
	}
}
