package dataset

import (
	"bytes"
	"io"
	"os"
	"strings"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/par"
)

// csvMinChunk is the smallest piece of a CSV file given to one worker.
const csvMinChunk = 256 << 10

// loadCSVParallel parses the regular file f of the given size in parallel
// chunks (see parseCSVParallel). ok is false when the file could not be
// read into memory; the caller then parses it as a stream.
func loadCSVParallel(f *os.File, size int64, path string, opt CSVOptions) (ds *Dataset, ok bool, err error) {
	var data []byte
	if size > 0 {
		if canMap {
			if m, err := mapFile(f, size); err == nil {
				defer unmapFile(m)
				data = m
			}
		}
		if data == nil {
			data = make([]byte, size)
			if _, err := io.ReadFull(f, data); err != nil {
				if _, serr := f.Seek(0, io.SeekStart); serr != nil {
					return nil, true, &ParseError{File: path, Msg: "read error: " + err.Error(), Err: err}
				}
				return nil, false, nil
			}
		}
	}
	ds, err = parseCSVParallel(data, path, opt, opt.Workers, csvMinChunk)
	return ds, true, err
}

// csvChunk is one worker's share of the lines.
type csvChunk struct {
	start, end int // byte range of whole lines
	lineNo     int // number of the line before the first one
	lines      int // lines in the chunk
	rows       int // data (non-blank) lines in the chunk
	rowStart   int // data rows before the chunk
	labels     labelSet
	nMissing   []int
	err        error
}

// nextLine returns the line at data[pos:] as bufio.ScanLines cuts it
// (without the newline and one carriage return before it) and the position
// after it; ok is false at the end of data.
func nextLine(data []byte, pos int) (line []byte, next int, ok bool) {
	if pos >= len(data) {
		return nil, pos, false
	}
	i := bytes.IndexByte(data[pos:], '\n')
	if i < 0 {
		line, next = data[pos:], len(data)
	} else {
		line, next = data[pos:pos+i], pos+i+1
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, next, true
}

// lineText views a line as a string without copying (the caller keeps data
// alive while the string is used, and copies what it keeps).
func lineText(line []byte, lineNo int) string {
	if len(line) == 0 {
		return ""
	}
	s := unsafe.String(&line[0], len(line))
	if lineNo == 1 {
		s = strings.TrimPrefix(s, "\ufeff")
	}
	return s
}

// parseCSVParallel parses data like ParseCSV does, in parallel: the first
// non-blank line (format and header) is read first; the lines after it are
// cut into at most workers chunks of at least minChunk bytes at line
// boundaries; one pass counts each chunk's lines and data rows, so that
// every row's place in the matrix and every line's number are known; a
// second pass parses the chunks into their places with the serial parser's
// per-row code; the chunks' labels are then merged in file order. The
// result, and the error (the first in file order, with the same line and
// column), are those of ParseCSV on the same bytes, for any worker count.
func parseCSVParallel(data []byte, name string, opt CSVOptions, workers, minChunk int) (*Dataset, error) {
	p := csvParser{name: name, opt: opt}
	if err := p.prepare(); err != nil {
		return nil, err
	}
	if p.lim.bytes >= 0 && int64(len(data)) > p.lim.bytes {
		return nil, p.sizeErr()
	}

	// The first non-blank line.
	var f csvFormat
	pos, lineNo := 0, 0
	var fields []string
	found := false
	for {
		if rest := data[pos:]; len(rest) > MaxLineBytes && bytes.IndexByte(rest[:MaxLineBytes+1], '\n') < 0 {
			// As the serial parser's scanner, at once: a file of one huge
			// line (binary data, a JSON dump) is not searched to its end.
			return nil, p.errf(lineNo+1, 0, "line longer than %d bytes (%s), the longest a data line may be", MaxLineBytes, humanBytes(MaxLineBytes))
		}
		line, next, ok := nextLine(data, pos)
		if !ok {
			break
		}
		lineNo++
		s := lineText(line, lineNo)
		if isBlank(s) {
			pos = next
			continue
		}
		found = true
		var header bool
		var err error
		if fields, header, err = p.firstLine(&f, s, lineNo, fields); err != nil {
			return nil, err
		}
		if header {
			pos = next
		} else {
			lineNo-- // the first line is data: the chunks start with it
		}
		break
	}
	if !found {
		return nil, p.noRows(&f)
	}
	d := len(f.keep)

	// Chunks at line boundaries.
	region := len(data) - pos
	nc := max(1, min(par.Workers(workers), region/max(minChunk, 1)))
	chunks := make([]*csvChunk, 0, nc)
	start := pos
	for k := 1; k <= nc && start < len(data); k++ {
		end := len(data)
		if k < nc {
			end = max(pos+region*k/nc, start)
			if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(data)
			}
		}
		if end > start {
			chunks = append(chunks, &csvChunk{start: start, end: end})
		}
		start = end
	}

	// Pass 1: lines and data rows per chunk.
	par.For(len(chunks), len(chunks), func(_, k int) {
		c := chunks[k]
		first := k == 0 && lineNo == 0
		for at := c.start; ; {
			line, next, ok := nextLine(data[:c.end], at)
			if !ok {
				break
			}
			c.lines++
			s := lineText(line, 2)
			if first && c.lines == 1 {
				s = lineText(line, 1)
			}
			if !isBlank(s) {
				c.rows++
			}
			at = next
		}
	})
	rows := 0
	for _, c := range chunks {
		c.lineNo = lineNo
		c.rowStart = rows
		lineNo += c.lines
		rows += c.rows
	}
	// Room for the rows within the element limit; a row beyond it is an
	// error that the row's worker reports.
	room := rows
	if p.lim.elements >= 0 {
		room = int(min(int64(rows), p.lim.elements/int64(d)))
	}
	x := newMatrix(room * d)
	prov := make([]int32, room)

	// Pass 2: parse.
	par.For(len(chunks), len(chunks), func(_, k int) {
		c := chunks[k]
		c.nMissing = make([]int, d)
		var fields []string
		ln, r := c.lineNo, c.rowStart
		for at := c.start; ; {
			line, next, ok := nextLine(data[:c.end], at)
			if !ok {
				break
			}
			at = next
			ln++
			s := lineText(line, ln)
			if isBlank(s) {
				continue
			}
			fields = splitFields(fields, s, f.comma)
			var out []float64
			if r < room {
				out = x[r*d : (r+1)*d : (r+1)*d]
			}
			id, err := p.row(&f, fields, ln, r, out, c.nMissing, &c.labels, true)
			if err != nil {
				c.err = err
				return
			}
			prov[r] = id
			r++
		}
	})
	for _, c := range chunks {
		if c.err != nil {
			return nil, c.err
		}
	}
	if rows == 0 {
		return nil, p.noRows(&f)
	}

	// Labels: the chunks' first-seen orders, concatenated, are the file's.
	var labels labelSet
	local := make([][]int32, len(chunks))
	for k, c := range chunks {
		local[k] = make([]int32, len(c.labels.texts))
		for id, t := range c.labels.texts {
			local[k][id] = labels.add(t)
		}
	}
	names, remap := labels.finish()
	if len(names) < 2 {
		return nil, p.errf(0, 0, "only one class (%q) — pairwise objectives need at least two", names[0])
	}
	class := make([]int32, rows)
	par.For(len(chunks), len(chunks), func(_, k int) {
		c := chunks[k]
		for i := c.rowStart; i < c.rowStart+c.rows; i++ {
			class[i] = remap[local[k][prov[i]]]
		}
	})
	nMissing := make([]int, d)
	for _, c := range chunks {
		for j, m := range c.nMissing {
			nMissing[j] += m
		}
	}
	return p.build(&f, x, rows, class, names, nMissing)
}
