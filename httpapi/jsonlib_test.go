package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/tests/shim"
)

// The epoch endpoint decodes and encodes with goccy/go-json (behind
// strictScan on the way in). These tests hold the library to what the
// contract promises, which encoding/json defines: the same values and
// errors on any body, and byte for byte the same encodings (the stored
// canonical request is hashed, so a retry across an upgrade must hash
// alike).

// plainStrings are strings encoding/json writes without escapes, non-ASCII
// included: strictScan must take every body made of them.
var plainStrings = rapid.StringMatching(`[a-zA-Z0-9_. é日-]{0,12}`)

// plainConfig makes wire values whose JSON strictScan must take.
var plainConfig = rapid.MakeConfig{Kinds: map[reflect.Kind]*rapid.Generator[any]{
	reflect.String: plainStrings.AsAny(),
}}

// failer is what the checks need of a *testing.T or a *rapid.T.
type failer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkEncoding fails unless goccy/go-json writes what encoding/json.Marshal
// writes, failing where it fails, and returns the encoding.
func checkEncoding(t failer, v any) []byte {
	t.Helper()
	want, werr := json.Marshal(v)
	got, gerr := gojson.Marshal(v)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("encoding/json error %v, goccy/go-json error %v", werr, gerr)
	}
	if werr != nil {
		return nil
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("goccy/go-json differs from encoding/json:\n got %s\nwant %s", got, want)
	}
	return want
}

// checkDecoding fails unless the server's decode (strictScan, then
// goccy/go-json) answers what the token walk and encoding/json answer:
// the same value, or the same error, status and fields.
func checkDecoding(t failer, body []byte) {
	t.Helper()
	var fast, walk httpapi.EpochRequest
	ferr := httpapi.DecodeStrict(body, &fast)
	werr := httpapi.DecodeStrictWalk(body, &walk, nil)
	if (ferr == nil) != (werr == nil) || ferr != nil && ferr.Error() != werr.Error() {
		t.Fatalf("decode error %v, encoding/json's %v: %.300s", ferr, werr, body)
	}
	if ff, wf := httpapi.ErrorFields(ferr), httpapi.ErrorFields(werr); !reflect.DeepEqual(ff, wf) {
		t.Fatalf("decode error fields %v, encoding/json's %v", ff, wf)
	}
	if diff := cmp.Diff(walk, fast); diff != "" {
		t.Fatalf("decode differs from encoding/json (-json +library):\n%s", diff)
	}
}

// scanTakes fails unless strictScan takes body, so that the server decodes
// it with the library and not with the walk.
func scanTakes(t failer, body []byte) {
	t.Helper()
	if !httpapi.StrictScan(body, reflect.TypeFor[*httpapi.EpochRequest](), nil) {
		t.Fatalf("strictScan refused a plain body: %.300s", body)
	}
}

// TestEpochRequestJSON: on any request, the library encodes as
// encoding/json does and the server decodes the encoding back as
// encoding/json does; plain encodings take the library's path.
func TestEpochRequestJSON(t *testing.T) {
	t.Run("any", rapid.MakeCheck(func(t *rapid.T) {
		v := rapid.Make[httpapi.EpochRequest]().Draw(t, "request")
		if body := checkEncoding(t, &v); body != nil {
			checkDecoding(t, body)
		}
	}))
	t.Run("plain", rapid.MakeCheck(func(t *rapid.T) {
		v := rapid.MakeCustom[httpapi.EpochRequest](plainConfig).Draw(t, "request")
		body := checkEncoding(t, &v)
		if body == nil {
			return // a NaN or an infinity: neither encoder writes it
		}
		scanTakes(t, body)
		checkDecoding(t, body)
	}))
}

// TestEpochResponseJSON: on any decision, the library's encoding is
// encoding/json's.
func TestEpochResponseJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.Make[httpapi.EpochResponse]().Draw(t, "response")
		checkEncoding(t, &v)
	})
}

// TestEpochJSONShim: the fake shim's bodies, as the load tool sends them,
// take the library's path and round-trip.
func TestEpochJSONShim(t *testing.T) {
	sh := shim.New(shim.Config{Cluster: "c1", Seed: 7, Jobs: 50, Replace: true, StaggerProgress: true, RatioMode: "pi_dhsa"})
	for range 20 {
		req := sh.Request()
		body := checkEncoding(t, &req)
		scanTakes(t, body)
		checkDecoding(t, body)
		resp := httpapi.EpochResponse{Cluster: "c1", Epoch: req.Epoch}
		for _, j := range req.Jobs {
			resp.Allocations = append(resp.Allocations, httpapi.EpochAllocation{ID: j.ID, Map: 1, MapReason: "min", ReduceReason: "none"})
		}
		if err := sh.Apply(resp); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEpochDecodeEdges: the corners where JSON decoders tend to differ
// (escapes, invalid UTF-8, numbers, syntax, trailing data, nulls) decode
// or fail as with encoding/json.
func TestEpochDecodeEdges(t *testing.T) {
	base := `{"epoch": 1, "slots": {"map": 2, "reduce": 1}, "jobs": [{"id": "a", "map": {"max": 1, "work": 1}}]}`
	cases := map[string]string{
		"base":                 base,
		"escaped string":       strings.Replace(base, `"a"`, `"\u0061\n\ud83d\ude00"`, 1),
		"lone surrogate":       strings.Replace(base, `"a"`, `"\ud800x"`, 1),
		"escaped key":          strings.Replace(base, `"epoch"`, `"\u0065poch"`, 1),
		"key in another case":  strings.Replace(base, `"epoch"`, `"Epoch"`, 1),
		"duplicate key":        strings.Replace(base, `"epoch": 1,`, `"epoch": 1, "epoch": 2,`, 1),
		"duplicate nested key": strings.Replace(base, `"max": 1,`, `"max": 1, "max": 2,`, 1),
		"unknown key":          strings.Replace(base, `"epoch"`, `"epoc"`, 1),
		"float for an int":     strings.Replace(base, `"epoch": 1`, `"epoch": 1.0`, 1),
		"exponent for an int":  strings.Replace(base, `"epoch": 1`, `"epoch": 1e0`, 1),
		"19-digit int":         strings.Replace(base, `"epoch": 1`, `"epoch": 1000000000000000000`, 1),
		"int overflow":         strings.Replace(base, `"epoch": 1`, `"epoch": 9223372036854775808`, 1),
		"string for a number":  strings.Replace(base, `"work": 1`, `"work": "1"`, 1),
		"float out of range":   strings.Replace(base, `"work": 1`, `"work": 1e400`, 1),
		"tiny float":           strings.Replace(base, `"work": 1`, `"work": 4.9e-325`, 1),
		"invalid UTF-8":        strings.Replace(base, `"a"`, "\"\xff\"", 1),
		"control character":    strings.Replace(base, `"a"`, "\"a\tb\"", 1),
		"top-level null":       `null`,
		"trailing data":        base + ` {}`,
		"trailing comma":       strings.Replace(base, `"work": 1}`, `"work": 1,}`, 1),
		"leading zero":         strings.Replace(base, `"epoch": 1`, `"epoch": 01`, 1),
		"bare minus":           strings.Replace(base, `"epoch": 1`, `"epoch": -`, 1),
		"plus sign":            strings.Replace(base, `"epoch": 1`, `"epoch": +1`, 1),
		"truncated":            base[:len(base)-3],
		"empty":                ``,
		"nulls":                strings.Replace(base, `"jobs": [`, `"ratio": null, "omo": null, "phase_policy": null, "policy": null, "jobs": [null, `, 1),
		"nested nulls":         strings.Replace(base, `"map": {`, `"weight": null, "sla": [], "reduce": null, "map": {"started": null, `, 1),
		"empty jobs":           `{"jobs": [], "slots": null}`,
		"negative zeros":       ` {"epoch": -0, "now": -0.0, "epoch_length": 1E-7} `,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) { checkDecoding(t, []byte(body)) })
	}
}

// FuzzEpochJSON: whatever the body, the server's decode answers what
// encoding/json answers, and the request's canonical form (the library's
// encoding of what was decoded) is encoding/json's.
//
//	go test ./httpapi -run '^$' -fuzz FuzzEpochJSON -fuzztime 60s
func FuzzEpochJSON(f *testing.F) {
	sh := shim.New(shim.Config{Cluster: "c1", Seed: 1, Jobs: 3, StaggerProgress: true, RatioMode: "pd_dhsa"})
	req := sh.Request()
	body, err := json.Marshal(req)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{string(body), epochBody, epochN("2"), `{}`, `{"jobs": [], "slots": null}`,
		dhsa(`"ratio": {"mode": "pd_dhsa", "pools": [{"name": "a"}, {"name": "b", "weight": 2}], "reduce_slot_weight": 3}`),
		omoEpoch(1, 4), fmt.Sprintf(`{"epoch": %d, "jobs": [{"id": "x", "sla": [{"deadline": 1, "penalty": 2}]}]}`, 1<<62),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecoding(t, body)
		var v httpapi.EpochRequest
		if httpapi.DecodeStrict(body, &v) == nil {
			checkEncoding(t, &v)
		}
	})
}

// BenchmarkEpochJSON compares the epoch endpoint's JSON (goccy/go-json,
// behind strictScan when decoding) with encoding/json on a 200-job epoch
// of the load test's shape: decoding the body, writing its canonical form
// and writing the decision.
//
//	go test ./httpapi -run '^$' -bench BenchmarkEpochJSON -count 5
func BenchmarkEpochJSON(b *testing.B) {
	sh := shim.New(shim.Config{Cluster: "c1", Seed: 1, Jobs: 200, Replace: true, StaggerProgress: true, MapSlots: 200, ReduceSlots: 100})
	req := sh.Request()
	body, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	e := newEnv(b, nil)
	res := e.post("/v1/clusters/c1/epochs", "", string(body))
	if res.status != 200 {
		b.Fatalf("epoch: %d %s", res.status, res.body)
	}
	var dec httpapi.EpochResponse
	if err := json.Unmarshal(res.body, &dec); err != nil {
		b.Fatal(err)
	}
	run := func(name string, size int, f func()) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				f()
			}
		})
	}
	run("decode/server", len(body), func() {
		var v httpapi.EpochRequest
		if err := httpapi.DecodeStrict(body, &v); err != nil {
			b.Fatal(err)
		}
	})
	// The path every body strictScan refuses takes: the token walk, then
	// encoding/json.
	run("decode/walk", len(body), func() {
		var v httpapi.EpochRequest
		if err := httpapi.DecodeStrictWalk(body, &v, nil); err != nil {
			b.Fatal(err)
		}
	})
	// encoding/json alone, without any strictness check.
	run("decode/encoding-json", len(body), func() {
		var v httpapi.EpochRequest
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
	})
	run("request/goccy", len(body), func() { _, _ = gojson.Marshal(&req) })
	run("request/encoding-json", len(body), func() { _, _ = json.Marshal(&req) })
	run("decision/goccy", len(res.body), func() { _, _ = gojson.Marshal(&dec) })
	run("decision/encoding-json", len(res.body), func() { _, _ = json.Marshal(&dec) })
}
