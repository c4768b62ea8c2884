package sweep

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// keyKind is the type of a configuration key's value.
type keyKind int

const (
	kString keyKind = iota
	kInt            // int or int64
	kUint           // uint64 (seeds)
	kFloat
)

func (k keyKind) String() string {
	switch k {
	case kString:
		return "a string"
	case kInt:
		return "an integer"
	case kUint:
		return "a non-negative integer"
	}
	return "a number"
}

// key is one settable field of pairgossip.Config, named by its JSON name.
type key struct {
	Name  string
	field int
	Kind  keyKind
	// check validates a value on its own (dir: the sweep file's folder, for
	// relative paths).
	check func(v any, dir string) error
}

// Keys are the configuration keys a sweep file may set, in the order of
// pairgossip.Config (the order of its JSON form).
var Keys []*key

var keyByName = map[string]*key{}

// KeyNames returns the names of Keys.
func KeyNames() []string {
	out := make([]string, len(Keys))
	for i, k := range Keys {
		out[i] = k.Name
	}
	return out
}

func init() {
	t := reflect.TypeOf(pairgossip.Config{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		k := &key{Name: name, field: i}
		switch f.Type.Kind() {
		case reflect.String:
			k.Kind = kString
		case reflect.Int, reflect.Int64:
			k.Kind = kInt
		case reflect.Uint64:
			k.Kind = kUint
		case reflect.Float64:
			k.Kind = kFloat
		default:
			panic("sweep: unsupported Config field type " + f.Type.String())
		}
		k.check = checks[name]
		Keys = append(Keys, k)
		keyByName[name] = k
	}
}

func oneOf(list []string) func(v any, dir string) error {
	return func(v any, _ string) error {
		s := v.(string)
		for _, x := range list {
			if x == s {
				return nil
			}
		}
		return fmt.Errorf("unknown value %q (valid: %s)", s, strings.Join(list, ", "))
	}
}

func fileExists(builtins ...string) func(v any, dir string) error {
	return func(v any, dir string) error {
		s := v.(string)
		for _, b := range builtins {
			if s == b {
				return nil
			}
		}
		if s == "" {
			return nil
		}
		if _, err := os.Stat(ResolvePath(dir, s)); err != nil {
			if len(builtins) > 0 {
				return fmt.Errorf("%q: no such file (and not a built-in: %s)", s, strings.Join(builtins, ", "))
			}
			return fmt.Errorf("%q: no such file", s)
		}
		return nil
	}
}

func numCheck(ok func(x float64) bool, want string) func(v any, dir string) error {
	return func(v any, _ string) error {
		x := toFloat(v)
		if !ok(x) {
			return fmt.Errorf("must be %s, got %s", want, formatValue(v))
		}
		return nil
	}
}

var checks = map[string]func(v any, dir string) error{
	"problem": func(v any, _ string) error { _, err := problem.ParseLoss(v.(string)); return err },
	"data":    fileExists(dataset.SpecBreastCancer, dataset.SpecSynthetic),
	"graph": func(v any, d string) error {
		if v.(string) == "" {
			return nil // centralized
		}
		return oneOf(graph.Kinds)(v, d)
	},
	"graph_file":      fileExists(),
	"graph_p":         numCheck(func(x float64) bool { return x >= 0 && x <= 1 }, "in [0, 1]"),
	"graph_k":         numCheck(func(x float64) bool { return x >= 0 }, ">= 0"),
	"graph_radius":    numCheck(func(x float64) bool { return x >= 0 }, ">= 0"),
	"graph_rows":      numCheck(func(x float64) bool { return x >= 0 }, ">= 0"),
	"graph_cols":      numCheck(func(x float64) bool { return x >= 0 }, ">= 0"),
	"points_per_node": numCheck(func(x float64) bool { return x >= 1 }, ">= 1"),
	"algorithm":       func(v any, _ string) error { _, err := engine.ParseAlgorithm(v.(string)); return err },
	"baseline":        func(v any, _ string) error { _, err := engine.ParseEstimator(v.(string)); return err },
	"iters":           numCheck(func(x float64) bool { return x >= 1 }, ">= 1"),
	"reg":             func(v any, _ string) error { _, err := problem.ParseReg(v.(string)); return err },
	"lambda":          numCheck(func(x float64) bool { return x >= 0 }, ">= 0"),
	"radius":          numCheck(func(x float64) bool { return x > 0 }, "> 0"),
	"b":               numCheck(func(x float64) bool { return x > 0 }, "> 0"),
	"gamma_c":         numCheck(func(x float64) bool { return x > 0 }, "> 0"),
	"gamma_alpha":     numCheck(func(x float64) bool { return x >= 0 && x < 0.5 }, "in [0, 0.5)"),
	"log_points":      numCheck(func(x float64) bool { return x >= 1 }, ">= 1"),
}

// ResolvePath resolves a file named in a sweep file: relative paths are
// relative to the sweep file's folder.
func ResolvePath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// formatValue renders a key's value the way it is shown in labels and
// tables: strings as they are, numbers in their shortest exact form.
func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// set assigns v (already of the key's kind) to the key's field of cfg.
func (k *key) set(cfg *pairgossip.Config, v any) {
	f := reflect.ValueOf(cfg).Elem().Field(k.field)
	switch k.Kind {
	case kString:
		f.SetString(v.(string))
	case kInt:
		f.SetInt(v.(int64))
	case kUint:
		f.SetUint(v.(uint64))
	case kFloat:
		f.SetFloat(v.(float64))
	}
}
