package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flexd/flexd/client"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/memory"
)

// TestClientIsFresh regenerates the client from the committed
// api/openapi.yaml into a temporary file and fails when flexd.gen.go
// differs: the spec changed without `go generate ./client/...`.
func TestClientIsFresh(t *testing.T) {
	out := filepath.Join(t.TempDir(), "flexd.gen.go")
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "-o", out, "../api/openapi.yaml")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("regenerating: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("flexd.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Errorf("client/flexd.gen.go is stale: run `go generate ./...` and commit the result (fresh %d bytes, committed %d)", len(fresh), len(committed))
	}
}

// serve runs flexd (memory store) behind a real listener.
func serve(t *testing.T, st *memory.Store) string {
	t.Helper()
	srv, err := httpapi.New(httpapi.Config{Store: st, RateLimit: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts.URL
}

// epoch is the README's example epoch (examples/epoch.json).
func epoch(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../examples/epoch.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loseFirstAnswer delivers every request but drops the first answer, as a
// timeout after the server decided would.
type loseFirstAnswer struct {
	calls atomic.Int32
}

func (l *loseFirstAnswer) Do(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if l.calls.Add(1) == 1 {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("answer lost")
	}
	return resp, nil
}

// TestDecideEpochRetrying: an attempt whose answer is lost is posted again
// with the same bytes, and the server returns the decision it stored
// (Idempotent-Replay: true), the same decision id.
func TestDecideEpochRetrying(t *testing.T) {
	base := serve(t, memory.New(memory.Config{}))
	doer := &loseFirstAnswer{}
	c, err := client.NewClientWithResponses(base, client.WithHTTPClient(doer))
	if err != nil {
		t.Fatal(err)
	}
	body := epoch(t)
	d, err := c.DecideEpochRetrying(context.Background(), "c1", nil, body, client.Retry{Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d.StatusCode() != http.StatusOK || d.JSON200 == nil {
		t.Fatalf("status %d, body %s", d.StatusCode(), d.Body)
	}
	if d.Attempts != 2 || !d.Replay() {
		t.Errorf("attempts %d, replay %v; want 2 attempts ending in a replay", d.Attempts, d.Replay())
	}
	// The stored decision is the one the replay returned.
	got, err := c.GetEpochWithResponse(context.Background(), "c1", int(d.JSON200.Epoch))
	if err != nil {
		t.Fatal(err)
	}
	if got.JSON200 == nil || got.JSON200.DecisionId != d.JSON200.DecisionId {
		t.Errorf("stored decision %s, replayed %+v", got.Body, d.JSON200.DecisionId)
	}

	// A different body for the stored epoch is a 409, returned at once.
	other := bytes.Replace(body, []byte(`"now": 100`), []byte(`"now": 101`), 1)
	if bytes.Equal(other, body) {
		t.Fatal("examples/epoch.json changed: no \"now\": 100 to alter")
	}
	d, err = c.DecideEpochRetrying(context.Background(), "c1", nil, other, client.Retry{Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d.StatusCode() != http.StatusConflict || d.Attempts != 1 || d.ApplicationproblemJSON409 == nil {
		t.Errorf("a different body: status %d after %d attempts, want one 409", d.StatusCode(), d.Attempts)
	}
}

// TestDecideEpochRetryingGivesUp: with no answer at all, every attempt is
// made and the error says so.
func TestDecideEpochRetryingGivesUp(t *testing.T) {
	var calls atomic.Int32
	doer := doerFunc(func(*http.Request) (*http.Response, error) {
		calls.Add(1)
		return nil, errors.New("unreachable")
	})
	c, err := client.NewClientWithResponses("http://127.0.0.1:1", client.WithHTTPClient(doer))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.DecideEpochRetrying(context.Background(), "c1", nil, epoch(t), client.Retry{Attempts: 4, Backoff: time.Millisecond})
	if err == nil || calls.Load() != 4 {
		t.Errorf("error %v after %d calls, want an error after 4", err, calls.Load())
	}
}

// TestDecideEpochRetryingBusy: a 503 with Retry-After is retried after
// it, with the same bytes.
func TestDecideEpochRetryingBusy(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		n := len(bodies)
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"status":503,"title":"busy"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"cluster":"c1","epoch":42,"decision_id":"d","allocations":[],"budgets":{"map":1,"reduce":1,"mode":"static"},"phases":{}}`)
	}))
	defer ts.Close()
	c, err := client.NewClientWithResponses(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	req := client.EpochRequest{Epoch: 42, Jobs: []client.EpochJob{}}
	d, err := c.DecideEpochRetrying(context.Background(), "c1", nil, req, client.Retry{})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if d.StatusCode() != http.StatusOK || d.Attempts != 2 || len(bodies) != 2 || !bytes.Equal(bodies[0], bodies[1]) {
		t.Errorf("status %d after %d attempts; bodies %q", d.StatusCode(), d.Attempts, bodies)
	}
}

// TestWithToken: the token goes out as a bearer token, and a cluster's
// token reads its own epochs only.
func TestWithToken(t *testing.T) {
	st := memory.New(memory.Config{})
	for _, tok := range []store.Token{
		{Hash: httpapi.HashToken("tok-c1"), Cluster: "c1", Created: time.Now()},
		{Hash: httpapi.HashToken("tok-c2"), Cluster: "c2", Created: time.Now()},
	} {
		if err := st.CreateToken(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
	}
	base := serve(t, st)
	ctx := context.Background()

	anon, err := client.NewClientWithResponses(base)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := anon.ListMetricsWithResponse(ctx); err != nil || r.StatusCode() != http.StatusUnauthorized {
		t.Fatalf("no token: %v, status %d, want 401", err, r.StatusCode())
	}

	c1, err := client.NewClientWithResponses(base, client.WithToken("tok-c1"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := c1.DecideEpochRetrying(ctx, "c1", nil, epoch(t), client.Retry{})
	if err != nil || d.StatusCode() != http.StatusOK {
		t.Fatalf("c1's token on c1: %v, status %d", err, d.StatusCode())
	}
	if r, err := c1.ListEpochsWithResponse(ctx, "c2", nil); err != nil || r.StatusCode() != http.StatusNotFound {
		t.Errorf("c1's token on c2: %v, status %d, want 404", err, r.StatusCode())
	}
	// A per-call token overrides nothing it should not: c2's token on c1.
	if r, err := anon.GetEpochWithResponse(ctx, "c1", int(d.JSON200.Epoch), client.BearerToken("tok-c2")); err != nil || r.StatusCode() != http.StatusNotFound {
		t.Errorf("c2's token on c1's epoch: %v, status %d, want 404", err, r.StatusCode())
	}
	if r, err := anon.GetEpochWithResponse(ctx, "c1", int(d.JSON200.Epoch), client.BearerToken("tok-c1")); err != nil || r.JSON200 == nil {
		t.Errorf("c1's token per call: %v, %+v", err, r)
	}
}

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }
