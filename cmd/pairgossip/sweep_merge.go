package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pairgossip/pairgossip/sweep"
)

// pairgossip sweep merge DIR|DB... --results DB: merge task databases.

func sweepMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep merge", "pairgossip sweep merge DIR|DB... --results DB: copy the runs of the task databases DIR/task-*.db\n"+
		"(or of the databases named) into DB, one transaction per source. A run is copied when DB lacks it\n"+
		"or holds only a failed attempt; merging again changes nothing.", stderr)
	results := fs.String("results", "", "destination database (created if missing) [required]")
	pos, err := sweepParseArgs(fs, args, 1, -1, "folder or database to merge (pairgossip sweep merge DIR --results DB)")
	if err != nil {
		return err
	}
	if *results == "" {
		return usagef("--results DB is required")
	}
	srcs, err := mergeSources(pos)
	if err != nil {
		return err
	}
	// Every source is checked before the destination is created or
	// written: a bad one (not a results database, corrupt, the destination
	// itself under another name) merges nothing.
	for _, src := range srcs {
		if err := checkMergeSource(src, *results); err != nil {
			return usageError{Err: err}
		}
	}
	st, err := sweep.Open(*results)
	if err != nil {
		return usageError{Err: err} // a bad, corrupt or unwritable database
	}
	defer st.Close()
	var added, present int
	for _, src := range srcs {
		ms, err := st.Merge(context.Background(), src)
		var dbErr *sweep.DBError
		if errors.As(err, &dbErr) || errors.Is(err, os.ErrNotExist) {
			return usageError{Err: err} // a bad source: not merged, nothing written
		}
		if err != nil {
			return err
		}
		added += ms.Added
		present += ms.Present
		fmt.Fprintf(stdout, "%s: %d runs added, %d already present\n", src, ms.Added, ms.Present)
		if ms.Conflicts > 0 {
			fmt.Fprintf(stderr, "warning: %s: %d runs differ from the copy already in %s (kept the existing one)\n", src, ms.Conflicts, *results)
		}
	}
	s, err := sweep.StatusOf([]*sweep.Store{st}, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d databases into %s: %d runs added, %d already present; %s\n", len(srcs), *results, added, present, sweepStatusLine(s))
	return nil
}

// mergeSources expands the folders among paths into their task databases.
func mergeSources(paths []string) ([]string, error) {
	var srcs []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, usageError{Err: err}
		}
		if !fi.IsDir() {
			srcs = append(srcs, p)
			continue
		}
		m, err := sweep.TaskDBs(p)
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, usagef("%s: no task-*.db files", p)
		}
		srcs = append(srcs, m...)
	}
	return srcs, nil
}

// checkMergeSource refuses a source that is the destination (the same
// file, also through a hard or symbolic link: device and inode compared)
// or that is not a sound results database.
func checkMergeSource(src, dst string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if di, err := os.Stat(dst); err == nil && os.SameFile(fi, di) {
		return fmt.Errorf("%s: is the destination %s itself (the same file): cannot merge a database into itself", src, dst)
	}
	st, err := sweep.OpenExisting(src)
	if err != nil {
		return err
	}
	return st.Close()
}
