package httpapi_test

import (
	"bytes"
	"encoding/json"
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/tests/shim"
)

// TestUnwrittenPlansEncode: the server writes an epoch answer's plans
// straight from the solver's (no map per interval); the bytes must be
// those of the answer with its plans materialized, with goccy/go-json (the
// server's encoder) and encoding/json alike, for shim epochs of every
// ratio mode (pd_dhsa's pool phases too) and every plan encoding the
// answer can be asked for; and the two forms are Equal.
func TestUnwrittenPlansEncode(t *testing.T) {
	for _, mode := range []string{"static", "pi_dhsa", "pd_dhsa"} {
		sh := shim.New(shim.Config{Cluster: "c1", Seed: 3, Jobs: 40, Replace: true, StaggerProgress: true, RatioMode: mode})
		var state epoch.ClusterState
		for range 15 {
			req := sh.Request()
			dec, next, err := epoch.Decide(req.Domain(), state)
			if err != nil {
				t.Fatalf("%s: epoch %d: %v", mode, req.Epoch, err)
			}
			state = next
			times := httpapi.SolveTimes{}
			lazy := httpapi.EpochResponseUnwritten("c1", dec, times)
			made := httpapi.NewEpochResponse("c1", dec, times)
			if len(made.Phases.Map.Plan.Intervals) < 2 || len(made.Phases.Map.Plan.Completions) == 0 {
				t.Fatalf("%s: epoch %d: a map plan of %d intervals and %d completions; want a real one",
					mode, req.Epoch, len(made.Phases.Map.Plan.Intervals), len(made.Phases.Map.Plan.Completions))
			}
			if mode == "pd_dhsa" && len(made.PoolPhases) == 0 {
				t.Fatalf("%s: epoch %d: no pool phases", mode, req.Epoch)
			}
			want, err := json.Marshal(made)
			if err != nil {
				t.Fatal(err)
			}
			for name, enc := range map[string]func(any) ([]byte, error){"goccy/go-json": gojson.Marshal, "encoding/json": json.Marshal} {
				got, err := enc(lazy)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: epoch %d: %s writes the unwritten plans as\n%.400s\nnot as the materialized ones\n%.400s", mode, req.Epoch, name, got, want)
				}
			}
			if diff := cmp.Diff(made, lazy); diff != "" {
				t.Errorf("%s: epoch %d: the two forms differ:\n%s", mode, req.Epoch, diff)
			}
			for _, plan := range []string{"dense", "none"} {
				w1, _ := json.Marshal(httpapi.WithPlans(lazy, plan))
				w2, _ := json.Marshal(httpapi.WithPlans(made, plan))
				if !bytes.Equal(w1, w2) {
					t.Fatalf("%s: epoch %d: plan=%s differs between the two forms", mode, req.Epoch, plan)
				}
			}
			if err := sh.Apply(*made); err != nil {
				t.Fatal(err)
			}
		}
	}
}
