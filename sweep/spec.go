// Package sweep runs parameter sweeps of pairgossip: a YAML sweep file names
// a base configuration and the axes to vary; the runs are the cartesian
// product of the axes, each identified by a hash of its full configuration.
// Runs execute on the local machine (several at a time) or as a SLURM job
// array, and their results go to an embedded SQLite database (one row per
// run, the traces in a second table) written one transaction per run, so an
// interrupted sweep restarts where it stopped. See docs/sweeps.md.
package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/network"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/dataset"
)

// Sweep is a parsed sweep file with its runs.
type Sweep struct {
	File string // the path it was read from
	Dir  string // its folder: relative data and graph paths are resolved from here
	Name string
	Base pairgossip.Config
	Axes []Axis
	// Optimum: solve the centralized optimum R_n(θ*) for each distinct
	// problem (default true).
	Optimum bool
	Runs    []Run
	// Warnings are FILE:LINE: notes on what still works but should be
	// changed (deprecated key spellings).
	Warnings []string
	// stamps are the input files' digests the run ids hash, by resolved
	// path (InputsChanged).
	stamps map[string]fileStamp
}

// Axis is one swept dimension.
type Axis struct {
	Name   string
	Line   int
	Keys   []string // the configuration keys it sets
	Values []AxisValue
}

// AxisValue is one value of an axis: one or several keys set at once.
type AxisValue struct {
	Label string
	Line  int
	set   []setting
}

type setting struct {
	key *key
	val any
}

// Run is one point of the sweep.
type Run struct {
	Index  int    // position in the sweep's order
	ID     string // first 16 hex digits of SHA-256 of ConfigJSON
	Config pairgossip.Config
	// Labels are the axis values of the run, in axis order.
	Labels []string
}

// ConfigJSON is the canonical JSON form of a configuration: json.Marshal of
// pairgossip.Config (fixed field order, shortest exact floats). A run's ID
// hashes it.
func ConfigJSON(cfg pairgossip.Config) []byte {
	b, err := json.Marshal(cfg)
	if err != nil {
		panic(err)
	}
	return b
}

// RunID is the stable identity of a configuration that reads no file (a
// built-in data set, a generated graph, no network file): the hash of its
// canonical JSON. A run that reads files is identified with their contents
// too (Sweep's runs: RunIDWithInputs).
func RunID(cfg pairgossip.Config) string {
	h := sha256.Sum256(ConfigJSON(sameNetwork(cfg)))
	return hex.EncodeToString(h[:8])
}

// sameNetwork is cfg with its network knobs in one spelling, so that a run
// has one id however they are written (as reg: psd and an unset reg of
// metric learning): the churn and delay specs as their parsers print them
// (down=…,up=… and up=500.0 are up=500,down=…), the activation's kind as
// its parser takes it (Clocks is clocks), and the defaults activation
// edges, stream_p graph and link_up 1 unset. A spec that does
// not parse is left as written (validation refuses it).
func sameNetwork(cfg pairgossip.Config) pairgossip.Config {
	if c, err := network.ParseChurn(cfg.Churn); err == nil {
		cfg.Churn = ""
		if c.Dist != "" {
			cfg.Churn = c.String()
		}
	}
	if d, err := network.ParseDelay(cfg.Delay); err == nil {
		cfg.Delay = ""
		if d.Dist != "" {
			cfg.Delay = d.String()
		}
	}
	if a, err := network.ParseActivation(cfg.Activation); err == nil {
		// The kind as the parser takes it (Clocks, " clocks" are clocks;
		// edges is the default, unset); a weights file as written.
		switch a.Kind {
		case "", network.ActEdges:
			cfg.Activation = ""
		case network.ActWeights:
			cfg.Activation = network.ActWeights + ":" + a.File
		default:
			cfg.Activation = a.Kind
		}
	}
	if cfg.StreamP == "graph" {
		cfg.StreamP = ""
	}
	if cfg.LinkUp == 1 {
		cfg.LinkUp = 0
	}
	return cfg
}

// RunIDWithInputs is RunID with the digests of the files the run reads
// (inputs: "path sha256" lines, in a fixed order; empty: RunID): a file
// edited between two sweep runs gives its runs new ids, so that they run
// again rather than keep the results of the old contents.
func RunIDWithInputs(cfg pairgossip.Config, inputs string) string {
	if inputs == "" {
		return RunID(cfg)
	}
	h := sha256.New()
	h.Write(ConfigJSON(sameNetwork(cfg)))
	h.Write([]byte("\ninputs\n" + inputs))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// inputFiles returns the files a run of cfg reads (mapFiles' order, then
// the labels file a .npy data set finds by itself), each as written (which
// names it in the id, whatever the working folder) and resolved from dir
// (which is read).
func inputFiles(dir string, cfg pairgossip.Config) (written, resolved []string) {
	mapFiles(cfg, func(p string) string {
		written, resolved = append(written, p), append(resolved, ResolvePath(dir, p))
		return p
	})
	// A .npy data set without a labels file reads the y.npy beside it
	// (dataset.NPYLabelsPath): an edit of the labels must give the runs new
	// ids, as one of the features does (it kept the old labels' results).
	if cfg.LabelsFile == "" && len(written) > 0 && written[0] == cfg.Data && strings.EqualFold(filepath.Ext(cfg.Data), ".npy") {
		if lp, err := dataset.NPYLabelsPath(resolved[0]); err == nil {
			written = append(written, filepath.Join(filepath.Dir(cfg.Data), filepath.Base(lp)))
			resolved = append(resolved, lp)
		}
	}
	return written, resolved
}

// inputDigests returns the "path sha256" lines of the files a run of cfg
// reads (inputFiles), each file hashed once a parse (cache); a file that
// cannot be read is named as such (the run then fails on it itself).
func inputDigests(dir string, cfg pairgossip.Config, cache map[string]fileStamp) string {
	var b strings.Builder
	written, resolved := inputFiles(dir, cfg)
	for x, f := range resolved {
		st, ok := cache[f]
		if !ok {
			st = stampFile(f)
			cache[f] = st
		}
		fmt.Fprintf(&b, "%s %s\n", written[x], st.digest)
	}
	return b.String()
}

// fileStamp is a file's digest (fileDigest) and the size and modification
// time it had just before it was hashed: while they are the same, the
// digest is taken to be (a run checks its inputs against them cheaply).
type fileStamp struct {
	digest string
	size   int64
	mod    time.Time
	ok     bool // size and mod were read
}

func stampFile(path string) fileStamp {
	var st fileStamp
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		st.size, st.mod, st.ok = fi.Size(), fi.ModTime(), true
	}
	st.digest = fileDigest(path)
	return st
}

// InputsChanged says which input file of run r has other contents than
// when the sweep was planned (its id hashes them), or returns "": a file
// whose size and modification time are unchanged is not read again. A run
// checks it before and after it runs, so that a file edited meanwhile
// never stores results under the id of the old contents.
func (s *Sweep) InputsChanged(r Run) string {
	written, resolved := inputFiles(s.Dir, r.Config)
	for x, f := range resolved {
		old, ok := s.stamps[f]
		if !ok {
			continue
		}
		if old.ok {
			if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Size() == old.size && fi.ModTime().Equal(old.mod) {
				continue
			}
		}
		if fileDigest(f) != old.digest {
			return fmt.Sprintf("%s changed since the sweep planned this run (its id hashes the file's contents): "+
				"not recorded; run the sweep again to plan and run the new contents", written[x])
		}
	}
	return ""
}

// fileDigest is the SHA-256 of a file's contents in hex, or "unreadable:
// …" (a pipe or a device is named by its path alone: it has no contents to
// hash before the run reads them).
func fileDigest(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	if !fi.Mode().IsRegular() {
		return "not a regular file"
	}
	f, err := os.Open(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// PlanHash identifies a sweep's list of runs (their ids, in order).
func (s *Sweep) PlanHash() string {
	h := sha256.New()
	for _, r := range s.Runs {
		h.Write([]byte(r.ID))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// AxisNames returns the names of the axes in order.
func (s *Sweep) AxisNames() []string {
	out := make([]string, len(s.Axes))
	for i, a := range s.Axes {
		out[i] = a.Name
	}
	return out
}

// LabelsJSON renders a run's axis values as one JSON object in axis order.
func (s *Sweep) LabelsJSON(r Run) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, a := range s.Axes {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(a.Name)
		v, _ := json.Marshal(r.Labels[i])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// Error is a problem in a sweep file, at a line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// MaxRuns bounds the size of a sweep.
const MaxRuns = 1_000_000

// maxRuns and maxAxisValues are the limits in force (tests lower them).
var (
	maxRuns       = MaxRuns
	maxAxisValues = 100000
)

var topKeys = []string{"name", "base", "axes", "optimum"}

// MaxFileBytes and MaxLineBytes bound what Load reads: a sweep file is
// small text, and a path such as /dev/zero, a pipe that never ends or a
// binary file must give a message, not fill the memory.
const (
	MaxFileBytes = 16 << 20
	MaxLineBytes = 1 << 20
)

// Load reads and parses a sweep file, at most MaxFileBytes, with lines of
// at most MaxLineBytes (also for pipes and devices, which have no size).
func Load(path string) (*Sweep, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxFileBytes {
		return nil, &Error{File: path, Msg: fmt.Sprintf("%d bytes, more than a sweep file may have (%d MiB)", fi.Size(), MaxFileBytes>>20)}
	}
	var (
		data  []byte
		lines lineGuard
		buf   = make([]byte, 64<<10)
	)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if len(data)+n > MaxFileBytes {
				return nil, &Error{File: path, Msg: fmt.Sprintf("more than %d MiB: not a sweep file", MaxFileBytes>>20)}
			}
			if err := lines.feed(path, buf[:n]); err != nil {
				return nil, err
			}
			data = append(data, buf[:n]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return Parse(path, data)
}

// lineGuard counts lines and refuses one longer than MaxLineBytes.
type lineGuard struct {
	line int // lines ended so far
	cur  int // bytes of the current line
}

func (g *lineGuard) feed(name string, b []byte) error {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b)
		}
		if g.cur+i > MaxLineBytes {
			return &Error{File: name, Line: g.line + 1, Msg: fmt.Sprintf("line longer than %d bytes: not a sweep file", MaxLineBytes)}
		}
		if i == len(b) {
			g.cur += i
			return nil
		}
		g.line++
		g.cur = 0
		b = b[i+1:]
	}
	return nil
}

type parser struct {
	file string
	dir  string
	warn []string
}

// lookup returns the key a name (a key or an axis named after one) refers
// to, noting a warning at n for a deprecated spelling.
func (p *parser) lookup(n *yaml.Node, name string) *key {
	k := keyByName[name]
	if d := deprecation(name); d != "" {
		p.warn = append(p.warn, fmt.Sprintf("%s:%d: %s", p.file, n.Line, d))
	}
	return k
}

func (p *parser) errf(n *yaml.Node, format string, a ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, a...)}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return strconv.Quote(n.Value)
}

// pairs returns a mapping's keys and values, rejecting non-scalar and
// duplicate keys.
func (p *parser) pairs(n *yaml.Node) ([]*yaml.Node, []*yaml.Node, error) {
	var ks, vs []*yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, nil, p.errf(k, "keys must be names, got %s", describe(k))
		}
		if k.Value == "<<" {
			return nil, nil, p.errf(k, "merge keys (<<) are not supported")
		}
		if seen[k.Value] {
			return nil, nil, p.errf(k, "key %q appears twice", k.Value)
		}
		seen[k.Value] = true
		ks, vs = append(ks, k), append(vs, v)
	}
	return ks, vs, nil
}

// Parse parses a sweep file's content; name is used in error messages and
// to resolve relative paths.
func Parse(name string, data []byte) (*Sweep, error) {
	p := &parser{file: name, dir: filepath.Dir(name)}
	if len(data) > MaxFileBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("more than %d MiB: not a sweep file", MaxFileBytes>>20)}
	}
	var lines lineGuard
	if err := lines.feed(name, data); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := err.Error()
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			l, _ := strconv.Atoi(m[1])
			return nil, &Error{File: name, Line: l, Msg: m[2]}
		}
		return nil, &Error{File: name, Msg: strings.TrimPrefix(msg, "yaml: ")}
	}
	// yaml.Unmarshal reads the first document: a second (after ---) would
	// be dropped, its axes with it.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if dec.Decode(&first) == nil {
		if err := dec.Decode(&second); err == nil {
			return nil, &Error{File: name, Line: second.Line, Msg: "a second YAML document (after ---): a sweep file is one document; merge them, or write two sweep files"}
		}
	}
	// Nor is text after the document end marker (...) read.
	ended := 0
	for x, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case ended == 0 && strings.TrimRight(line, " \t\r") == "...":
			ended = x + 1
		case ended > 0 && t != "" && !strings.HasPrefix(t, "#"):
			return nil, &Error{File: name, Line: x + 1, Msg: fmt.Sprintf("text after the end of the document (... at line %d), which YAML does not read: remove the ... or the text", ended)}
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{File: name, Line: 1, Msg: "empty sweep file (want the keys base and axes)"}
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, p.errf(root, "expected a mapping with the keys %s, got %s", strings.Join(topKeys, ", "), describe(root))
	}
	base := config.Base() // Reg is resolved per run from the problem unless set
	s := &Sweep{File: name, Dir: p.dir, Optimum: true,
		Name: strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))}
	ks, vs, err := p.pairs(root)
	if err != nil {
		return nil, err
	}
	var axesNode *yaml.Node
	for i, k := range ks {
		v := vs[i]
		switch k.Value {
		case "name":
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || v.Value == "" {
				return nil, p.errf(v, "key \"name\": expected a string, got %s", describe(v))
			}
			s.Name = v.Value
		case "optimum":
			var b bool
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || v.Decode(&b) != nil {
				return nil, p.errf(v, "key \"optimum\": expected true or false, got %s", describe(v))
			}
			s.Optimum = b
		case "base":
			if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return nil, p.errf(v, "key \"base\": expected a mapping of configuration keys, got %s", describe(v))
			}
			bk, bv, err := p.pairs(v)
			if err != nil {
				return nil, err
			}
			for j, kk := range bk {
				k, err := p.configKey(kk)
				if err != nil {
					return nil, err
				}
				val, err := p.scalar(k, bv[j], "")
				if err != nil {
					return nil, err
				}
				k.set(&base, val)
			}
		case "axes":
			axesNode = v
		default:
			return nil, p.errf(k, "unknown key %q (valid: %s)", k.Value, strings.Join(topKeys, ", "))
		}
	}
	s.Base = base
	if axesNode != nil && !(axesNode.Kind == yaml.ScalarNode && axesNode.ShortTag() == "!!null") {
		if axesNode.Kind != yaml.MappingNode {
			return nil, p.errf(axesNode, "key \"axes\": expected a mapping from axis names to lists, got %s", describe(axesNode))
		}
		if err := p.axes(s, axesNode); err != nil {
			return nil, err
		}
	}
	if err := p.expand(s, axesNode); err != nil {
		return nil, err
	}
	s.Warnings = p.warn
	return s, nil
}

func (p *parser) configKey(n *yaml.Node) (*key, error) {
	k := p.lookup(n, n.Value)
	if k == nil {
		return nil, p.errf(n, "unknown key %q (valid: %s)", n.Value, strings.Join(KeyNames(), ", "))
	}
	return k, nil
}

// scalar decodes the value of key k from n, type-checks and validates it.
// ctx names the axis, if any.
func (p *parser) scalar(k *key, n *yaml.Node, ctx string) (any, error) {
	where := fmt.Sprintf("key %q", k.Name)
	if ctx != "" {
		where = fmt.Sprintf("axis %q: key %q", ctx, k.Name)
	}
	if n.Kind != yaml.ScalarNode {
		hint := ""
		if n.Kind == yaml.SequenceNode && ctx == "" {
			hint = " (to vary a key, list its values under axes)"
		}
		return nil, p.errf(n, "%s: expected %s, got %s%s", where, k.Kind, describe(n), hint)
	}
	tag := n.ShortTag()
	bad := func() error { return p.errf(n, "%s: expected %s, got %q", where, k.Kind, n.Value) }
	var v any
	switch k.Kind {
	case kString:
		if tag != "!!str" {
			return nil, bad()
		}
		v = n.Value
	case kBool:
		if tag != "!!bool" {
			return nil, bad()
		}
		v = strings.EqualFold(n.Value, "true")
	case kInt, kUint:
		// An integer too large for 64 bits is a float to YAML: still
		// read it exactly, to say that it is out of range.
		decimal := decimalIntRE.MatchString(n.Value) && (tag == "!!int" || tag == "!!float")
		if !decimal && tag == "!!int" {
			if why := numberSyntax(n.Value, true); why != "" {
				return nil, p.errf(n, "%s: %q: %s", where, n.Value, why)
			}
		}
		if !decimal || (k.Kind == kUint && strings.HasPrefix(n.Value, "-")) {
			return nil, bad()
		}
		b, _ := new(big.Int).SetString(strings.TrimPrefix(n.Value, "+"), 10)
		x, err := intOfKind(b, k.Kind)
		if err != nil {
			return nil, p.errf(n, "%s: %v", where, err)
		}
		v = x
	case kFloat:
		if tag != "!!int" && tag != "!!float" {
			return nil, bad()
		}
		switch strings.ToLower(strings.TrimLeft(n.Value, "+-")) {
		case ".inf", ".nan":
			return nil, p.errf(n, "%s: expected a finite number, got %q", where, n.Value)
		}
		if why := numberSyntax(n.Value, false); why != "" {
			return nil, p.errf(n, "%s: %q: %s", where, n.Value, why)
		}
		if !decimalFloatRE.MatchString(n.Value) {
			return nil, bad()
		}
		x, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || math.IsInf(x, 0) {
			return nil, p.errf(n, "%s: %s is out of range of a 64-bit number", where, n.Value)
		}
		if why := config.Underflow(n.Value, x); why != "" {
			return nil, p.errf(n, "%s: %s", where, why)
		}
		v = x
	}
	if err := k.check(v, p.dir); err != nil {
		return nil, p.errf(n, "%s: %v", where, err)
	}
	return v, nil
}

// axes parses the axes mapping.
func (p *parser) axes(s *Sweep, n *yaml.Node) error {
	names, vals, err := p.pairs(n)
	if err != nil {
		return err
	}
	setBy := map[string]string{}
	for i, nameNode := range names {
		name, v := nameNode.Value, vals[i]
		ax := Axis{Name: name, Line: nameNode.Line}
		switch v.Kind {
		case yaml.SequenceNode:
			items := make([]*yaml.Node, len(v.Content))
			for j, it := range v.Content {
				items[j] = deref(it)
			}
			if len(items) == 0 {
				return p.errf(nameNode, "axis %q is empty", name)
			}
			if items[0].Kind == yaml.MappingNode {
				// A bundle axis: each value sets several keys.
				keys := map[string]bool{}
				for _, it := range items {
					if it.Kind != yaml.MappingNode {
						return p.errf(it, "axis %q: mix of mappings and single values; make every entry a mapping", name)
					}
					if len(it.Content) == 0 {
						return p.errf(it, "axis %q: empty entry", name)
					}
					ik, iv, err := p.pairs(it)
					if err != nil {
						return err
					}
					av := AxisValue{Line: it.Line}
					var parts []string
					for j, kn := range ik {
						k, err := p.configKey(kn)
						if err != nil {
							return err
						}
						val, err := p.scalar(k, iv[j], name)
						if err != nil {
							return err
						}
						av.set = append(av.set, setting{k, val})
						parts = append(parts, k.Name+"="+formatValue(val))
						if !keys[k.Name] {
							keys[k.Name] = true
							ax.Keys = append(ax.Keys, k.Name)
						}
					}
					av.Label = strings.Join(parts, ",")
					ax.Values = append(ax.Values, av)
				}
			} else {
				k := p.lookup(nameNode, name)
				if k == nil {
					return p.errf(nameNode, "unknown key %q (valid: %s; an axis of mappings may have any name)", name, strings.Join(KeyNames(), ", "))
				}
				ax.Keys = []string{k.Name}
				for _, it := range items {
					if it.Kind == yaml.MappingNode {
						return p.errf(it, "axis %q: mix of mappings and single values", name)
					}
					val, err := p.scalar(k, it, name)
					if err != nil {
						return err
					}
					ax.Values = append(ax.Values, AxisValue{Label: formatValue(val), Line: it.Line, set: []setting{{k, val}}})
				}
			}
		case yaml.MappingNode:
			k := p.lookup(nameNode, name)
			if k == nil {
				return p.errf(nameNode, "unknown key %q (valid: %s)", name, strings.Join(KeyNames(), ", "))
			}
			ax.Keys = []string{k.Name}
			values, err := p.generator(k, name, v)
			if err != nil {
				return err
			}
			if len(values) == 0 {
				return p.errf(nameNode, "axis %q is empty", name)
			}
			for _, val := range values {
				if err := k.check(val, p.dir); err != nil {
					return p.errf(v, "axis %q: key %q: %v", name, k.Name, err)
				}
				ax.Values = append(ax.Values, AxisValue{Label: formatValue(val), Line: v.Line, set: []setting{{k, val}}})
			}
		default:
			if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
				return p.errf(nameNode, "axis %q is empty", name)
			}
			return p.errf(v, "axis %q: expected a list of values or {range|linspace|logspace: [...]}, got %s (fixed values go under base)", name, describe(v))
		}
		seen := map[string]int{}
		for _, av := range ax.Values {
			if l, ok := seen[av.Label]; ok {
				return p.errf(&yaml.Node{Line: av.Line}, "axis %q: value %s repeats the value of line %d", name, av.Label, l)
			}
			seen[av.Label] = av.Line
		}
		for _, kname := range ax.Keys {
			if other, ok := setBy[kname]; ok {
				return p.errf(nameNode, "key %q is set by both axis %q and axis %q", kname, other, name)
			}
			setBy[kname] = name
		}
		s.Axes = append(s.Axes, ax)
	}
	return nil
}

// generator expands {range: [lo, hi(, step)]}, {linspace: [lo, hi, n]} or
// {logspace: [lo, hi, n]}.
func (p *parser) generator(k *key, axis string, n *yaml.Node) ([]any, error) {
	gk, gv, err := p.pairs(n)
	if err != nil {
		return nil, err
	}
	if len(gk) != 1 {
		return nil, p.errf(n, "axis %q: expected exactly one of range, linspace, logspace", axis)
	}
	kind, args := gk[0].Value, gv[0]
	switch kind {
	case "range", "linspace", "logspace":
	default:
		return nil, p.errf(gk[0], "axis %q: unknown key %q (valid: range, linspace, logspace)", axis, kind)
	}
	if args.Kind != yaml.SequenceNode {
		return nil, p.errf(args, "axis %q: %s: expected a list [lo, hi, ...], got %s", axis, kind, describe(args))
	}
	// Range ends are read exactly (math/big), the other generators' as
	// 64-bit floats; all as ordinary decimal numbers.
	nums := make([]float64, len(args.Content))
	ints := make([]*big.Int, len(args.Content))
	for i, a := range args.Content {
		a = deref(a)
		t := a.ShortTag()
		if a.Kind != yaml.ScalarNode || (t != "!!int" && t != "!!float") {
			return nil, p.errf(a, "axis %q: %s: expected a number, got %s", axis, kind, describe(a))
		}
		if why := numberSyntax(a.Value, false); why != "" {
			return nil, p.errf(a, "axis %q: %s: %q: %s", axis, kind, a.Value, why)
		}
		if kind == "range" {
			if !decimalIntRE.MatchString(a.Value) {
				return nil, p.errf(a, "axis %q: range: expected an integer, got %q (use linspace for real values)", axis, a.Value)
			}
			ints[i], _ = new(big.Int).SetString(strings.TrimPrefix(a.Value, "+"), 10)
			continue
		}
		x, err := strconv.ParseFloat(a.Value, 64)
		if !decimalFloatRE.MatchString(a.Value) || err != nil || math.IsInf(x, 0) {
			return nil, p.errf(a, "axis %q: %s: expected a finite number, got %s", axis, kind, describe(a))
		}
		if why := config.Underflow(a.Value, x); why != "" {
			return nil, p.errf(a, "axis %q: %s: %s", axis, kind, why)
		}
		nums[i] = x
	}
	maxValues := maxAxisValues
	switch kind {
	case "range":
		if len(ints) != 2 && len(ints) != 3 {
			return nil, p.errf(args, "axis %q: range: expected [lo, hi] or [lo, hi, step], got %d numbers", axis, len(ints))
		}
		if k.Kind == kString || k.Kind == kBool {
			return nil, p.errf(n, "axis %q: range needs a numeric key; %q takes %s", axis, k.Name, k.Kind)
		}
		step := big.NewInt(1)
		if len(ints) == 3 {
			step = ints[2]
		}
		out, err := intRange(ints[0], ints[1], step, k.Kind, maxValues)
		if err != nil {
			return nil, p.errf(args, "axis %q: key %q: range %s: %v", axis, k.Name, rangeText(ints), err)
		}
		return out, nil
	default:
		if len(nums) != 3 {
			return nil, p.errf(args, "axis %q: %s: expected [lo, hi, count], got %d numbers", axis, kind, len(nums))
		}
		if k.Kind != kFloat {
			return nil, p.errf(n, "axis %q: %s gives real values but %q takes %s; use range", axis, kind, k.Name, k.Kind)
		}
		lo, hi, cnt := nums[0], nums[1], nums[2]
		if cnt != math.Trunc(cnt) || cnt < 0 || cnt > float64(maxValues) {
			return nil, p.errf(args, "axis %q: %s: count must be an integer in [0, %d], got %g", axis, kind, maxValues, cnt)
		}
		if kind == "logspace" && !(lo > 0 && hi > 0) {
			return nil, p.errf(args, "axis %q: logspace: lo and hi must be > 0, got %g and %g", axis, lo, hi)
		}
		m := int(cnt)
		out := make([]any, m)
		for i := 0; i < m; i++ {
			var v float64
			switch {
			case i == 0:
				v = lo
			case i == m-1:
				v = hi
			case kind == "linspace":
				v = round12(lo + (hi-lo)*float64(i)/float64(m-1))
			default:
				v = round12(math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*float64(i)/float64(m-1)))
			}
			out[i] = v
		}
		return out, nil
	}
}

// round12 rounds to 12 significant digits, so that generated values print
// as the numbers a person would write (0.1, not 0.10000000000000002).
func round12(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

// expand builds the runs: the cartesian product of the axes, the first axis
// varying slowest and the last fastest (nested loops in file order).
func (p *parser) expand(s *Sweep, axesNode *yaml.Node) error {
	total := 1
	for _, a := range s.Axes {
		total *= len(a.Values)
		if total > maxRuns {
			return p.errf(axesNode, "the axes give more than %d runs", maxRuns)
		}
	}
	idx := make([]int, len(s.Axes))
	seen := make(map[string]int, total)
	s.stamps = map[string]fileStamp{} // a file's digest, once a parse
	s.Runs = make([]Run, 0, total)
	for r := 0; r < total; r++ {
		cfg := s.Base
		labels := make([]string, len(s.Axes))
		for a, ax := range s.Axes {
			v := ax.Values[idx[a]]
			for _, st := range v.set {
				st.key.set(&cfg, st.val)
			}
			labels[a] = v.Label
		}
		cfg = cfg.WithDefaults()
		run := Run{Index: r, Config: cfg, Labels: labels, ID: RunIDWithInputs(cfg, inputDigests(s.Dir, cfg, s.stamps))}
		if prev, ok := seen[run.ID]; ok {
			return p.errf(axesNode, "runs %d (%s) and %d (%s) have the same configuration",
				prev, strings.Join(s.Runs[prev].Labels, " "), r, strings.Join(labels, " "))
		}
		seen[run.ID] = r
		s.Runs = append(s.Runs, run)
		for a := len(idx) - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < len(s.Axes[a].Values) {
				break
			}
			idx[a] = 0
		}
	}
	return nil
}

// Share returns task's contiguous chunk of runs when they are split over
// tasks: runs [task·N/tasks, (task+1)·N/tasks).
func Share(runs []Run, task, tasks int) []Run {
	n := len(runs)
	return runs[task*n/tasks : (task+1)*n/tasks]
}

// Resolved returns the configuration of a run with its data, labels, graph
// and network file paths resolved relative to the sweep file's folder (the
// run id keeps the paths as written, and hashes the files' contents).
func (s *Sweep) Resolved(cfg pairgossip.Config) pairgossip.Config { return resolveConfig(s.Dir, cfg) }

func resolveConfig(dir string, cfg pairgossip.Config) pairgossip.Config {
	return mapFiles(cfg, func(p string) string { return ResolvePath(dir, p) })
}

// mapFiles returns cfg with every file a run of it reads passed through f,
// in a fixed order: the data (not a built-in set), the labels, the graph,
// and the files the network knobs name (--edge-stream, churn sessions,
// schedule edge lists, activation weights). Empty paths are not passed.
func mapFiles(cfg pairgossip.Config, f func(string) string) pairgossip.Config {
	g := func(p string) string {
		if p == "" {
			return p
		}
		return f(p)
	}
	switch cfg.Data {
	case dataset.SpecBreastCancer, dataset.SpecSynthetic, dataset.SpecSyntheticAUC, dataset.SpecSyntheticMetric:
	default:
		cfg.Data = g(cfg.Data)
	}
	cfg.LabelsFile = g(cfg.LabelsFile)
	cfg.GraphFile = g(cfg.GraphFile)
	return cfg.MapNetworkFiles(g)
}
