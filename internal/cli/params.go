package cli

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pairgossip/pairgossip/config"
)

// BindFlags defines on fs a flag for each parameter of config.Params that has one and that
// which selects (nil: all), bound to c's field with c's value as the
// default, and the deprecated spellings of those flags. Call
// DeprecatedFlags after parsing to warn of the old spellings used.
func BindFlags(fs *flag.FlagSet, c *config.Config, which func(*config.Param) bool) {
	for _, p := range config.Params() {
		if p.Flag == "" || (which != nil && !which(p)) {
			continue
		}
		switch f := p.Ptr(c).(type) {
		case *string:
			if p.Auto != "" {
				fs.Var(&autoString{f, p.Auto}, p.Flag, p.Help)
			} else {
				fs.StringVar(f, p.Flag, *f, p.Help)
			}
		case *int:
			fs.Var(&decimal[int]{f}, p.Flag, p.Help)
		case *int64:
			fs.Var(&decimal[int64]{f}, p.Flag, p.Help)
		case *uint64:
			fs.Var(&decimal[uint64]{f}, p.Flag, p.Help)
		case *float64:
			fs.Var(&checkedFloat{f, p}, p.Flag, p.Help)
		case *bool:
			fs.BoolVar(f, p.Flag, *f, p.Help)
		}
		for _, old := range p.OldFlags {
			fs.Var(fs.Lookup(p.Flag).Value, old, "deprecated: the old name of --"+p.Flag+" (same meaning)")
		}
	}
}

// DeprecatedFlags returns a warning for each deprecated flag spelling set
// in fs (after Parse).
func DeprecatedFlags(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		for _, p := range config.Params() {
			if slices.Contains(p.OldFlags, f.Name) {
				out = append(out, fmt.Sprintf("--%s is deprecated: use --%s (the same parameter)", f.Name, p.Flag))
			}
		}
	})
	return out
}

// autoString is a string flag whose empty value is called Auto on the
// command line ("auto" for the schedule): --schedule auto stores "".
type autoString struct {
	p    *string
	auto string
}

func (a *autoString) String() string {
	if a.p == nil || *a.p == "" {
		return a.auto
	}
	return *a.p
}

func (a *autoString) Set(s string) error {
	if s == a.auto {
		s = ""
	}
	*a.p = s
	return nil
}

// decimal is an integer flag read in base 10 only. flag.IntVar reads Go's
// integer literals, so that --seed 010 would be seed 8 (octal), --iters 0_1
// one iteration and --n 0x10 sixteen nodes: a result other than the one
// asked for, with nothing said. PrintDefaults names its value "int" or
// "uint" (printDefaults), as the flag package does.
type decimal[T int | int64 | uint64] struct{ p *T }

func (v *decimal[T]) String() string {
	if v.p == nil {
		return "0"
	}
	return fmt.Sprint(*v.p)
}

func (v *decimal[T]) Set(s string) error {
	var x T
	var err error
	switch any(x).(type) {
	case uint64:
		var u uint64
		u, err = strconv.ParseUint(s, 10, 64)
		x = T(u)
	case int64:
		var i int64
		i, err = strconv.ParseInt(s, 10, 64)
		x = T(i)
	default: // int
		var i int64
		i, err = strconv.ParseInt(s, 10, strconv.IntSize)
		x = T(i)
	}
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return errors.New("value out of range")
		}
		return errors.New("not a decimal integer")
	}
	*v.p = x
	return nil
}

// typeName is the name PrintDefaults gives the value.
func (v *decimal[T]) typeName() string {
	var x T
	if _, ok := any(x).(uint64); ok {
		return "uint"
	}
	return "int"
}

// checkedFloat is a float flag (flag.Float64Var's parsing and printing)
// that refuses, as it is parsed and naming it, a number that underflows to
// 0 (config.Underflow: --loss 1e-400) and a zero that would not mean what
// it reads as (Param.CheckGiven: --link-up 0). Its other checks are
// Config.Validate's, as for every flag. PrintDefaults names its value
// "float" (printDefaults), as the flag package does a Float64Var's.
type checkedFloat struct {
	f *float64
	p *config.Param
}

func (v *checkedFloat) String() string {
	if v.f == nil {
		return "0"
	}
	return strconv.FormatFloat(*v.f, 'g', -1, 64)
}

func (v *checkedFloat) Set(s string) error {
	if strings.ContainsAny(s, "_xXpP") {
		// Go's float literals beyond plain decimals (1_000, 0x1p-2):
		// --loss 0_1 would be read as 1.
		return errors.New("not a plain decimal number")
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// flag.Float64Var's messages.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return errors.New("value out of range")
		}
		return errors.New("parse error")
	}
	if why := config.Underflow(s, x); why != "" {
		return errors.New(why)
	}
	if err := v.p.CheckGiven(x); err != nil {
		return err
	}
	*v.f = x
	return nil
}

// IntVar is fs.IntVar read in base 10 only (decimal).
func IntVar(fs *flag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	fs.Var(&decimal[int]{p}, name, usage)
}

// Int is fs.Int read in base 10 only (decimal).
func Int(fs *flag.FlagSet, name string, value int, usage string) *int {
	p := new(int)
	IntVar(fs, p, name, value, usage)
	return p
}

// Int64 is fs.Int64 read in base 10 only (decimal).
func Int64(fs *flag.FlagSet, name string, value int64, usage string) *int64 {
	p := &value
	fs.Var(&decimal[int64]{p}, name, usage)
	return p
}

// Uint64 is fs.Uint64 read in base 10 only (decimal).
func Uint64(fs *flag.FlagSet, name string, value uint64, usage string) *uint64 {
	p := &value
	fs.Var(&decimal[uint64]{p}, name, usage)
	return p
}
