package sweep

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strings"
)

// Numbers in sweep files are ordinary decimal numbers only. YAML (and
// yaml.v3) also reads 010 and 0o10 as octal 8, 0x10 as 16, 0b11 as 3 and
// 1_000 as 1000: a sweep file that means the decimal number it shows must
// not silently get another, so these spellings are refused.
var (
	decimalIntRE   = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)
	decimalFloatRE = regexp.MustCompile(`^[-+]?((0|[1-9][0-9]*)(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$`)
	leadingZeroRE  = regexp.MustCompile(`^[-+]?0[0-9]`)
)

// numberSyntax explains why s is not an ordinary decimal number (an
// integer when integer is set), or returns "" when it is one.
func numberSyntax(s string, integer bool) string {
	re := decimalFloatRE
	if integer {
		re = decimalIntRE
	}
	if re.MatchString(s) {
		return ""
	}
	low := strings.ToLower(strings.TrimLeft(s, "+-"))
	switch {
	case strings.HasPrefix(low, "0x") || strings.HasPrefix(low, "0o") || strings.HasPrefix(low, "0b"):
		return "hexadecimal, octal and binary numbers are not accepted: write the number in decimal"
	case strings.Contains(s, "_"):
		return "underscores are not accepted in numbers: write the digits only"
	case leadingZeroRE.MatchString(s):
		return "a leading 0 is not accepted (YAML reads 010 as octal 8): write the number in decimal without leading zeros"
	}
	return ""
}

var (
	bigMinInt64  = big.NewInt(math.MinInt64)
	bigMaxInt64  = big.NewInt(math.MaxInt64)
	bigMaxUint64 = new(big.Int).SetUint64(math.MaxUint64)
)

// intOfKind converts b to the Go value of a key of the given kind, or says
// that it is out of that kind's range.
func intOfKind(b *big.Int, kind keyKind) (any, error) {
	switch kind {
	case kUint:
		if b.Sign() < 0 || b.Cmp(bigMaxUint64) > 0 {
			return nil, fmt.Errorf("%s is out of range: expected a non-negative integer up to %d", b, uint64(math.MaxUint64))
		}
		return b.Uint64(), nil
	case kInt:
		if b.Cmp(bigMinInt64) < 0 || b.Cmp(bigMaxInt64) > 0 {
			return nil, fmt.Errorf("%s is out of range: expected an integer in [%d, %d]", b, int64(math.MinInt64), int64(math.MaxInt64))
		}
		return b.Int64(), nil
	case kFloat:
		f, _ := new(big.Float).SetInt(b).Float64()
		return f, nil
	}
	return nil, fmt.Errorf("%s: not a numeric key", b)
}

// intRange expands {range: [lo, hi, step]} into its values, computed
// exactly (math/big) so that ends near the limits of int64 or uint64 give
// the right values or the right message, never a wrapped-around number.
// It refuses more than maxValues values before making any.
func intRange(lo, hi, step *big.Int, kind keyKind, maxValues int) ([]any, error) {
	if step.Sign() == 0 {
		return nil, fmt.Errorf("the step must not be 0")
	}
	span := new(big.Int).Sub(hi, lo)
	if span.Sign() != 0 && span.Sign() != step.Sign() {
		dir := "hi < lo with a positive step"
		if step.Sign() < 0 {
			dir = "hi > lo with a negative step"
		}
		return nil, fmt.Errorf("no values (%s)", dir)
	}
	count := new(big.Int).Quo(span, step) // >= 0
	count.Add(count, big.NewInt(1))
	if count.Cmp(big.NewInt(int64(maxValues))) > 0 {
		return nil, fmt.Errorf("%s values, more than the limit %d", count, maxValues)
	}
	n := int(count.Int64())
	out := make([]any, 0, n)
	v := new(big.Int).Set(lo)
	for i := 0; i < n; i++ {
		x, err := intOfKind(v, kind)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		v.Add(v, step)
	}
	return out, nil
}

// rangeText renders a range's arguments as written: [lo, hi] or [lo, hi, step].
func rangeText(v []*big.Int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = x.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
