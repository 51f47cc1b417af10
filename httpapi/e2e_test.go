package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/store"
)

func TestSolve(t *testing.T) {
	e := newEnv(t, nil)
	res := e.post("/v1/solve", "", solveBody)
	if res.status != http.StatusOK {
		t.Fatalf("status %d, body %s", res.status, res.body)
	}
	var got httpapi.SolveResponse
	res.decode(t, &got)
	if got.Policy != "flex" || got.Objective.Metric != "avg_response_time" || got.Objective.Aggregate != "sum" {
		t.Errorf("policy/objective = %q %+v", got.Policy, got.Objective)
	}
	ids := []string{}
	total := 0
	for _, a := range got.Allocations {
		ids = append(ids, a.ID)
		total += a.Slots
		if a.Reason == "" {
			t.Errorf("allocation %s has no reason", a.ID)
		}
	}
	if diff := cmp.Diff([]string{"j1", "j2"}, ids); diff != "" {
		t.Errorf("allocations not in request order (-want +got):\n%s", diff)
	}
	if total != 10 {
		t.Errorf("allocated %d slots, want all 10", total)
	}
	if len(got.Plan.Intervals) == 0 || len(got.Plan.Completions) != 2 || got.Plan.Encoding != "delta" {
		t.Errorf("plan = %+v", got.Plan)
	}
	if got.Explain != nil {
		t.Errorf("explain present without being asked for")
	}
	if res.header.Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type %q", res.header.Get("Content-Type"))
	}
}

// TestSolveJSONMatchesServer: `flexd solve` and the server share one code
// path, so they must agree byte for byte apart from the timing.
func TestSolveJSONMatchesServer(t *testing.T) {
	e := newEnv(t, nil)
	for name, body := range map[string]string{
		"ok":           solveBody,
		"unknown":      `{"slots": 1, "jobs": [], "nope": 1}`,
		"rule broken":  `{"slots": 0, "jobs": [{"id": "a", "max": 1, "work": -1}]}`,
		"with explain": strings.Replace(solveBody, `"now": 0`, `"now": 0, "explain": true`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			status, v := httpapi.SolveJSON([]byte(body))
			res := e.post("/v1/solve", "", body)
			if status != res.status {
				t.Fatalf("SolveJSON status %d, server %d", status, res.status)
			}
			cli, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var a, b map[string]any
			if err := json.Unmarshal(cli, &a); err != nil {
				t.Fatal(err)
			}
			res.decode(t, &b)
			for _, m := range []map[string]any{a, b} {
				delete(m, "solve_micros")
				delete(m, "instance")
				delete(m, "request_id")
			}
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("SolveJSON and server differ (-cli +server):\n%s", diff)
			}
		})
	}
}

func TestEpochLifecycle(t *testing.T) {
	e := newEnv(t, nil)

	first := e.post("/v1/clusters/c1/epochs", "", epochBody)
	if first.status != http.StatusOK {
		t.Fatalf("first post: %d %s", first.status, first.body)
	}
	if first.header.Get("Idempotent-Replay") != "" {
		t.Errorf("first post marked as replay")
	}
	var dec httpapi.EpochResponse
	first.decode(t, &dec)
	if dec.Cluster != "c1" || dec.Epoch != 1 || len(dec.DecisionID) != 36 {
		t.Errorf("cluster/epoch/decision_id = %q %d %q", dec.Cluster, dec.Epoch, dec.DecisionID)
	}
	if dec.Budgets.Map != 10 || dec.Budgets.Reduce != 4 {
		t.Errorf("budgets = %+v", dec.Budgets)
	}
	if len(dec.Allocations) != 2 || dec.Allocations[0].ID != "job_1" || dec.Allocations[0].ReduceReason != "none" {
		t.Errorf("allocations = %+v", dec.Allocations)
	}
	if len(dec.Phases.Map.Allocations) != 2 || len(dec.Phases.Reduce.Allocations) != 1 {
		t.Errorf("phases: map %d, reduce %d allocations", len(dec.Phases.Map.Allocations), len(dec.Phases.Reduce.Allocations))
	}

	// The same body, formatted differently, is an idempotent retry.
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(epochBody)); err != nil {
		t.Fatal(err)
	}
	again := e.post("/v1/clusters/c1/epochs", "", compact.String())
	if again.status != http.StatusOK || again.header.Get("Idempotent-Replay") != "true" {
		t.Fatalf("replay: %d, header %q, body %s", again.status, again.header.Get("Idempotent-Replay"), again.body)
	}
	if !jsonEqual(t, first.body, again.body) {
		t.Errorf("replay answered a different decision:\n%s\n%s", first.body, again.body)
	}

	cases := map[string]struct {
		body string
		want int
	}{
		"same epoch, different body": {strings.Replace(epochBody, `"now": 100`, `"now": 101`, 1), http.StatusConflict},
		"next epoch":                 {epochN("5"), http.StatusOK},
		"below latest, never stored": {epochN("3"), http.StatusConflict},
		"after the gap":              {epochN("7"), http.StatusOK},
	}
	for _, name := range []string{"same epoch, different body", "next epoch", "below latest, never stored", "after the gap"} {
		c := cases[name]
		res := e.post("/v1/clusters/c1/epochs", "", c.body)
		if res.status != c.want {
			t.Errorf("%s: status %d, want %d; body %s", name, res.status, c.want, res.body)
		}
		if c.want == http.StatusConflict {
			res.problem(t)
		}
	}

	// History: newest first, paged.
	var page httpapi.EpochPage
	res := e.get("/v1/clusters/c1/epochs?limit=2", "")
	if res.status != http.StatusOK {
		t.Fatalf("list: %d %s", res.status, res.body)
	}
	res.decode(t, &page)
	if got := epochsOf(page); !cmp.Equal(got, []int64{7, 5}) || page.NextCursor == "" {
		t.Errorf("first page = %v, cursor %q", got, page.NextCursor)
	}
	res = e.get("/v1/clusters/c1/epochs?limit=2&cursor="+page.NextCursor, "")
	page = httpapi.EpochPage{}
	res.decode(t, &page)
	if got := epochsOf(page); !cmp.Equal(got, []int64{1}) || page.NextCursor != "" {
		t.Errorf("second page = %v, cursor %q", got, page.NextCursor)
	}
	page = httpapi.EpochPage{}
	e.get("/v1/clusters/c1/epochs?from=2&to=6", "").decode(t, &page)
	if got := epochsOf(page); !cmp.Equal(got, []int64{5}) {
		t.Errorf("from=2&to=6 = %v", got)
	}
	page = httpapi.EpochPage{}
	e.get("/v1/clusters/c1/epochs?job_id=nobody", "").decode(t, &page)
	if len(page.Epochs) != 0 {
		t.Errorf("job_id=nobody listed %v", epochsOf(page))
	}

	// One epoch.
	res = e.get("/v1/clusters/c1/epochs/1", "")
	if res.status != http.StatusOK {
		t.Fatalf("get: %d %s", res.status, res.body)
	}
	var one httpapi.StoredEpoch
	res.decode(t, &one)
	if one.DecisionID != dec.DecisionID || !jsonEqual(t, one.Decision, first.body) || !jsonEqual(t, one.Request, compact.Bytes()) {
		t.Errorf("stored epoch = %+v", one)
	}
	for _, path := range []string{"/v1/clusters/c1/epochs/2", "/v1/clusters/c1/epochs/x", "/v1/clusters/nope/epochs/1"} {
		if res := e.get(path, ""); res.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.status)
		} else {
			res.problem(t)
		}
	}

	// The JSONL export: oldest first, cluster added, each line a valid
	// epoch body again.
	res = e.get("/v1/clusters/c1/epochs.jsonl", "")
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "application/jsonl" {
		t.Fatalf("export: %d %q", res.status, res.header.Get("Content-Type"))
	}
	var lines []int64
	sc := bufio.NewScanner(bytes.NewReader(res.body))
	for sc.Scan() {
		var line httpapi.EpochRequest
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if line.Cluster != "c1" {
			t.Errorf("line without cluster: %s", sc.Text())
		}
		lines = append(lines, line.Epoch)
	}
	if !cmp.Equal(lines, []int64{1, 5, 7}) {
		t.Errorf("export epochs = %v, want [1 5 7]", lines)
	}
	// A line posts back as the same request: cluster matches the path.
	first7 := strings.SplitN(string(res.body), "\n", 4)[2]
	if res := e.post("/v1/clusters/c1/epochs", "", first7); res.status != http.StatusOK {
		t.Errorf("posting an exported line: %d %s", res.status, res.body)
	}
	if res := e.get("/v1/clusters/empty/epochs.jsonl?from=1&to=2", ""); res.status != http.StatusOK || len(res.body) != 0 {
		t.Errorf("empty export: %d %q", res.status, res.body)
	}
}

func epochsOf(p httpapi.EpochPage) []int64 {
	out := []int64{}
	for _, e := range p.Epochs {
		out = append(out, e.Epoch)
	}
	return out
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return cmp.Equal(x, y)
}

// staleStore answers ErrStaleState for its first stale saves, as when
// another replica keeps saving the cluster's state in between.
type staleStore struct {
	httpapi.Store
	stale int
	saves int
}

func (s *staleStore) SaveEpoch(ctx context.Context, rec store.Record, prev int64) (store.Record, bool, error) {
	s.saves++
	if s.saves <= s.stale {
		return store.Record{}, false, store.ErrStaleState
	}
	return s.Store.SaveEpoch(ctx, rec, prev)
}

func TestEpochStaleStateRetries(t *testing.T) {
	cases := map[string]struct {
		stale     int
		want      int
		wantSaves int
	}{
		"succeeds on a retry":      {stale: 2, want: http.StatusOK, wantSaves: 3},
		"gives up after 3 retries": {stale: 100, want: http.StatusConflict, wantSaves: 4},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var ss *staleStore
			e := newEnv(t, func(cfg *httpapi.Config) {
				ss = &staleStore{Store: cfg.Store, stale: c.stale}
				cfg.Store = ss
			})
			res := e.post("/v1/clusters/c1/epochs", "", epochBody)
			if res.status != c.want || ss.saves != c.wantSaves {
				t.Errorf("status %d after %d saves, want %d after %d; body %s", res.status, ss.saves, c.want, c.wantSaves, res.body)
			}
		})
	}
}

func TestOperations(t *testing.T) {
	e := newEnv(t, nil)
	e.post("/v1/solve", "", solveBody) // so the histograms have samples
	e.post("/v1/clusters/c1/epochs", "", epochBody)
	cases := map[string]struct {
		path        string
		status      int
		contentType string
		contains    string
	}{
		"healthz":          {"/healthz", 200, "application/json", `"status":"ok"`},
		"readyz":           {"/readyz", 200, "application/json", `"status":"ready"`},
		"openapi":          {"/openapi.yaml", 200, "application/yaml", "openapi: 3.0"},
		"swagger index":    {"/swagger/", 200, "text/html; charset=utf-8", "swagger"},
		"swagger config":   {"/swagger/swagger-initializer.js", 200, "text/javascript; charset=utf-8", `url: "/openapi.yaml"`},
		"swagger bundle":   {"/swagger/swagger-ui-bundle.js", 200, "text/javascript; charset=utf-8", "SwaggerUIBundle"},
		"prometheus":       {"/metrics", 200, "text/plain; version=0.0.4; charset=utf-8; escaping=underscores", `flexd_http_request_duration_seconds_count{method="POST",route="/v1/solve",status="200"} 1`},
		"prometheus solve": {"/metrics", 200, "", `flexd_solve_duration_seconds_count{phase="map",policy="flex"} 1`},
		"prometheus jobs":  {"/metrics", 200, "", `flexd_epoch_jobs_count 1`},
		"prometheus store": {"/metrics", 200, "", `flexd_store_duration_seconds_count{op="save_epoch",outcome="ok"} 1`},
		"unknown path":     {"/nope", 404, "application/problem+json", `"status":404`},
		"wrong method":     {"/v1/solve", 405, "application/problem+json", `"status":405`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			res := e.get(c.path, "")
			if res.status != c.status {
				t.Fatalf("status %d, want %d", res.status, c.status)
			}
			if c.contentType != "" && res.header.Get("Content-Type") != c.contentType {
				t.Errorf("Content-Type %q, want %q", res.header.Get("Content-Type"), c.contentType)
			}
			if !strings.Contains(string(res.body), c.contains) {
				t.Errorf("body lacks %q:\n%.2000s", c.contains, res.body)
			}
		})
	}
}

func TestMetricMenu(t *testing.T) {
	e := newEnv(t, nil)
	var menu httpapi.MetricMenu
	res := e.get("/v1/metrics", "")
	if res.status != http.StatusOK {
		t.Fatalf("%d %s", res.status, res.body)
	}
	res.decode(t, &menu)
	if len(menu.Metrics) != len(penalty.All()) || menu.Default != "avg_response_time" {
		t.Fatalf("menu has %d metrics, default %q", len(menu.Metrics), menu.Default)
	}
	byName := map[string]httpapi.MetricInfo{}
	for _, m := range menu.Metrics {
		byName[m.Name] = m
	}
	want := map[string]httpapi.MetricInfo{
		"weighted_tardiness": {Name: "weighted_tardiness", Aggregate: "sum", Needs: []string{"deadline", "weight"}, Convex: true, Doc: "sum of w max(0, C - d), weighted seconds"},
		"sla_cost":           {Name: "sla_cost", Aggregate: "sum", Needs: []string{"sla"}, Step: true, Doc: "sum of the SLA step penalty reached by C"},
		"makespan":           {Name: "makespan", Aggregate: "max", Needs: []string{}, Convex: true, Doc: "max of C, seconds"},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, byName[name]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// failingStore fails every call, like a database that is away.
type failingStore struct{ httpapi.Store }

var errDown = errors.New("connection refused to 10.0.0.5: password=hunter2")

func (failingStore) Ping(context.Context) error { return errDown }
func (failingStore) LatestState(context.Context, string) (store.State, error) {
	return store.State{}, errDown
}
func (failingStore) StartEpoch(context.Context, string, int64) (store.Start, error) {
	return store.Start{}, errDown
}

type pendingMigrations struct{}

func (pendingMigrations) Applied(context.Context) (bool, error) { return false, nil }

type degradedStore struct {
	failingStore
}

func (degradedStore) Degraded() bool { return true }

func TestReadyz(t *testing.T) {
	cases := map[string]struct {
		edit       func(*httpapi.Config)
		drain      bool
		status     int
		wantStatus string
	}{
		"memory store":       {nil, false, 200, "ready"},
		"store down":         {func(c *httpapi.Config) { c.Store = failingStore{c.Store} }, false, 503, "not_ready"},
		"spooling":           {func(c *httpapi.Config) { c.Store = degradedStore{failingStore{c.Store}} }, false, 200, "degraded"},
		"migrations pending": {func(c *httpapi.Config) { c.Migrations = pendingMigrations{} }, false, 503, "not_ready"},
		"shutting down":      {nil, true, 503, "shutting_down"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, c.edit)
			if c.drain {
				e.srv.StartDrain()
			}
			res := e.get("/readyz", "")
			var h httpapi.Health
			res.decode(t, &h)
			if res.status != c.status || h.Status != c.wantStatus {
				t.Errorf("readyz = %d %q, want %d %q", res.status, h.Status, c.status, c.wantStatus)
			}
		})
	}
}

// TestInternalErrorsNotEchoed: a store failure is a 500 whose cause is
// logged with the request id and never shown to the caller.
func TestInternalErrorsNotEchoed(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.Store = failingStore{c.Store} })
	res := e.post("/v1/clusters/c1/epochs", "", epochBody)
	if res.status != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", res.status)
	}
	p := res.problem(t)
	if strings.Contains(string(res.body), "hunter2") || strings.Contains(string(res.body), "10.0.0.5") {
		t.Errorf("internal error echoed: %s", res.body)
	}
	if p.RequestID == "" || p.RequestID != res.header.Get("X-Request-Id") {
		t.Errorf("problem request_id %q, header %q", p.RequestID, res.header.Get("X-Request-Id"))
	}
	if !strings.Contains(e.logs.String(), p.RequestID) || !strings.Contains(e.logs.String(), "connection refused") {
		t.Errorf("cause not logged with the request id:\n%s", e.logs.String())
	}
}

// panicPolicy stands in for a solver bug.
type panicPolicy struct{}

func (panicPolicy) Name() string { return "flex" }
func (panicPolicy) Solve(solver.Problem) (solver.Result, error) {
	panic("index out of range in a policy")
}

func TestPanicRecovered(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) {
		c.Policies = func(string) (solver.Solver, bool) { return panicPolicy{}, true }
	})
	for _, path := range []string{"/v1/solve", "/v1/clusters/c1/epochs"} {
		body := solveBody
		if path != "/v1/solve" {
			body = epochBody
		}
		res := e.post(path, "", body)
		if res.status != http.StatusInternalServerError {
			t.Errorf("%s: status %d, want 500", path, res.status)
			continue
		}
		if strings.Contains(string(res.body), "index out of range") {
			t.Errorf("%s: panic value echoed: %s", path, res.body)
		}
		res.problem(t)
	}
	if !strings.Contains(e.logs.String(), "panic serving request") {
		t.Errorf("panic not logged")
	}
}

func TestDrainAnswers503(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.StartDrain()
	res := e.post("/v1/solve", "", solveBody)
	if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "" {
		t.Errorf("status %d, Retry-After %q", res.status, res.header.Get("Retry-After"))
	}
	res.problem(t)
	if res := e.get("/healthz", ""); res.status != http.StatusOK {
		t.Errorf("healthz while draining: %d", res.status)
	}
}

// TestBeginShutdownKeepsServing: the first step of a shutdown changes
// /readyz alone (503 shutting_down); epochs, solves and /healthz are
// served as before. StartDrain, the second step, then refuses new work.
func TestBeginShutdownKeepsServing(t *testing.T) {
	e := newEnv(t, nil)
	if res := e.get("/readyz", ""); res.status != http.StatusOK {
		t.Fatalf("readyz before: %d", res.status)
	}
	e.srv.BeginShutdown()
	res := e.get("/readyz", "")
	var h httpapi.Health
	res.decode(t, &h)
	if res.status != http.StatusServiceUnavailable || h.Status != "shutting_down" {
		t.Errorf("readyz while shutting down: %d %+v, want 503 shutting_down", res.status, h)
	}
	if res := e.post("/v1/clusters/c1/epochs", "", epochBody); res.status != http.StatusOK {
		t.Errorf("epoch while shutting down: %d %s, want 200", res.status, res.body)
	}
	if res := e.post("/v1/solve", "", solveBody); res.status != http.StatusOK {
		t.Errorf("solve while shutting down: %d %s, want 200", res.status, res.body)
	}
	if res := e.get("/healthz", ""); res.status != http.StatusOK {
		t.Errorf("healthz while shutting down: %d", res.status)
	}
	e.srv.StartDrain()
	if res := e.post("/v1/solve", "", solveBody); res.status != http.StatusServiceUnavailable {
		t.Errorf("solve after StartDrain: %d, want 503", res.status)
	}
}

func TestRequestIDEchoed(t *testing.T) {
	e := newEnv(t, nil)
	cases := map[string]struct {
		sent string
		echo bool
	}{
		"plain id echoed":        {"abc-123", true},
		"header injection fresh": {"bad id\twith tab", false},
		"too long fresh":         {strings.Repeat("a", 200), false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, "/healthz", nil)
			req.Header.Set("X-Request-Id", c.sent)
			rec := newRecorder()
			e.srv.ServeHTTP(rec, req)
			got := rec.Header().Get("X-Request-Id")
			if (got == c.sent) != c.echo || got == "" {
				t.Errorf("X-Request-Id = %q (sent %q), echo want %v", got, c.sent, c.echo)
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	cases := map[string]httpapi.Config{
		"no store":       {},
		"negative limit": {Store: failingStore{}, BodyLimit: -1},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := httpapi.New(cfg); err == nil {
				t.Errorf("New accepted %+v", cfg)
			}
		})
	}
}

// TestPanicCountedAs500: the access log and metrics see the 500 a panic
// became, not the 200 a handler never wrote.
func TestPanicCountedAs500(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) {
		c.Policies = func(string) (solver.Solver, bool) { return panicPolicy{}, true }
	})
	e.post("/v1/solve", "", solveBody)
	res := e.get("/metrics", "")
	want := `flexd_http_request_duration_seconds_count{method="POST",route="/v1/solve",status="500"} 1`
	if !strings.Contains(string(res.body), want) {
		t.Errorf("metrics lack %s", want)
	}
	if !strings.Contains(e.logs.String(), `"status":500`) {
		t.Errorf("access log lacks the 500:\n%s", e.logs.String())
	}
}

// TestConcurrentRetries: the same epoch posted many times at once is
// decided once; every caller gets that one decision.
func TestConcurrentRetries(t *testing.T) {
	e := newEnv(t, nil)
	const n = 8
	results := make(chan response, n)
	start := make(chan struct{})
	for range n {
		go func() {
			<-start
			results <- e.post("/v1/clusters/c1/epochs", "", epochBody)
		}()
	}
	close(start)
	ids := map[string]int{}
	replays := 0
	for range n {
		res := <-results
		if res.status != http.StatusOK {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
		var d httpapi.EpochResponse
		res.decode(t, &d)
		ids[d.DecisionID]++
		if res.header.Get("Idempotent-Replay") == "true" {
			replays++
		}
	}
	if len(ids) != 1 || replays != n-1 {
		t.Errorf("decision ids %v, %d replays; want one id and %d replays", ids, replays, n-1)
	}
}

// blockingStore holds StartEpoch until the request's context ends, like
// a database that stopped answering.
type blockingStore struct{ httpapi.Store }

func (blockingStore) StartEpoch(ctx context.Context, _ string, _ int64) (store.Start, error) {
	<-ctx.Done()
	return store.Start{}, ctx.Err()
}

func TestRequestTimeout(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) {
		c.Store = blockingStore{c.Store}
		c.RequestTimeout = 20 * time.Millisecond
	})
	res := e.post("/v1/clusters/c1/epochs", "", epochBody)
	if res.status != http.StatusGatewayTimeout {
		t.Fatalf("status %d, want 504: %s", res.status, res.body)
	}
	res.problem(t)
}

// TestAccessLogLevelsAndSeconds: probe requests are logged at debug level,
// others at info, and every line's duration is in seconds.
func TestAccessLogLevelsAndSeconds(t *testing.T) {
	e := newEnv(t, nil)
	e.get("/healthz", "")
	e.get("/readyz", "")
	e.get("/metrics", "")
	e.get("/v1/metrics", "")
	levels := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(e.logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] != "request" {
			continue
		}
		path, _ := rec["path"].(string)
		levels[path], _ = rec["level"].(string)
		d, ok := rec["duration_seconds"].(float64)
		if !ok || d < 0 || d > 60 {
			t.Errorf("%s: duration_seconds = %v, want seconds", path, rec["duration_seconds"])
		}
		if _, ok := rec["duration_ms"]; ok {
			t.Errorf("%s: still logs duration_ms", path)
		}
	}
	want := map[string]string{"/healthz": "DEBUG", "/readyz": "DEBUG", "/metrics": "DEBUG", "/v1/metrics": "INFO"}
	for p, lv := range want {
		if levels[p] != lv {
			t.Errorf("%s logged at %q, want %s", p, levels[p], lv)
		}
	}
}

// TestMethodNotAllowedNamesAllowed: a 405 carries an Allow header with the
// path's methods (RFC 9110), here and under /v1.
func TestMethodNotAllowedNamesAllowed(t *testing.T) {
	e := newEnv(t, nil)
	for path, want := range map[string]string{
		"/v1/solve":              "POST",
		"/v1/clusters/c1/epochs": "GET, POST",
		"/healthz":               "GET",
	} {
		res := e.do(http.MethodPut, path, "", strings.NewReader("{}"))
		if res.status != http.StatusMethodNotAllowed || res.header.Get("Allow") != want {
			t.Errorf("PUT %s: %d, Allow %q; want 405 with Allow %q", path, res.status, res.header.Get("Allow"), want)
		}
	}
}
