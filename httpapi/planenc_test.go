package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/httpapi"
)

// withPlan returns body with a top-level "plan" member added.
func withPlan(body, plan string) string {
	return strings.Replace(body, `{`, `{"plan": "`+plan+`", `, 1)
}

// TestSolvePlanEncodings: /v1/solve answers delta by default; plan=dense
// (query or body) answers the same schedule with every job in every
// interval, plan=none no intervals; an unknown encoding is a 400 in the
// query and a 422 in the body, and query and body must agree.
func TestSolvePlanEncodings(t *testing.T) {
	e := newEnv(t, nil)
	solve := func(path, body string) httpapi.SolveResponse {
		t.Helper()
		res := e.post(path, "", body)
		if res.status != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, res.status, res.body)
		}
		var got httpapi.SolveResponse
		res.decode(t, &got)
		return got
	}
	def := solve("/v1/solve", solveBody)
	if def.Plan.Encoding != "delta" {
		t.Fatalf("default encoding %q, want delta", def.Plan.Encoding)
	}
	for name, got := range map[string]httpapi.SolveResponse{
		"query":         solve("/v1/solve?plan=dense", solveBody),
		"body":          solve("/v1/solve", withPlan(solveBody, "dense")),
		"query or body": solve("/v1/solve?plan=dense", withPlan(solveBody, "dense")),
	} {
		if got.Plan.Encoding != "dense" {
			t.Fatalf("%s: encoding %q, want dense", name, got.Plan.Encoding)
		}
		want := make([]map[string]int, len(got.Plan.Intervals))
		for k, iv := range got.Plan.Intervals {
			want[k] = iv.Slots
		}
		if diff := cmp.Diff(want, densePlan(def.Plan)); diff != "" {
			t.Errorf("%s: the delta plan does not replay to the dense one (-dense +delta):\n%s", name, diff)
		}
		if diff := cmp.Diff(got.Plan.Completions, def.Plan.Completions); diff != "" {
			t.Errorf("%s: completions differ (-dense +delta):\n%s", name, diff)
		}
		if diff := cmp.Diff(got.Allocations, def.Allocations); diff != "" {
			t.Errorf("%s: allocations differ (-dense +delta):\n%s", name, diff)
		}
	}
	for _, none := range []httpapi.SolveResponse{
		solve("/v1/solve?plan=none", solveBody),
		solve("/v1/solve", withPlan(solveBody, "none")),
	} {
		if p := none.Plan; p.Encoding != "none" || p.Intervals == nil || len(p.Intervals) != 0 || len(p.Completions) != 2 {
			t.Errorf("plan=none: %+v", p)
		}
	}

	for name, tc := range map[string]struct {
		path, body string
		status     int
	}{
		"unknown in the query":    {"/v1/solve?plan=sparse", solveBody, http.StatusBadRequest},
		"unknown in the body":     {"/v1/solve", withPlan(solveBody, "sparse"), http.StatusUnprocessableEntity},
		"query and body disagree": {"/v1/solve?plan=dense", withPlan(solveBody, "delta"), http.StatusBadRequest},
	} {
		t.Run(name, func(t *testing.T) {
			res := e.post(tc.path, "", tc.body)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			if p := res.problem(t); len(p.Errors) != 1 || p.Errors[0].Field != "plan" {
				t.Errorf("problem = %+v", p)
			}
		})
	}
}

// TestSolveJSONPlan: `flexd solve` reads the body's plan like the server.
func TestSolveJSONPlan(t *testing.T) {
	for _, enc := range []string{"delta", "dense", "none"} {
		status, v := httpapi.SolveJSON([]byte(withPlan(solveBody, enc)))
		resp, ok := v.(httpapi.SolveResponse)
		if status != http.StatusOK || !ok || resp.Plan.Encoding != enc {
			t.Errorf("plan %s: status %d, answer %+v", enc, status, v)
		}
	}
}

// TestEpochPlanInBody: the epoch body's plan chooses the encoding as the
// query does, is not part of the idempotency hash (a retry asking another
// encoding replays the stored decision in it), must agree with the query,
// and must name an encoding.
func TestEpochPlanInBody(t *testing.T) {
	e := newEnv(t, nil)
	res := e.post("/v1/clusters/c1/epochs", "", withPlan(epochBody, "dense"))
	if res.status != http.StatusOK {
		t.Fatalf("dense post: %d %s", res.status, res.body)
	}
	var dense httpapi.EpochResponse
	res.decode(t, &dense)
	if dense.Phases.Map.Plan.Encoding != "dense" {
		t.Fatalf("body plan dense: map plan %+v", dense.Phases.Map.Plan)
	}

	res = e.post("/v1/clusters/c1/epochs", "", withPlan(epochBody, "none"))
	if res.status != http.StatusOK || res.header.Get("Idempotent-Replay") != "true" {
		t.Fatalf("retry asking none: %d %s", res.status, res.body)
	}
	var none httpapi.EpochResponse
	res.decode(t, &none)
	if none.DecisionID != dense.DecisionID || none.Phases.Map.Plan.Encoding != "none" {
		t.Errorf("retry asking none: decision %s (want %s), encoding %q", none.DecisionID, dense.DecisionID, none.Phases.Map.Plan.Encoding)
	}
	res = e.post("/v1/clusters/c1/epochs", "", epochBody)
	if res.status != http.StatusOK || res.header.Get("Idempotent-Replay") != "true" {
		t.Fatalf("retry without plan: %d %s", res.status, res.body)
	}

	for name, tc := range map[string]struct {
		path, body string
		status     int
	}{
		"query and body disagree": {"/v1/clusters/c1/epochs?plan=delta", withPlan(epochN("2"), "dense"), http.StatusBadRequest},
		"unknown in the body":     {"/v1/clusters/c1/epochs", withPlan(epochN("2"), "sparse"), http.StatusUnprocessableEntity},
	} {
		t.Run(name, func(t *testing.T) {
			res := e.post(tc.path, "", tc.body)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			if p := res.problem(t); len(p.Errors) != 1 || p.Errors[0].Field != "plan" {
				t.Errorf("problem = %+v", p)
			}
		})
	}
	if st, _ := e.store.LatestState(t.Context(), "c1"); st.Epoch != 1 {
		t.Errorf("latest stored epoch %d after refused requests, want 1", st.Epoch)
	}
}
