package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/memory"
)

// env is one server under test with its memory store.
type env struct {
	t     testing.TB
	srv   *httpapi.Server
	store *memory.Store
	logs  *bytes.Buffer
}

// newEnv builds a server on a fresh memory store; edit adjusts the config.
func newEnv(t testing.TB, edit func(*httpapi.Config)) *env {
	t.Helper()
	st := memory.New(memory.Config{})
	logs := &bytes.Buffer{}
	cfg := httpapi.Config{
		Store:  st,
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		// Tests fire requests back to back; only the rate-limit test
		// wants a limit.
		RateLimit: -1,
		// Tests add tokens between requests and expect them to count at
		// once; the cache has its own test.
		TokenCacheTTL: -1,
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := httpapi.New(cfg)
	if err != nil {
		t.Fatalf("httpapi.New: %v", err)
	}
	return &env{t: t, srv: srv, store: st, logs: logs}
}

// addToken stores a token and returns the bearer string for it.
func (e *env) addToken(secret, cluster string, admin bool) string {
	e.t.Helper()
	if err := e.store.CreateToken(context.Background(), store.Token{Hash: httpapi.HashToken(secret), Cluster: cluster, Admin: admin}); err != nil {
		e.t.Fatalf("CreateToken: %v", err)
	}
	return secret
}

// response is a recorded answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) problem(t *testing.T) httpapi.Problem {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, want application/problem+json; body %s", ct, r.body)
	}
	var p httpapi.Problem
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("decoding problem %s: %v", r.body, err)
	}
	return p
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

// do sends one request; token "" sends no Authorization header.
func (e *env) do(method, path, token string, body io.Reader) response {
	e.t.Helper()
	req := httptest.NewRequest(method, path, body)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	if rec.Header().Get("X-Request-Id") == "" {
		e.t.Errorf("%s %s: no X-Request-Id on the response", method, path)
	}
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func (e *env) post(path, token, body string) response {
	return e.do(http.MethodPost, path, token, strings.NewReader(body))
}

func (e *env) get(path, token string) response {
	return e.do(http.MethodGet, path, token, nil)
}

// Bodies shared by the tests.
const (
	solveBody = `{"slots": 10, "now": 0, "jobs": [
		{"id": "j1", "min": 1, "max": 10, "work": 100, "submitted": 0},
		{"id": "j2", "min": 1, "max": 4, "work": 20, "submitted": 0}]}`

	epochBody = `{"epoch": 1, "now": 100, "epoch_length": 0.5, "slots": {"map": 10, "reduce": 4},
		"jobs": [
		{"id": "job_1", "submitted": 0, "map": {"min": 1, "max": 8, "work": 400, "pending": 20, "running": 2}},
		{"id": "job_2", "submitted": 10, "map": {"min": 0, "max": 4, "work": 50},
		 "reduce": {"min": 1, "max": 2, "work": 30, "started": true}}]}`
)

// planBody is a POST /v1/plan/slot-config body: two jobs on 6 slots.
const planBody = `{"slots": 6, "k": 2, "jobs": [
	{"map_tasks": 8, "reduce_tasks": 2, "map_time": 10, "reduce_time": 30},
	{"map_tasks": 4, "reduce_tasks": 4, "map_time": 5, "reduce_time": 5}]}`

// withRatio returns an epoch body with members (`"ratio": {...}, "omo":
// {...}`) added at the top level.
func withRatio(body, members string) string {
	return strings.Replace(body, `{"epoch"`, `{`+members+`, "epoch"`, 1)
}

// epochN returns epochBody with its epoch number replaced.
func epochN(n string) string {
	return strings.Replace(epochBody, `"epoch": 1,`, `"epoch": `+n+`,`, 1)
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
