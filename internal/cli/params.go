package cli

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"

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
			fs.IntVar(f, p.Flag, *f, p.Help)
		case *int64:
			fs.Int64Var(f, p.Flag, *f, p.Help)
		case *uint64:
			fs.Uint64Var(f, p.Flag, *f, p.Help)
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
