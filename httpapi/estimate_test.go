package httpapi_test

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flexd/flexd/httpapi"
)

// TestEstimateF7HTTP: the README's example epoch (examples/epoch.json)
// posted as a shim that knows only task statistics sends it (work left
// out, the mean task times that imply it, estimate.work extrapolate) gets
// the answer the original body gets, plans within 1e-9, plus estimates;
// the original body's answer has none.
func TestEstimateF7HTTP(t *testing.T) {
	raw, err := os.ReadFile("../examples/epoch.json")
	if err != nil {
		t.Fatal(err)
	}
	original := string(raw)
	stats := strings.NewReplacer(
		`"epoch": 1,`, `"epoch": 1, "estimate": {"work": "extrapolate"},`,
		`"work": 400, "pending": 30, "running": 5, "tasks": 40`, `"pending": 30, "running": 5, "tasks": 40, "avg_task_time": 11.428571428571429`,
		`"work": 100, "pending": 5, "running": 0, "tasks": 5`, `"pending": 5, "running": 0, "tasks": 5, "avg_task_time": 20`,
		`"work": 60, "pending": 4, "running": 2, "tasks": 8`, `"pending": 4, "running": 2, "tasks": 8, "avg_task_time": 10`,
	).Replace(original)
	if stats == original || regexp.MustCompile(`"work": [0-9]`).MatchString(stats) {
		t.Fatalf("examples/epoch.json changed shape; this test rewrites it:\n%s", stats)
	}
	e := newEnv(t, nil)
	decide := func(cluster, body string) httpapi.EpochResponse {
		t.Helper()
		res := e.post("/v1/clusters/"+cluster+"/epochs", "", body)
		if res.status != http.StatusOK {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
		var out httpapi.EpochResponse
		res.decode(t, &out)
		return out
	}
	want, got := decide("given", original), decide("stats", stats)
	if len(want.Estimates) != 0 {
		t.Errorf("estimates without an estimate object: %+v", want.Estimates)
	}
	ignore := cmpopts.IgnoreFields(httpapi.EpochResponse{}, "Cluster", "DecisionID", "Estimates")
	noTimes := cmpopts.IgnoreFields(httpapi.SolveResponse{}, "SolveMicros")
	if diff := cmp.Diff(want, got, ignore, noTimes, cmpopts.EquateApprox(1e-9, 0)); diff != "" {
		t.Errorf("estimated answer differs (-given +estimated):\n%s", diff)
	}
	wantEst := []httpapi.EpochEstimate{
		{ID: "job_1",
			Map:    &httpapi.PhaseEstimate{Work: 400, Source: "extrapolated", TaskTime: 400.0 / 35, TasksLeft: 35},
			Reduce: &httpapi.PhaseEstimate{Work: 100, Source: "prior_job", TaskTime: 20, TasksLeft: 5, MinRaised: true}},
		{ID: "job_2", Map: &httpapi.PhaseEstimate{Work: 60, Source: "extrapolated", TaskTime: 10, TasksLeft: 6}},
	}
	if diff := cmp.Diff(wantEst, got.Estimates, cmpopts.EquateApprox(1e-9, 0)); diff != "" {
		t.Errorf("estimates (-want +got):\n%s", diff)
	}
}
