package httpapi

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// scanSeeds are bodies for the strict decode: valid ones and every kind of
// problem the walk reports or leaves to encoding/json.
var scanSeeds = []string{
	`{"slots": 10, "now": 0, "jobs": [{"id": "j1", "min": 1, "max": 10, "work": 100, "submitted": 0}, {"id": "j2", "min": 1, "max": 4, "work": 20, "submitted": 0}]}`,
	`{"slots": 10, "jobs": [{"id": "a", "max": 1, "work": 1, "weight": 2, "deadline": 5, "sla": [{"deadline": 1, "penalty": 0.5}], "objective": "tardy_jobs"}], "plan": "dense", "effort": 3, "explain": true}`,
	`{"slots": 10, "jobs": []}`, `{"slots": 10, "jobs": null}`, `{"jobs": [null, {"id": "x"}]}`, `{}`, ` {"slots" : 1 , "jobs" : [ ] } `,
	`{"slots": 10, "jobs": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}`,                      // over a limit of 2
	`{"slots": 10, "jobs": [{"id": "a"}, {"id": 7}, {"id": "c"}]}`,                        // a type error before the limit
	`{"slots": 10, "jobs": [{"id": "a"}, {"id": "b"}, {"id": 7}]}`,                        // and past it
	`{"slots": 10, "Slots": 11, "jobs": []}`, `{"SLOTS": 10}`, `{"slots": 1, "slots": 2}`, // case folded, twice
	`{"slots": 10, "jobs": [{"id": "a", "id": "b"}]}`, `{"jobs": [{"id": "a", "ID": "b"}]}`,
	`{"sl\u006fts": 10}`, `{"slots": 10, "jobs": [{"id": "a\"b\\c\u00e9"}]}`, `{"jobz": []}`,
	`{"slots": "ten"}`, `{"slots": 1.5}`, `{"slots": 1e30}`, `{"jobs": [{"work": 1e400}]}`, `{"jobs": [{"work": "NaN"}]}`,
	`{"jobs": {}}`, `{"jobs": [[]]}`, `{"jobs": [{"sla": {}}]}`, `{"jobs": [{"sla": [1]}]}`, `[1, 2]`, `"x"`, `null`, `7`,
	`{"slots": 10, "jobs": [`, `{"slots": 10} {}`, `{"slots": 10}x`, ``, `   `, `{"slots": 10,}`, `{"slots" 10}`, `{,}`,
	`{"slots": tru}`, `{"explain": true, "explain": false}`, `{"explain": nul}`, `{"jobs": [{"id": "a",}]}`, `{"jobs": [1,]}`,
	`{"effort": null, "plan": null}`, `{"jobs": [{"weight": null, "deadline": null, "sla": null}]}`,
	"{\"slots\": 10, \"jobs\": [{\"id\": \"a\tb\"}]}", `{"slots": -0, "now": -1.5e-7}`, `{"jobs": [{"id": "\ud800"}]}`,
}

// decodeBoth decodes body into a fresh T with the fast path and with the
// walk alone.
func decodeBoth[T any](body []byte, bounds map[string]int) (fast, walk T, ferr, werr error) {
	ferr = decodeStrictLimited(body, &fast, bounds)
	werr = decodeStrictWalk(body, &walk, bounds)
	return
}

// sameDecode reports how the fast path differs from the walk, "" when it
// does not: the same error (status, detail, fields) or the same value.
// The walk itself is compared with the walk on encoding/json's tokens,
// its oracle, the same way.
func sameDecode[T any](body []byte, bounds map[string]int) string {
	fast, walk, ferr, werr := decodeBoth[T](body, bounds)
	var std T
	serr := decodeStrictWalkWith(body, &std, bounds, stdTokens)
	if d := sameResult(walk, std, werr, serr); d != "" {
		return "walk against its oracle: " + d
	}
	return sameResult(fast, walk, ferr, werr)
}

// sameResult reports how two decodes differ, "" when they do not.
func sameResult[T any](fast, walk T, ferr, werr error) string {
	var fa, wa *apiError
	errors.As(ferr, &fa)
	errors.As(werr, &wa)
	switch {
	case (ferr == nil) != (werr == nil):
		return fmt.Sprintf("error %v, walk %v", ferr, werr)
	case ferr != nil && (fa == nil || wa == nil):
		return fmt.Sprintf("error %v (%T), walk %v (%T)", ferr, ferr, werr, werr)
	case ferr != nil && (fa.status != wa.status || fa.detail != wa.detail || !reflect.DeepEqual(fa.fields, wa.fields)):
		return fmt.Sprintf("error %v %v, walk %v %v", ferr, fa.fields, werr, wa.fields)
	case ferr == nil && !reflect.DeepEqual(fast, walk):
		return fmt.Sprintf("decoded %+v, walk %+v", fast, walk)
	}
	return ""
}

// TestStrictScanAgreesWithWalk: the strict decode's fast path answers
// exactly what the token walk and decode answer, value or error, for
// /v1/solve and epoch bodies, within and over the lists' limits.
func TestStrictScanAgreesWithWalk(t *testing.T) {
	for _, body := range scanSeeds {
		for _, bounds := range []map[string]int{nil, {"jobs": 2}, {"jobs": 0}} {
			if d := sameDecode[SolveRequest]([]byte(body), bounds); d != "" {
				t.Errorf("SolveRequest %q, bounds %v: %s", body, bounds, d)
			}
		}
	}
	epoch := `{"epoch": 1, "now": 100, "epoch_length": 0.5, "slots": {"map": 10, "reduce": 4}, "jobs": [
		{"id": "job_1", "submitted": 0, "map": {"min": 1, "max": 8, "work": 400, "pending": 20, "running": 2}},
		{"id": "job_2", "submitted": 10, "map": {"min": 0, "max": 4, "work": 50}, "reduce": {"min": 1, "max": 2, "work": 30, "started": true}}]}`
	for _, body := range []string{epoch, strings.Replace(epoch, `"started": true`, `"started": true, "started": false`, 1),
		strings.Replace(epoch, `"map": 10`, `"Map": 10`, 1), strings.Replace(epoch, `"epoch": 1`, `"epoch": 1, "ratio": {"mode": "pd_dhsa", "pools": [{"name": "a"}]}`, 1)} {
		for _, bounds := range []map[string]int{nil, {"jobs": 1}, {"jobs": 2, "nodes": 0, "tasks": 0}} {
			if d := sameDecode[EpochRequest]([]byte(body), bounds); d != "" {
				t.Errorf("EpochRequest %q, bounds %v: %s", body, bounds, d)
			}
		}
	}
	// The fast path does take the plain bodies (or this test would
	// compare the walk with itself).
	if !strictScan([]byte(scanSeeds[1]), reflect.TypeFor[*SolveRequest](), map[string]int{"jobs": 2}) {
		t.Error("strictScan refused a plain body")
	}
	if strictScan([]byte(scanSeeds[7]), reflect.TypeFor[*SolveRequest](), map[string]int{"jobs": 2}) {
		t.Error("strictScan took a list over its limit")
	}
}

// FuzzStrictScan: for any body, the fast path and the walk agree.
//
//	go test ./httpapi -run '^$' -fuzz FuzzStrictScan -fuzztime 60s
func FuzzStrictScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if d := sameDecode[SolveRequest](body, map[string]int{"jobs": 2}); d != "" {
			t.Fatalf("SolveRequest %q: %s", body, d)
		}
		if d := sameDecode[EpochRequest](body, map[string]int{"jobs": 2, "tasks": 1}); d != "" {
			t.Fatalf("EpochRequest %q: %s", body, d)
		}
	})
}
