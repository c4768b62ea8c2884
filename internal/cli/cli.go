// Package cli holds the flag handling shared by the commands (pairgossip,
// bench): flag errors come back as one line with exit status 2, and the
// usage is printed only for -h/--help.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// UsageError is a bad flag, argument or input: the commands exit with 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// NewFlagSet returns a flag set that prints nothing by itself; Parse prints
// its help (synopsis, then the flags) on stderr for -h/--help only.
func NewFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\n\nFlags:\n", synopsis)
		printDefaults(fs, stderr)
	}
	return fs
}

// ParseFlags parses args: flag.ErrHelp after printing the help, a
// UsageError for a bad flag. Positional arguments are left in fs.Args().
func ParseFlags(fs *flag.FlagSet, args []string) error {
	help := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every error
	err := fs.Parse(args)
	fs.Usage = help
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		help()
		return err
	}
	msg := err.Error()
	if strings.ContainsFunc(msg, unicode.IsControl) {
		// An argument with a newline or a control character in it, echoed
		// by the flag package: escaped, so that the message stays one line.
		q := strconv.QuoteToGraphic(msg)
		msg = q[1 : len(q)-1]
	}
	return UsageError{fmt.Errorf("%s (see --help)", msg)}
}

// Parse is ParseFlags for commands that take no positional argument.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	return nil
}

// printDefaults is fs.PrintDefaults on w, with the value of a checkedFloat
// flag named "float" as the flag package names a Float64Var's (it names
// any other Value "value").
func printDefaults(fs *flag.FlagSet, w io.Writer) {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	out := b.String()
	fs.VisitAll(func(f *flag.Flag) {
		typ := ""
		switch v := f.Value.(type) {
		case *checkedFloat:
			typ = "float"
		case interface{ typeName() string }:
			typ = v.typeName()
		}
		if typ != "" {
			if name, _ := flag.UnquoteUsage(f); name == "value" {
				out = strings.Replace(out, "  -"+f.Name+" value\n", "  -"+f.Name+" "+typ+"\n", 1)
			}
		}
	})
	io.WriteString(w, out)
}
