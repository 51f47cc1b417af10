package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
)

// densePlan replays a delta plan's changes into each interval's full slots.
func densePlan(p httpapi.Plan) []map[string]int {
	cur := map[string]int{}
	out := make([]map[string]int, len(p.Intervals))
	for k, iv := range p.Intervals {
		for id, n := range iv.Slots {
			if n == 0 {
				delete(cur, id)
			} else {
				cur[id] = n
			}
		}
		m := make(map[string]int, len(cur))
		for id, n := range cur {
			m[id] = n
		}
		out[k] = m
	}
	return out
}

// TestEpochPlanEncodings: epoch plans are delta-encoded by default and
// stored so; ?plan=dense answers the same schedule with every job listed,
// for fresh decisions and replays alike; ?plan=none leaves intervals out;
// anything else is 400 before any work.
func TestEpochPlanEncodings(t *testing.T) {
	e := newEnv(t, nil)
	res := e.post("/v1/clusters/c1/epochs?plan=dense", "", epochBody)
	if res.status != http.StatusOK {
		t.Fatalf("dense post: %d %s", res.status, res.body)
	}
	var dense httpapi.EpochResponse
	res.decode(t, &dense)
	if dense.Phases.Map.Plan.Encoding != "dense" || len(dense.Phases.Map.Plan.Intervals) == 0 {
		t.Fatalf("?plan=dense map plan = %+v", dense.Phases.Map.Plan)
	}

	// The replay answers from the stored (delta) decision.
	res = e.post("/v1/clusters/c1/epochs", "", epochBody)
	if res.status != http.StatusOK || res.header.Get("Idempotent-Replay") != "true" {
		t.Fatalf("default replay: %d %s", res.status, res.body)
	}
	var delta httpapi.EpochResponse
	res.decode(t, &delta)
	if delta.DecisionID != dense.DecisionID {
		t.Fatalf("replay decision id %s, want %s", delta.DecisionID, dense.DecisionID)
	}
	for name, ph := range map[string][2]httpapi.SolveResponse{
		"map":    {dense.Phases.Map, delta.Phases.Map},
		"reduce": {dense.Phases.Reduce, delta.Phases.Reduce},
	} {
		d, dl := ph[0].Plan, ph[1].Plan
		if dl.Encoding != "delta" {
			t.Errorf("%s: default encoding %q, want delta", name, dl.Encoding)
		}
		want := make([]map[string]int, len(d.Intervals))
		for k, iv := range d.Intervals {
			want[k] = iv.Slots
		}
		if diff := cmp.Diff(want, densePlan(dl)); diff != "" {
			t.Errorf("%s: delta plan does not replay to the dense one (-dense +delta):\n%s", name, diff)
		}
		if diff := cmp.Diff(d.Completions, dl.Completions); diff != "" {
			t.Errorf("%s: completions differ (-dense +delta):\n%s", name, diff)
		}
	}

	res = e.post("/v1/clusters/c1/epochs?plan=dense", "", epochBody)
	var again httpapi.EpochResponse
	res.decode(t, &again)
	again.Phases.Map.SolveMicros, again.Phases.Reduce.SolveMicros = dense.Phases.Map.SolveMicros, dense.Phases.Reduce.SolveMicros
	if diff := cmp.Diff(dense, again); diff != "" {
		t.Errorf("dense replay differs from the dense answer (-first +replay):\n%s", diff)
	}

	res = e.post("/v1/clusters/c1/epochs?plan=none", "", epochN("2"))
	if res.status != http.StatusOK {
		t.Fatalf("none post: %d %s", res.status, res.body)
	}
	var none httpapi.EpochResponse
	res.decode(t, &none)
	if p := none.Phases.Map.Plan; p.Encoding != "none" || len(p.Intervals) != 0 || len(p.Completions) == 0 {
		t.Errorf("?plan=none map plan = %+v", p)
	}

	res = e.post("/v1/clusters/c1/epochs?plan=sparse", "", epochN("3"))
	if res.status != http.StatusBadRequest {
		t.Fatalf("?plan=sparse: %d %s", res.status, res.body)
	}
	if p := res.problem(t); len(p.Errors) != 1 || p.Errors[0].Field != "plan" {
		t.Errorf("problem = %+v", p)
	}
	if st, _ := e.store.LatestState(t.Context(), "c1"); st.Epoch != 2 {
		t.Errorf("latest epoch %d after a bad ?plan, want 2", st.Epoch)
	}
}

// TestEpochCanonicalRequest: the stored request is the decoded body again,
// so a reformatted body with members reordered, or with the path's cluster
// added (an export line posted back), is a replay.
func TestEpochCanonicalRequest(t *testing.T) {
	e := newEnv(t, nil)
	if res := e.post("/v1/clusters/c1/epochs", "", epochBody); res.status != http.StatusOK {
		t.Fatalf("first post: %d %s", res.status, res.body)
	}
	reformatted := `{"cluster":"c1","jobs":[{"map":{"running":2,"pending":20,"work":400.0,"max":8,"min":1},"submitted":0,"id":"job_1"},
		{"reduce":{"started":true,"work":3e1,"max":2,"min":1},"map":{"work":50,"max":4,"min":0},"submitted":10,"id":"job_2"}],
		"slots":{"reduce":4,"map":10},"epoch_length":0.5,"now":100,"epoch":1}`
	res := e.post("/v1/clusters/c1/epochs", "", reformatted)
	if res.status != http.StatusOK || res.header.Get("Idempotent-Replay") != "true" {
		t.Fatalf("reformatted body: %d replay=%q %s", res.status, res.header.Get("Idempotent-Replay"), res.body)
	}
	changed := strings.Replace(epochBody, `"work": 400`, `"work": 401`, 1)
	if res := e.post("/v1/clusters/c1/epochs", "", changed); res.status != http.StatusConflict {
		t.Fatalf("changed body: %d %s", res.status, res.body)
	}
}

// countingStore counts token lookups, to see the cache at work.
type countingStore struct {
	httpapi.Store
	mu              sync.Mutex
	lookups, checks int
}

func (c *countingStore) LookupToken(ctx context.Context, hash string) (store.Token, error) {
	c.mu.Lock()
	c.lookups++
	c.mu.Unlock()
	return c.Store.LookupToken(ctx, hash)
}

func (c *countingStore) HasTokens(ctx context.Context) (bool, error) {
	c.mu.Lock()
	c.checks++
	c.mu.Unlock()
	return c.Store.HasTokens(ctx)
}

// TestTokenCache: lookups are remembered for the TTL, unknown tokens too,
// and asked again once it has passed.
func TestTokenCache(t *testing.T) {
	var (
		mu  sync.Mutex
		now = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		cs  *countingStore
	)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	e := newEnv(t, func(c *httpapi.Config) {
		cs = &countingStore{Store: c.Store}
		c.Store, c.Now, c.TokenCacheTTL = cs, clock, 5*time.Second
	})
	if res := e.get("/v1/metrics", ""); res.status != http.StatusOK {
		t.Fatalf("anonymous without tokens: %d", res.status)
	}
	tok := e.addToken("s3cret", "", true)
	// Within the TTL the cached "no tokens" still lets anonymous callers in:
	// the documented delay for a new token.
	if res := e.get("/v1/metrics", ""); res.status != http.StatusOK {
		t.Fatalf("anonymous within the TTL: %d", res.status)
	}
	advance(5 * time.Second)
	if res := e.get("/v1/metrics", ""); res.status != http.StatusUnauthorized {
		t.Fatalf("anonymous after the TTL: %d, want 401", res.status)
	}
	for range 3 {
		if res := e.get("/v1/metrics", tok); res.status != http.StatusOK {
			t.Fatalf("with token: %d", res.status)
		}
		if res := e.get("/v1/metrics", "wrong"); res.status != http.StatusUnauthorized {
			t.Fatalf("wrong token: %d", res.status)
		}
	}
	cs.mu.Lock()
	lookups, checks := cs.lookups, cs.checks
	cs.mu.Unlock()
	if lookups != 2 || checks != 2 {
		t.Errorf("store asked %d lookups and %d checks; want 2 and 2 (one per distinct question and TTL)", lookups, checks)
	}
	advance(5 * time.Second)
	e.get("/v1/metrics", tok)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.lookups != 3 {
		t.Errorf("after the TTL: %d lookups, want 3", cs.lookups)
	}
}

// TestClientClosedIsNot500: a client that disconnects while its epoch is
// in the store is neither logged as an error nor counted as a 5xx.
func TestClientClosedIsNot500(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.Store = blockingStore{c.Store} })
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest(http.MethodPost, "/v1/clusters/c1/epochs", strings.NewReader(epochBody)).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	cancel() // gone before the store answers
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	if rec.Code != httpapi.StatusClientClosed {
		t.Errorf("status %d, want %d", rec.Code, httpapi.StatusClientClosed)
	}
	if strings.Contains(e.logs.String(), `"level":"ERROR"`) {
		t.Errorf("an error was logged:\n%s", e.logs.String())
	}
	metrics := e.get("/metrics", "")
	body := string(metrics.body)
	if !strings.Contains(body, `status="client_closed"`) || strings.Contains(body, `status="500"`) {
		t.Errorf("metrics lack a client_closed request or count a 500:\n%s", grepLines(body, "flexd_http_request_duration_seconds_count"))
	}
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
