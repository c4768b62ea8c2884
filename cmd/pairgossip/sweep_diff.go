package main

import (
	"fmt"
	"io"

	"github.com/pairgossip/pairgossip/internal/cli"
	"github.com/pairgossip/pairgossip/sweep"
)

// pairgossip sweep diff DB1 DB2: compare two results databases exactly.

func sweepDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep diff", "pairgossip sweep diff DB1 DB2: compare two results databases: the same runs with the same\n"+
		"status, final metrics and trace rows, compared exactly (wall times aside). Exit status 1 on any\n"+
		"difference.", stderr)
	maxLines := cli.Int(fs, "max", 20, "print at most this many differences (0: all)")
	pos, err := sweepParseArgs(fs, args, 2, 2, "two results databases (pairgossip sweep diff DB1 DB2)")
	if err != nil {
		return err
	}
	stores, err := openStores(pos)
	if err != nil {
		return err
	}
	defer closeStores(stores)
	lines, n, err := sweep.Diff(stores[0], stores[1], *maxLines)
	if err != nil {
		return err
	}
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	if n > 0 {
		return fmt.Errorf("%d differences between %s and %s", n, pos[0], pos[1])
	}
	s, err := sweep.StatusOf(stores[:1], nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "identical results (%d runs in %s)\n", s.Complete+s.Diverged+s.Failed, pos[0])
	return nil
}
