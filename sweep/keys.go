package sweep

import (
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/config"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pairgossip/pairgossip"
)

// keyKind is the type of a configuration key's value.
type keyKind int

const (
	kString keyKind = iota
	kInt            // int or int64
	kUint           // uint64 (seeds)
	kFloat
	kBool // true or false (loss_oneway)
)

func (k keyKind) String() string {
	switch k {
	case kString:
		return "a string"
	case kInt:
		return "an integer"
	case kUint:
		return "a non-negative integer"
	case kBool:
		return "true or false"
	}
	return "a number"
}

// key is one parameter of pairgossip.Config that a sweep file may set, by
// its sweep key (config.Param.Key).
type key struct {
	Name  string
	Kind  keyKind
	param *config.Param
}

// Keys are the configuration keys a sweep file may set, in the order of
// pairgossip.Config (the table config.Params).
var Keys []*key

// keyByName finds a key by its name or by a deprecated spelling.
var keyByName = map[string]*key{}

// KeyNames returns the names of Keys.
func KeyNames() []string {
	out := make([]string, len(Keys))
	for i, k := range Keys {
		out[i] = k.Name
	}
	return out
}

// DeprecatedKeys returns the deprecated spellings of keys that are still
// read, each as "old (now new)".
func DeprecatedKeys() []string {
	var out []string
	for _, k := range Keys {
		for _, old := range k.param.OldKeys {
			out = append(out, fmt.Sprintf("%s (now %s)", old, k.Name))
		}
	}
	return out
}

// deprecation is the warning for a deprecated spelling of a key, "" for
// the current one.
func deprecation(name string) string {
	k := keyByName[name]
	if k == nil || k.Name == name {
		return ""
	}
	return fmt.Sprintf("key %q is deprecated: use %s (%s)", name, k.Name, firstLine(k.param.Help))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSuffix(s, ";")
}

// jsonName is the name a key's parameter has in the configuration JSON of
// the runs table (the key itself, or an old spelling of it).
func jsonName(name string) string {
	if k := keyByName[name]; k != nil {
		return k.param.JSON
	}
	return name
}

func init() {
	for _, p := range config.Params() {
		if p.Key == "" {
			continue
		}
		k := &key{Name: p.Key, param: p}
		switch p.Kind() {
		case config.KindString:
			k.Kind = kString
		case config.KindInt:
			k.Kind = kInt
		case config.KindUint:
			k.Kind = kUint
		case config.KindFloat:
			k.Kind = kFloat
		case config.KindBool:
			k.Kind = kBool
		default:
			panic("sweep: unsupported kind of key " + p.Key)
		}
		Keys = append(Keys, k)
		keyByName[p.Key] = k
		for _, old := range p.OldKeys {
			keyByName[old] = k
		}
	}
}

// check validates a value of the key on its own (dir: the sweep file's
// folder, for relative paths): a string must be one of the parameter's
// choices, then pairgossip's validation of the parameter applies.
func (k *key) check(v any, dir string) error {
	if s, ok := v.(string); ok {
		if !k.param.Allows(s) {
			return fmt.Errorf("unknown value %q (valid: %s)", s, strings.Join(k.param.Choices, ", "))
		}
		// The file as Resolved will name it: a path, or a network knob
		// that names files (churn file:, weights:, schedule file phases).
		if k.param.Path || k.param.Group == "network" {
			var cfg pairgossip.Config
			k.set(&cfg, s)
			v = k.param.Get(ptr(resolveConfig(dir, cfg)))
		}
	}
	if err := k.param.CheckValue(v); err != nil {
		return err
	}
	return k.param.CheckGiven(v)
}

// ResolvePath resolves a file named in a sweep file: relative paths are
// relative to the sweep file's folder.
func ResolvePath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
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

// KeyError returns err with an invalid parameter named by its sweep key
// (`key "iters": ...`) instead of its flag; other errors as they are.
func KeyError(err error) error {
	var pe *config.ParamError
	if errors.As(err, &pe) {
		return errors.New(pe.KeyMessage())
	}
	return err
}

func ptr[T any](v T) *T { return &v }

// set assigns v (already of the key's kind) to the key's field of cfg.
func (k *key) set(cfg *pairgossip.Config, v any) { k.param.Set(cfg, v) }
