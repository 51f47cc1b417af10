package wirejson

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendFloat appends f as encoding/json writes a float64: like
// strconv's shortest 'f' form, switching to 'e' below 1e-6 and from 1e21
// on, with the exponent unpadded. JSON has no NaN or infinity: f must be
// finite (check with Finite; encoding/json fails on them).
func AppendFloat(b []byte, f float64) []byte {
	if out, ok := appendShortDecimal(b, f); ok {
		return out
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// pow10 are the exact powers of ten appendShortDecimal tries.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6}

// maxShortDecimal bounds the digits appendShortDecimal writes: decimals of
// at most 15 significant digits map to distinct float64s.
const maxShortDecimal = 1e15

// appendShortDecimal writes the common numbers of the wire (integers,
// times and work with a few decimals) without strconv's general shortest
// search, and reports whether it could. It looks for the fewest decimals
// k <= 6 such that f is the float64 nearest to n / 10^k for an integer n
// below 10^15. That decimal is then the shortest one that reads back as f
// (two different decimals of at most 15 significant digits never share a
// float64), so it is exactly what strconv's shortest 'f' format writes.
// float64(n) / 10^k is that nearest float64 because n and 10^k are exact
// and division rounds correctly.
func appendShortDecimal(b []byte, f float64) ([]byte, bool) {
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0"...), true
		}
		return append(b, '0'), true
	}
	abs := math.Abs(f)
	if abs < 1e-6 || abs >= maxShortDecimal {
		return b, false
	}
	for k, p := range pow10 {
		n := math.Round(abs * p)
		if n >= maxShortDecimal {
			return b, false
		}
		if n/p != abs {
			continue
		}
		if f < 0 {
			b = append(b, '-')
		}
		var tmp [20]byte
		digits := strconv.AppendUint(tmp[:0], uint64(n), 10)
		if k == 0 {
			return append(b, digits...), true
		}
		if len(digits) <= k {
			b = append(b, '0', '.')
			for range k - len(digits) {
				b = append(b, '0')
			}
			return append(b, digits...), true
		}
		b = append(b, digits[:len(digits)-k]...)
		b = append(b, '.')
		return append(b, digits[len(digits)-k:]...), true
	}
	return b, false
}

// Finite reports whether f can be written as JSON.
func Finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// AppendInt appends n in decimal.
func AppendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted as encoding/json writes strings: with <,
// > and & escaped for HTML, control characters escaped, invalid UTF-8
// replaced by U+FFFD and U+2028 and U+2029 escaped.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendStrings appends a list of strings; nil is null, as in encoding/json.
func AppendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// AppendMap appends a map with string keys as encoding/json writes it:
// members sorted by key, nil as null. value appends one value; keys holds
// scratch space for the sorted keys and is returned for reuse.
func AppendMap[V any](b []byte, m map[string]V, keys []string, value func([]byte, V) []byte) ([]byte, []string) {
	if m == nil {
		return append(b, "null"...), keys
	}
	keys = keys[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare[string])
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		b = value(b, m[k])
	}
	return append(b, '}'), keys
}
