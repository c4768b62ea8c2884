package graph

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// maxLineBytes is the longest line the edge-list parser accepts.
const maxLineBytes = 1 << 20

// headerRE matches the node-count header comment: "n = 123", "n: 123",
// "nodes = 123" or "nodes: 123" (case-insensitive, spaces optional).
var headerRE = regexp.MustCompile(`^(?i:n|nodes)\s*[=:]\s*([0-9]+)\s*$`)

// headerLikeRE matches a comment that starts like a header with a number
// ("n = -5", "nodes: 1e3", "n = 5.5"): one that headerRE does not take is an
// error rather than a comment ignored silently ("# n = number of nodes"
// stays a comment).
var headerLikeRE = regexp.MustCompile(`^(?i:n|nodes)\s*[=:]\s*[-+.0-9]`)

// LoadEdgeList reads a graph from an edge-list file; see ParseEdgeList for
// the format. Errors name the file (as given by path) and the 1-based line.
func LoadEdgeList(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	defer f.Close()
	g, err := ParseEdgeList(f, path)
	if err != nil {
		return nil, err
	}
	g.Name = "file(" + path + ")"
	return g, nil
}

// ParseEdgeList reads an undirected edge list; name labels the source in
// error messages and in the graph's Name.
//
// Format: one edge per line as two non-negative decimal node ids separated
// by spaces or tabs. "#" starts a comment, on its own line or after an edge;
// blank lines are ignored. Node ids are 0-based and the node count is
// max id + 1, unless a comment line holds a header "# n = 123" (also
// "# n: 123", "# nodes = 123", case-insensitive), which sets it explicitly
// (every id must then be < n; it may add isolated nodes). Other comments are
// ignored. The same edge may appear more than once, in either orientation,
// and is merged (Graph.Merged counts them; Check warns); a self-loop is an
// error, and so is a file without edges.
//
// Because a connected graph on n nodes has at least n−1 edges, a node count
// larger than the number of edge lines + 1 is rejected at once (this also
// keeps a stray huge id from allocating gigabytes). Otherwise the graph is
// not required to be connected: call Check.
//
// Errors have the form "graph: NAME:LINE: message", for example
// `graph: edges.txt:7: expected two node ids, got "3"`.
func ParseEdgeList(r io.Reader, name string) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLineBytes)
	var (
		edges      [][2]int32
		maxID      int64 = -1
		headerN    int64 = -1
		headerLine int
		line       int
	)
	for sc.Scan() {
		line++
		text := sc.Text()
		content, comment, hasComment := strings.Cut(text, "#")
		if hasComment && strings.TrimSpace(content) == "" {
			if m := headerRE.FindStringSubmatch(strings.TrimSpace(comment)); m != nil {
				v, err := strconv.ParseInt(m[1], 10, 64)
				if err != nil || v < 1 || v > math.MaxInt32 {
					return nil, fmt.Errorf("graph: %s:%d: node count %q must be between 1 and %d", name, line, m[1], math.MaxInt32)
				}
				if headerN >= 0 && v != headerN {
					return nil, fmt.Errorf("graph: %s:%d: node count n = %d contradicts n = %d on line %d", name, line, v, headerN, headerLine)
				}
				headerN, headerLine = v, line
			} else if c := strings.TrimSpace(comment); headerLikeRE.MatchString(c) {
				return nil, fmt.Errorf("graph: %s:%d: node count header %q: the count must be a whole number between 1 and %d", name, line, c, math.MaxInt32)
			}
			continue
		}
		fields := strings.Fields(content)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, fmt.Errorf("graph: %s:%d: expected two node ids, got %q", name, line, strings.TrimSpace(content))
		}
		var ids [2]int64
		for i, f := range fields {
			v, err := strconv.ParseInt(f, 10, 64)
			switch {
			case errors.Is(err, strconv.ErrRange) || (err == nil && v >= math.MaxInt32):
				return nil, fmt.Errorf("graph: %s:%d: node id %q is too large (the limit is %d)", name, line, f, math.MaxInt32-1)
			case err != nil:
				return nil, fmt.Errorf("graph: %s:%d: node id %q is not a non-negative integer", name, line, f)
			case v < 0:
				return nil, fmt.Errorf("graph: %s:%d: node id %q is negative", name, line, f)
			}
			ids[i] = v
		}
		if ids[0] == ids[1] {
			return nil, fmt.Errorf("graph: %s:%d: self-loop on node %d", name, line, ids[0])
		}
		if headerN >= 0 && max(ids[0], ids[1]) >= headerN {
			return nil, fmt.Errorf("graph: %s:%d: node id %d is out of range for n = %d (header on line %d)", name, line, max(ids[0], ids[1]), headerN, headerLine)
		}
		maxID = max(maxID, ids[0], ids[1])
		if len(edges) >= maxEdges {
			return nil, fmt.Errorf("graph: %s:%d: more than %d edge lines (the limit of a graph)", name, line, maxEdges)
		}
		edges = append(edges, [2]int32{int32(ids[0]), int32(ids[1])})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("graph: %s:%d: line longer than %d bytes", name, line+1, maxLineBytes)
		}
		return nil, fmt.Errorf("graph: %s:%d: %w", name, line+1, err)
	}
	if len(edges) == 0 {
		return nil, fmt.Errorf("graph: %s: no edges (%d lines read); an edge list needs at least one line \"i j\"", name, line)
	}
	n := maxID + 1
	if headerN >= 0 {
		if maxID >= headerN {
			// Ids read after the header were checked line by line; this
			// catches a header that follows edges with larger ids.
			return nil, fmt.Errorf("graph: %s:%d: node count n = %d is smaller than max id + 1 = %d", name, headerLine, headerN, maxID+1)
		}
		n = headerN
	}
	if n > int64(len(edges))+1 {
		return nil, fmt.Errorf("graph: %s: %d nodes (ids 0..%d) but only %d edge lines: the graph cannot be connected; node ids must be numbered 0..n-1", name, n, n-1, len(edges))
	}
	g, err := FromEdges(name, int(n), edges)
	if err != nil {
		return nil, err // cannot happen: ids and self-loops were checked per line
	}
	g.Kind = "file"
	return g, nil
}
