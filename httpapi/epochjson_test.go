package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/tests/shim"
)

// plainStrings are strings encoding/json writes without escapes, non-ASCII
// included: the fast decoder must take every body made of them.
var plainStrings = rapid.StringMatching(`[a-zA-Z0-9_. é日-]{0,12}`)

// plainConfig makes wire values whose JSON the fast decoder must accept:
// strings without escapes and integers it converts itself (at most 18
// digits; longer ones it leaves to encoding/json).
var plainConfig = rapid.MakeConfig{Kinds: map[reflect.Kind]*rapid.Generator[any]{
	reflect.String: plainStrings.AsAny(),
	reflect.Int:    rapid.IntRange(-999_999_999_999_999_999, 999_999_999_999_999_999).AsAny(),
	reflect.Int64:  rapid.Int64Range(-999_999_999_999_999_999, 999_999_999_999_999_999).AsAny(),
}}

// failer is what the checks need of a *testing.T or a *rapid.T.
type failer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// strictDecode is what the server falls back to: encoding/json, unknown
// fields rejected.
func strictDecode(t failer, body []byte) (httpapi.EpochRequest, error) {
	t.Helper()
	var v httpapi.EpochRequest
	err := httpapi.DecodeStrict(body, &v)
	return v, err
}

// checkEncoding fails unless AppendJSON writes what encoding/json.Marshal
// writes, failing where it fails.
func checkEncoding(t failer, v interface{ AppendJSON([]byte) ([]byte, error) }) []byte {
	t.Helper()
	want, werr := json.Marshal(v)
	got, gerr := v.AppendJSON([]byte("prefix"))
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("encoding/json error %v, AppendJSON error %v", werr, gerr)
	}
	if werr != nil {
		return nil
	}
	if !bytes.HasPrefix(got, []byte("prefix")) {
		t.Fatalf("AppendJSON dropped what it appends to")
	}
	got = got[len("prefix"):]
	if !bytes.Equal(want, got) {
		t.Fatalf("AppendJSON differs from encoding/json:\n got %s\nwant %s", got, want)
	}
	return want
}

// checkDecoding fails unless the fast decoder, when it takes body, decodes
// what encoding/json decodes.
func checkDecoding(t failer, body []byte) (accepted bool) {
	t.Helper()
	var fast httpapi.EpochRequest
	if !httpapi.DecodeEpochFast(body, &fast) {
		return false
	}
	slow, err := strictDecode(t, body)
	if err != nil {
		t.Fatalf("fast decoder took a body encoding/json refuses (%v): %.300s", err, body)
	}
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Fatalf("fast decoder differs from encoding/json (-json +fast):\n%s", diff)
	}
	return true
}

// TestEpochRequestJSON: on any request, AppendJSON is encoding/json's
// encoding, and the fast decoder reads plain encodings back exactly (so a
// field added to the wire type without a line in epochjson.go fails here).
func TestEpochRequestJSON(t *testing.T) {
	t.Run("any", rapid.MakeCheck(func(t *rapid.T) {
		v := rapid.Make[httpapi.EpochRequest]().Draw(t, "request")
		if body := checkEncoding(t, &v); body != nil {
			checkDecoding(t, body)
		}
	}))
	t.Run("plain", rapid.MakeCheck(func(t *rapid.T) {
		v := rapid.MakeCustom[httpapi.EpochRequest](plainConfig).Draw(t, "request")
		// The task-level extension (speculation advice) is left to
		// encoding/json by design: a body with it is not plain.
		ext := v.Speculation != nil || v.Explain || len(v.Nodes) > 0 || len(v.Tasks) > 0 ||
			len(v.CompletedTasks) > 0 || len(v.FinishedJobs) > 0 || v.Preschedule != nil
		for _, j := range v.Jobs {
			for _, p := range []*httpapi.PhaseState{j.Map, j.Reduce} {
				ext = ext || p != nil && len(p.LocalPending) > 0
			}
		}
		body := checkEncoding(t, &v)
		if accepted := checkDecoding(t, body); accepted == ext {
			t.Fatalf("fast decoder accepted %v a body with the extension %v: %s", accepted, ext, body)
		}
	}))
}

// TestEpochResponseJSON: on any decision, AppendJSON is encoding/json's
// encoding.
func TestEpochResponseJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.Make[httpapi.EpochResponse]().Draw(t, "response")
		checkEncoding(t, &v)
	})
}

// TestEpochJSONShim: the fake shim's bodies, as the load tool sends them,
// take the fast path and round-trip.
func TestEpochJSONShim(t *testing.T) {
	sh := shim.New(shim.Config{Cluster: "c1", Seed: 7, Jobs: 50, Replace: true, StaggerProgress: true, RatioMode: "pi_dhsa"})
	for range 20 {
		req := sh.Request()
		body := checkEncoding(t, &req)
		if !checkDecoding(t, body) {
			t.Fatalf("fast decoder refused a shim body: %.300s", body)
		}
		resp := httpapi.EpochResponse{Cluster: "c1", Epoch: req.Epoch}
		for _, j := range req.Jobs {
			resp.Allocations = append(resp.Allocations, httpapi.EpochAllocation{ID: j.ID, Map: 1, MapReason: "min", ReduceReason: "none"})
		}
		if err := sh.Apply(resp); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEpochFastDecodeGivesUp: bodies outside the fast path go to
// encoding/json (and so keep its answers and errors).
func TestEpochFastDecodeGivesUp(t *testing.T) {
	base := `{"epoch": 1, "slots": {"map": 2, "reduce": 1}, "jobs": [{"id": "a", "map": {"max": 1, "work": 1}}]}`
	if !checkDecoding(t, []byte(base)) {
		t.Fatalf("the base body should take the fast path")
	}
	cases := map[string]string{
		"escaped string":       strings.Replace(base, `"a"`, `"\u0061"`, 1),
		"escaped key":          strings.Replace(base, `"epoch"`, `"\u0065poch"`, 1),
		"key in another case":  strings.Replace(base, `"epoch"`, `"Epoch"`, 1),
		"duplicate key":        strings.Replace(base, `"epoch": 1,`, `"epoch": 1, "epoch": 2,`, 1),
		"duplicate nested key": strings.Replace(base, `"max": 1,`, `"max": 1, "max": 2,`, 1),
		"unknown key":          strings.Replace(base, `"epoch"`, `"epoc"`, 1),
		"float for an int":     strings.Replace(base, `"epoch": 1`, `"epoch": 1.0`, 1),
		"exponent for an int":  strings.Replace(base, `"epoch": 1`, `"epoch": 1e0`, 1),
		"19-digit int":         strings.Replace(base, `"epoch": 1`, `"epoch": 1000000000000000000`, 1),
		"string for a number":  strings.Replace(base, `"work": 1`, `"work": "1"`, 1),
		"float out of range":   strings.Replace(base, `"work": 1`, `"work": 1e400`, 1),
		"invalid UTF-8":        strings.Replace(base, `"a"`, "\"\xff\"", 1),
		"control character":    strings.Replace(base, `"a"`, "\"a\tb\"", 1),
		"top-level null":       `null`,
		"trailing data":        base + ` {}`,
		"trailing comma":       strings.Replace(base, `"work": 1}`, `"work": 1,}`, 1),
		"leading zero":         strings.Replace(base, `"epoch": 1`, `"epoch": 01`, 1),
		"bare minus":           strings.Replace(base, `"epoch": 1`, `"epoch": -`, 1),
		"truncated":            base[:len(base)-3],
		"empty":                ``,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			var v httpapi.EpochRequest
			if httpapi.DecodeEpochFast([]byte(body), &v) {
				t.Errorf("fast decoder took %s", body)
			}
		})
	}
	// Nulls and empty arrays are plain: the fast path takes them as
	// encoding/json does (zero values; [] is empty, not nil).
	for _, body := range []string{
		strings.Replace(base, `"jobs": [`, `"ratio": null, "omo": null, "phase_policy": null, "policy": null, "jobs": [null, `, 1),
		strings.Replace(base, `"map": {`, `"weight": null, "sla": [], "reduce": null, "map": {"started": null, `, 1),
		`{"jobs": [], "slots": null}`,
		` {"epoch": -0, "now": -0.0, "epoch_length": 1E-7} `,
	} {
		if !checkDecoding(t, []byte(body)) {
			t.Errorf("fast decoder refused %s", body)
		}
	}
}

// FuzzEpochFastDecode: whatever the body, the fast decoder takes only what
// encoding/json takes, decodes it the same, and the request's canonical
// form is encoding/json's.
func FuzzEpochFastDecode(f *testing.F) {
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
		if !checkDecoding(t, body) {
			return
		}
		var v httpapi.EpochRequest
		httpapi.DecodeEpochFast(body, &v)
		checkEncoding(t, &v)
	})
}

// BenchmarkEpochJSON compares the epoch endpoint's JSON fast paths with
// encoding/json on a 200-job epoch of the load test's shape: decoding the
// body, writing its canonical form and writing the decision.
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
	run("decode/fast", len(body), func() {
		var v httpapi.EpochRequest
		if !httpapi.DecodeEpochFast(body, &v) {
			b.Fatal("the fast path refused the body")
		}
	})
	run("decode/encoding-json", len(body), func() {
		var v httpapi.EpochRequest
		if err := httpapi.DecodeStrict(body, &v); err != nil {
			b.Fatal(err)
		}
	})
	buf := make([]byte, 0, 2*len(res.body))
	run("request/append", len(body), func() { buf, _ = req.AppendJSON(buf[:0]) })
	run("request/encoding-json", len(body), func() { _, _ = json.Marshal(&req) })
	run("decision/append", len(res.body), func() { buf, _ = dec.AppendJSON(buf[:0]) })
	run("decision/encoding-json", len(res.body), func() { _, _ = json.Marshal(&dec) })
}
