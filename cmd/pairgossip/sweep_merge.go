package main

import (
	"context"
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
	st, err := sweep.Open(*results)
	if err != nil {
		return err
	}
	defer st.Close()
	var added, present int
	for _, src := range srcs {
		ms, err := st.Merge(context.Background(), src)
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
