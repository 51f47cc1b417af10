package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/flexd/flexd/api"
	"github.com/flexd/flexd/client"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store/postgres"
)

// registerJSONL lets kin-openapi read the export: it has no JSON Lines
// decoder, and the spec describes the export's body as a string.
var registerJSONL sync.Once

// specRouter loads api/openapi.yaml (the embedded copy is the committed
// file) and returns a router over its operations.
func specRouter(t testing.TB) routers.Router {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatalf("loading api/openapi.yaml: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("api/openapi.yaml is invalid: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatalf("routing api/openapi.yaml: %v", err)
	}
	registerJSONL.Do(func() {
		openapi3filter.RegisterBodyDecoder("application/jsonl", openapi3filter.FileBodyDecoder)
	})
	return router
}

// validatingTransport checks every request the test client sends and every
// answer it gets against api/openapi.yaml, so no exchange of the test can
// drift from the contract unnoticed.
type validatingTransport struct {
	t      testing.TB
	router routers.Router
	base   http.RoundTripper
	// checked counts validated responses, so a test can prove the
	// validator saw its traffic.
	checked atomic.Int64
}

func (v *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, fmt.Errorf("reading request body: %w", err)
		}
		req.Body.Close()
		reqBody = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	// The spec's server is "/", which kin-openapi's router matches only on
	// a host-less URL, so route on the path alone.
	routable := req.Clone(req.Context())
	routable.URL.Scheme, routable.URL.Host, routable.Host = "", "", ""
	route, params, err := v.router.FindRoute(routable)
	if err != nil {
		v.t.Errorf("%s %s: no operation in api/openapi.yaml: %v", req.Method, req.URL.Path, err)
		return v.base.RoundTrip(req)
	}
	// Validate a copy of the request: validation consumes the body.
	check := req.Clone(req.Context())
	if reqBody != nil {
		check.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	reqIn := &openapi3filter.RequestValidationInput{
		Request: check, PathParams: params, Route: route,
		Options: &openapi3filter.Options{
			MultiError: true,
			// Whether a token is right is the server's business (the
			// 401 and 404 cases test it); the spec only says one is used.
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		},
	}
	if err := openapi3filter.ValidateRequest(req.Context(), reqIn); err != nil {
		v.t.Errorf("%s %s: request does not match api/openapi.yaml: %v", req.Method, req.URL.Path, err)
	}
	resp, err := v.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading response body: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqIn,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
		v.t.Errorf("%s %s: %d response does not match api/openapi.yaml: %v\nbody: %.800s",
			req.Method, req.URL.Path, resp.StatusCode, err, body)
	}
	v.checked.Add(1)
	return resp, nil
}

// flexd is one running server: a real HTTP listener around httpapi on
// store/postgres, as `flexd serve --database-url` builds it, and the
// generated client (package client) that talks to it through the
// validating transport.
type flexd struct {
	t     testing.TB
	http  *httptest.Server
	api   *client.ClientWithResponses
	valid *validatingTransport
	store *postgres.Store
}

// startFlexd serves httpapi on pool through a real listener.
func startFlexd(t testing.TB, pool *pgxpool.Pool, router routers.Router) *flexd {
	t.Helper()
	st := postgres.New(pool)
	migrator, err := postgres.NewMigrator(pool, postgres.MigratorConfig{})
	if err != nil {
		t.Fatalf("migrator: %v", err)
	}
	t.Cleanup(func() {
		if err := migrator.Close(); err != nil {
			t.Errorf("closing migrator: %v", err)
		}
	})
	srv, err := httpapi.New(httpapi.Config{
		Store:      st,
		Migrations: migrator,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		// The shim fires epochs back to back, far above a real shim's
		// two a second; the rate limiter is not what this test checks.
		RateLimit: -1,
	})
	if err != nil {
		t.Fatalf("httpapi.New: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	vt := &validatingTransport{t: t, router: router, base: hs.Client().Transport}
	api, err := client.NewClientWithResponses(hs.URL, client.WithHTTPClient(&http.Client{Transport: vt}))
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return &flexd{t: t, http: hs, api: api, valid: vt, store: st}
}

// answer is one HTTP exchange's outcome.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// got reads the answer of one call of the generated client's methods
// (which return the *http.Response): srv.got(srv.api.GetEpoch(ctx, ...)).
func (f *flexd) got(resp *http.Response, err error) answer {
	f.t.Helper()
	if err != nil {
		f.t.Fatalf("calling flexd: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatalf("reading %s %s: %v", resp.Request.Method, resp.Request.URL.Path, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

// decideEpoch posts one epoch body of cluster with token ("" sends none).
func (f *flexd) decideEpoch(cluster, token string, body []byte) answer {
	f.t.Helper()
	return f.got(f.api.DecideEpochWithBody(f.t.Context(), cluster, nil, "application/json", bytes.NewReader(body), client.BearerToken(token)))
}

// want fails the test unless the answer has the status.
func (a answer) want(t testing.TB, status int, what string) answer {
	t.Helper()
	if a.status != status {
		t.Fatalf("%s: status %d, want %d; body %.500s", what, a.status, status, a.body)
	}
	return a
}

// decode unmarshals the answer's body.
func (a answer) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("decoding %.300s: %v", a.body, err)
	}
}

// jsonEqual compares two JSON texts by value: flexd stores an epoch body in
// its canonical form (decoded and encoded again), so it comes back equal to
// the posted body but not byte-identical.
func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("decoding %.200s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("decoding %.200s: %v", b, err)
	}
	xs, _ := json.Marshal(x) // re-marshalling sorts keys; values are plain
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}

// jsonLines splits a JSONL body into its lines.
func jsonLines(body []byte) [][]byte {
	var out [][]byte
	for line := range strings.SplitSeq(strings.TrimRight(string(body), "\n"), "\n") {
		if line != "" {
			out = append(out, []byte(line))
		}
	}
	return out
}
