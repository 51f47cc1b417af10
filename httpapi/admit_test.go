package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
)

// startSolve posts solveBody through g (read only once the request is let
// in to decide) on ctx, in the background; done closes when the server has
// answered into rec. The length is declared, so that waiting requests
// reserve only their bodies' bytes (InFlightBytes).
func startSolve(ctx context.Context, e *env, g *gateReader) (rec *httptest.ResponseRecorder, done chan struct{}) {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v1/solve", g)
	req.ContentLength = int64(len(solveBody))
	req.Header.Set("Content-Type", "application/json")
	rec, done = httptest.NewRecorder(), make(chan struct{})
	go func() {
		e.srv.ServeHTTP(rec, req)
		close(done)
	}()
	return rec, done
}

// awaitMetric waits until /metrics has the line want: the state a request
// in another goroutine is known to reach (the clock only bounds the wait).
func awaitMetric(t *testing.T, e *env, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(string(e.get("/metrics", "").body), want+"\n") {
		if time.Now().After(deadline) {
			t.Fatalf("/metrics never had %q", want)
		}
		runtime.Gosched()
	}
}

// TestMaxDecidingQueues: with one deciding slot, a second solve waits for
// the first without reading its body, shows on
// flexd_http_requests_waiting, and runs once the first is done; a waiting
// request whose client goes away leaves the queue (499) without taking the
// slot; requests that do not decide are not held.
func TestMaxDecidingQueues(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.MaxDeciding = 1 })
	gA := newGate()
	recA, doneA := startSolve(context.Background(), e, gA)
	<-gA.started // A holds the only slot, reading its body.

	gB := newGate()
	recB, doneB := startSolve(context.Background(), e, gB)
	awaitMetric(t, e, "flexd_http_requests_waiting 1")
	select {
	case <-gB.started:
		t.Fatal("the second solve read its body while the first held the only slot")
	default:
	}

	ctx, cancel := context.WithCancel(context.Background())
	recC, doneC := startSolve(ctx, e, newGate())
	awaitMetric(t, e, "flexd_http_requests_waiting 2")
	cancel()
	<-doneC
	if recC.Code != httpapi.StatusClientClosed {
		t.Errorf("solve whose client left while waiting: %d, want %d", recC.Code, httpapi.StatusClientClosed)
	}
	awaitMetric(t, e, "flexd_http_requests_waiting 1")

	// What does not decide is served meanwhile.
	if res := e.get("/v1/metrics", ""); res.status != http.StatusOK {
		t.Errorf("GET /v1/metrics while the slot is held: %d", res.status)
	}

	close(gA.release)
	<-doneA
	<-gB.started // B is let in once A is done (C, gone, took nothing).
	close(gB.release)
	<-doneB
	if recA.Code != http.StatusOK || recB.Code != http.StatusOK {
		t.Errorf("first and second solve: %d and %d, want 200", recA.Code, recB.Code)
	}
	awaitMetric(t, e, "flexd_http_requests_waiting 0")
	if res := e.post("/v1/solve", "", solveBody); res.status != http.StatusOK {
		t.Errorf("solve after the queue emptied: %d", res.status)
	}
}

// TestMaxDecidingTimeout: a request still waiting for a slot when its
// request timeout ends gets 504, as any request out of time does.
func TestMaxDecidingTimeout(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.MaxDeciding, c.RequestTimeout = 1, 50*time.Millisecond })
	gA := newGate()
	// The first solve's own timeout runs out while its body is held: what
	// it answers then is not this test's business.
	_, doneA := startSolve(context.Background(), e, gA)
	<-gA.started
	if res := e.post("/v1/clusters/c1/epochs", "", epochBody); res.status != http.StatusGatewayTimeout {
		t.Errorf("epoch waiting past its timeout: %d, want 504", res.status)
	}
	close(gA.release)
	<-doneA
	if res := e.post("/v1/clusters/c1/epochs", "", epochBody); res.status != http.StatusOK {
		t.Errorf("epoch once the slot is free: %d, want 200", res.status)
	}
}

// gatedSaveStore holds SaveEpoch, once started is closed, until release
// is; it says it spools (httpapi.DegradedReporter) when degraded.
type gatedSaveStore struct {
	httpapi.Store
	started, release chan struct{}
	degraded         bool
}

func (g gatedSaveStore) Degraded() bool { return g.degraded }

func (g gatedSaveStore) SaveEpoch(ctx context.Context, rec store.Record, prev int64) (store.Record, bool, error) {
	close(g.started)
	<-g.release
	return g.Store.SaveEpoch(ctx, rec, prev)
}

// TestSpoolingLeavesTheSlot: while the store spools, an epoch whose save
// waits (on the spool's fsync) has given its deciding slot back: with one
// slot, a solve is decided meanwhile instead of waiting for the save.
func TestSpoolingLeavesTheSlot(t *testing.T) {
	g := gatedSaveStore{started: make(chan struct{}), release: make(chan struct{}), degraded: true}
	e := newEnv(t, func(c *httpapi.Config) {
		g.Store = c.Store
		// Were the slot held through the save, the solve would wait
		// until its timeout: 504, not a hang.
		c.Store, c.MaxDeciding, c.RequestTimeout = g, 1, 2*time.Second
	})
	done := make(chan response)
	go func() { done <- e.post("/v1/clusters/c1/epochs", "", epochBody) }()
	<-g.started
	if res := e.post("/v1/solve", "", solveBody); res.status != http.StatusOK {
		t.Errorf("solve while an epoch's save waits: %d, want 200", res.status)
	}
	close(g.release)
	if res := <-done; res.status != http.StatusOK {
		t.Errorf("the epoch once saved: %d, want 200", res.status)
	}
}

// TestSavingHoldsTheSlot: with the database there, an epoch keeps its
// deciding slot through its save: a solve waits for it.
func TestSavingHoldsTheSlot(t *testing.T) {
	g := gatedSaveStore{started: make(chan struct{}), release: make(chan struct{})}
	e := newEnv(t, func(c *httpapi.Config) {
		g.Store = c.Store
		c.Store, c.MaxDeciding = g, 1
	})
	epoch := make(chan response)
	go func() { epoch <- e.post("/v1/clusters/c1/epochs", "", epochBody) }()
	<-g.started
	solve := make(chan response)
	go func() { solve <- e.post("/v1/solve", "", solveBody) }()
	awaitMetric(t, e, "flexd_http_requests_waiting 1")
	close(g.release)
	if res := <-epoch; res.status != http.StatusOK {
		t.Errorf("the epoch once saved: %d, want 200", res.status)
	}
	if res := <-solve; res.status != http.StatusOK {
		t.Errorf("the solve after the epoch: %d, want 200", res.status)
	}
}
