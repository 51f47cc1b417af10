package epoch_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/solver"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current decisions")

// golden is what a golden file holds: the decision and the next state of a
// request decided from an empty cluster state.
type golden struct {
	Decision epoch.Decision
	State    epoch.ClusterState
}

// readRequest decodes a fixture: the domain Request as encoding/json writes
// it (Go field names), unknown fields refused so a typo cannot pass as an
// absent field.
func readRequest(t testing.TB, path string) epoch.Request {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var req epoch.Request
	if err := dec.Decode(&req); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return req
}

// TestGolden decides every testdata/*.request.json with the production
// policies and compares the decision (minus the solver's effort counters)
// with its *.golden.json; run with
// -update to rewrite them, then review the diff. It fails (never skips)
// while a policy it needs is unimplemented or a golden file is missing.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.request.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata/*.request.json (err %v)", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".request.json")
		t.Run(name, func(t *testing.T) {
			req := readRequest(t, path)
			dec, next, err := epoch.Decide(req, epoch.ClusterState{})
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			// Effort counters change whenever the solver's search is
			// tuned; the golden files pin decisions, not effort.
			results := []*solver.Result{dec.Phases.Map, dec.Phases.Reduce}
			for _, ph := range dec.PoolPhases {
				results = append(results, ph.Map, ph.Reduce)
			}
			for _, r := range results {
				r.Stats = solver.Stats{}
			}
			got, err := json.MarshalIndent(golden{dec, next}, "", "  ")
			if err != nil {
				t.Fatalf("encoding the decision: %v", err)
			}
			got = append(got, '\n')
			goldenPath := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (generate it with: go test ./epoch -run TestGolden -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", goldenPath, diff)
			}
		})
	}
}
