package wirejson_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/flexd/flexd/internal/wirejson"
)

// TestAppendFloat: the cases where encoding/json's format changes: the
// switch to exponents, the exponent's padding, negative zero, the extremes.
func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99999e-7, 1e-7, 1.5e-9, 1e20, 1e21, 123456789e13,
		math.MaxFloat64, math.SmallestNonzeroFloat64, -math.MaxFloat64, 1000.6, 1.4285714285714286, 1e-100, 2.5e+300} {
		checkFloat(t, f)
	}
}

func checkFloat(t *testing.T, f float64) {
	t.Helper()
	want, err := json.Marshal(f)
	if err != nil {
		t.Fatalf("encoding/json on %v: %v", f, err)
	}
	if got := wirejson.AppendFloat(nil, f); !bytes.Equal(got, want) {
		t.Errorf("AppendFloat(%v) = %s, want %s", f, got, want)
	}
}

// TestAppendFloatDecimals: short decimals, their neighbours and the edges
// of the fast path, against encoding/json.
func TestAppendFloatDecimals(t *testing.T) {
	for k := range 8 {
		p := math.Pow(10, float64(k))
		for _, n := range []float64{1, 3, 7, 10, 99, 101, 996091, 1234567, 999999999999999, 1e15, 1e16, 4503599627370497} {
			for _, f := range []float64{n / p, -n / p} {
				checkFloat(t, f)
				checkFloat(t, math.Nextafter(f, 0))
				checkFloat(t, math.Nextafter(f, math.Inf(1)))
			}
		}
	}
	for i := range 100000 {
		checkFloat(t, float64(i)/1000)
		checkFloat(t, float64(i)*0.001)
		checkFloat(t, float64(i)*0.1+0.2)
	}
}

func FuzzAppendFloatDecimal(f *testing.F) {
	f.Add(int64(996091), uint8(3), int8(0))
	f.Fuzz(func(t *testing.T, n int64, k uint8, ulps int8) {
		v := float64(n) / math.Pow(10, float64(k%24))
		for range int(ulps) {
			v = math.Nextafter(v, math.Inf(1))
		}
		for range -int(ulps) {
			v = math.Nextafter(v, math.Inf(-1))
		}
		if wirejson.Finite(v) {
			checkFloat(t, v)
		}
	})
}

func FuzzAppendFloat(f *testing.F) {
	for _, seed := range []float64{0, 1e-7, 1e21, 3.14} {
		f.Add(math.Float64bits(seed))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		if v := math.Float64frombits(bits); wirejson.Finite(v) {
			checkFloat(t, v)
		}
	})
}

func checkString(t *testing.T, s string) {
	t.Helper()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("encoding/json on %q: %v", s, err)
	}
	if got := wirejson.AppendString(nil, s); !bytes.Equal(got, want) {
		t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
	}
}

// TestAppendString: every escape encoding/json writes.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "job_1", `a"b\c`, "<script>&</script>", "\b\f\n\r\t\x00\x1f\x7f", "é日本", "\xff\xfe", "a\u2028b\u2029c", "\xe2\x80", "🙂"} {
		checkString(t, s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, seed := range []string{"", "job_1", "<&>", "\u2028\xff"} {
		f.Add(seed)
	}
	f.Fuzz(checkString)
}

// TestAppendMap: members sorted by key, nil as null, empty as {}.
func TestAppendMap(t *testing.T) {
	intValue := func(b []byte, n int) []byte { return wirejson.AppendInt(b, int64(n)) }
	for _, m := range []map[string]int{nil, {}, {"b": 2, "a": 1, "<": 0, "B": 3, "é": 4}} {
		want, _ := json.Marshal(m)
		got, _ := wirejson.AppendMap(nil, m, nil, intValue)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendMap(%v) = %s, want %s", m, got, want)
		}
	}
}

// TestSkipValue: SkipValue takes exactly the single values encoding/json
// calls valid.
func TestSkipValue(t *testing.T) {
	for _, body := range []string{
		`{}`, `[]`, `{"a": [1, -2.5e+3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"], "b": {"c": {}}}`,
		` [ [ ] , { } ] `, `"\ud83d\ude00"`, `0`, `-0.0E-0`, "\"\xff\"",
		`{"a" 1}`, `{"a": 1,}`, `[1,]`, `[1 2]`, `{1: 2}`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `nul`, `"\x"`, `"\u12"`,
		`{"a": 1}}`, `]`, ``, `[{]`, `{"a": [}`, "\"a\tb\"", `{"a":1 "b":2}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		r := wirejson.NewReader([]byte(body))
		r.SkipValue()
		if got, want := r.AtEnd(), json.Valid([]byte(body)); got != want {
			t.Errorf("SkipValue took %.40q: %v, encoding/json says valid: %v", body, got, want)
		}
	}
}

func FuzzSkipValue(f *testing.F) {
	for _, seed := range []string{`{"a": [1, "x\n", {"b": null}]}`, `[1,]`, `"\u00e9"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := wirejson.NewReader(body)
		r.SkipValue()
		if got, want := r.AtEnd(), json.Valid(body); got != want {
			t.Errorf("SkipValue took %q: %v, encoding/json says valid: %v", body, got, want)
		}
	})
}

// scalars is what the Reader's value methods decode, as encoding/json
// would into the same fields.
type scalars struct {
	S  string   `json:"s"`
	I  int64    `json:"i"`
	F  float64  `json:"f"`
	B  bool     `json:"b"`
	FP *float64 `json:"fp"`
	BP *bool    `json:"bp"`
}

func readScalars(body []byte) (scalars, bool) {
	var v scalars
	r := wirejson.NewReader(body)
	if !r.BeginObject() {
		return v, false
	}
	for i := 0; r.NextMember(i); i++ {
		switch string(r.Key()) {
		case "s":
			v.S = r.String()
		case "i":
			v.I = r.Int64()
		case "f":
			v.F = r.Float64()
		case "b":
			v.B = r.Bool()
		case "fp":
			v.FP = r.Float64Ptr()
		case "bp":
			v.BP = r.BoolPtr()
		default:
			r.Fail()
		}
	}
	return v, r.AtEnd()
}

// FuzzReader: whatever the Reader takes, encoding/json takes and decodes
// the same (keys are unique here: callers reject repeats themselves).
func FuzzReader(f *testing.F) {
	for _, seed := range []string{
		`{"s": "é", "i": -12, "f": 1e-3, "b": true, "fp": 2, "bp": false}`,
		`{"s": null, "i": null, "f": null, "b": null, "fp": null, "bp": null}`,
		`{"i": 999999999999999999, "f": 1.7976931348623157e308}`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := readScalars(body)
		if !ok {
			return
		}
		var want scalars
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("Reader took %q, encoding/json refuses it: %v", body, err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if !bytes.Equal(a, b) {
			t.Fatalf("Reader decoded %q as %s, encoding/json as %s", body, a, b)
		}
	})
}
