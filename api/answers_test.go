package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/api"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/memory"
)

var update = flag.Bool("update", false, "rewrite examples/answers from the server's answers")

// answersDir holds the golden answers: the response examples of
// api/openapi.yaml (go generate ./api/... reads them).
const answersDir = "../examples/answers"

// requestID is sent with every request, so the problems' request_id is
// the same on every run.
const requestID = "0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"

// Volatile values an answer carries, replaced before comparing: a fresh
// decision id per decision, and the solvers' measured time.
const (
	exampleDecisionID  = "0193a1b2-0000-7000-8000-000000000042"
	exampleSolveMicros = 150
)

// The clock of the servers: created_at is this.
var exampleNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// unreachable is a store whose database is away: /readyz answers 503.
type unreachable struct{ *memory.Store }

func (unreachable) Ping(context.Context) error { return errors.New("connection refused") }

// answerCase is one request whose answer is the example of the response
// (operation, status).
type answerCase struct {
	op     string
	status int
	server string // main (stateful, in order), tokens, limited, draining, small, down
	method string
	path   string
	body   string // a file of examples/ with "@", or the body itself
	ctype  string // default application/json when there is a body
	token  string
}

// answerCases is in the order the main server needs: the example epoch is
// stored before it is read.
var answerCases = []answerCase{
	{op: "health", status: 200, server: "main", method: "GET", path: "/healthz"},
	{op: "ready", status: 200, server: "main", method: "GET", path: "/readyz"},
	{op: "ready", status: 503, server: "down", method: "GET", path: "/readyz"},
	{op: "listMetrics", status: 200, server: "main", method: "GET", path: "/v1/metrics"},
	{op: "solve", status: 200, server: "main", method: "POST", path: "/v1/solve", body: "@solve.json"},
	{op: "solve", status: 400, server: "main", method: "POST", path: "/v1/solve", body: `{"slots": 10, "jobs": [`},
	{op: "solve", status: 415, server: "main", method: "POST", path: "/v1/solve", body: "@solve.json", ctype: "text/plain"},
	{op: "solve", status: 422, server: "main", method: "POST", path: "/v1/solve", body: `{"slots": 0, "jobs": [{"id": "a", "min": 1, "max": 8, "work": -1}]}`},
	{op: "planSlotConfig", status: 200, server: "main", method: "POST", path: "/v1/plan/slot-config", body: "@plan.json"},
	{op: "planSlotConfig", status: 400, server: "main", method: "POST", path: "/v1/plan/slot-config", body: `{"slots": "20"}`},
	{op: "planSlotConfig", status: 415, server: "main", method: "POST", path: "/v1/plan/slot-config", body: "@plan.json", ctype: "text/plain"},
	{op: "planSlotConfig", status: 422, server: "main", method: "POST", path: "/v1/plan/slot-config", body: `{"slots": 20, "k": 2, "jobs": []}`},
	{op: "decideEpoch", status: 200, server: "main", method: "POST", path: "/v1/clusters/c1/epochs", body: "@epoch.json"},
	{op: "decideEpoch", status: 400, server: "main", method: "POST", path: "/v1/clusters/c1/epochs", body: `{"epoch": 2, "Epoch": 3}`},
	{op: "decideEpoch", status: 409, server: "main", method: "POST", path: "/v1/clusters/c1/epochs", body: `{"epoch": 1, "now": 100, "slots": {"map": 20, "reduce": 10}, "jobs": []}`},
	{op: "decideEpoch", status: 415, server: "main", method: "POST", path: "/v1/clusters/c1/epochs", body: "@epoch.json", ctype: "text/plain"},
	{op: "decideEpoch", status: 422, server: "main", method: "POST", path: "/v1/clusters/c1/epochs", body: `{"epoch": 2, "now": 101, "slots": {"map": 0, "reduce": 10}, "jobs": []}`},
	{op: "listEpochs", status: 200, server: "main", method: "GET", path: "/v1/clusters/c1/epochs"},
	{op: "listEpochs", status: 400, server: "main", method: "GET", path: "/v1/clusters/c1/epochs?from=-1"},
	{op: "getEpoch", status: 200, server: "main", method: "GET", path: "/v1/clusters/c1/epochs/1"},
	{op: "exportEpochs", status: 200, server: "main", method: "GET", path: "/v1/clusters/c1/epochs.jsonl"},
	{op: "exportEpochs", status: 400, server: "main", method: "GET", path: "/v1/clusters/c1/epochs.jsonl?to=-1"},
	// GET /v1/clusters (issue 18): its cases run once the spec declares it.
	{op: "listClusters", status: 200, server: "main", method: "GET", path: "/v1/clusters"},
	{op: "listClusters", status: 401, server: "tokens", method: "GET", path: "/v1/clusters"},
	{op: "listClusters", status: 403, server: "tokens", method: "GET", path: "/v1/clusters", token: "token-of-c1"},
	{op: "listClusters", status: 429, server: "limited", method: "GET", path: "/v1/clusters"},

	// A server with tokens: none is 401, another cluster's is 404.
	{op: "listMetrics", status: 401, server: "tokens", method: "GET", path: "/v1/metrics"},
	{op: "solve", status: 401, server: "tokens", method: "POST", path: "/v1/solve", body: "@solve.json"},
	{op: "planSlotConfig", status: 401, server: "tokens", method: "POST", path: "/v1/plan/slot-config", body: "@plan.json"},
	{op: "decideEpoch", status: 401, server: "tokens", method: "POST", path: "/v1/clusters/c1/epochs", body: "@epoch.json"},
	{op: "listEpochs", status: 401, server: "tokens", method: "GET", path: "/v1/clusters/c1/epochs"},
	{op: "getEpoch", status: 401, server: "tokens", method: "GET", path: "/v1/clusters/c1/epochs/1"},
	{op: "exportEpochs", status: 401, server: "tokens", method: "GET", path: "/v1/clusters/c1/epochs.jsonl"},
	{op: "decideEpoch", status: 404, server: "tokens", method: "POST", path: "/v1/clusters/c1/epochs", body: "@epoch.json", token: "token-of-c2"},
	{op: "listEpochs", status: 404, server: "tokens", method: "GET", path: "/v1/clusters/c1/epochs", token: "token-of-c2"},
	{op: "getEpoch", status: 404, server: "tokens", method: "GET", path: "/v1/clusters/c1/epochs/1", token: "token-of-c2"},
	{op: "exportEpochs", status: 404, server: "tokens", method: "GET", path: "/v1/clusters/c1/epochs.jsonl", token: "token-of-c2"},

	// A body over the limit (1 KiB on this server).
	{op: "solve", status: 413, server: "small", method: "POST", path: "/v1/solve", body: bigBody},
	{op: "planSlotConfig", status: 413, server: "small", method: "POST", path: "/v1/plan/slot-config", body: bigBody},
	{op: "decideEpoch", status: 413, server: "small", method: "POST", path: "/v1/clusters/c1/epochs", body: bigBody},

	// Over the rate limit (one request, then none for a while): each
	// case's first request, made by the harness, spends the burst.
	{op: "listMetrics", status: 429, server: "limited", method: "GET", path: "/v1/metrics"},
	{op: "solve", status: 429, server: "limited", method: "POST", path: "/v1/solve", body: "@solve.json"},
	{op: "planSlotConfig", status: 429, server: "limited", method: "POST", path: "/v1/plan/slot-config", body: "@plan.json"},
	{op: "decideEpoch", status: 429, server: "limited", method: "POST", path: "/v1/clusters/c1/epochs", body: "@epoch.json"},
	{op: "listEpochs", status: 429, server: "limited", method: "GET", path: "/v1/clusters/c1/epochs"},
	{op: "getEpoch", status: 429, server: "limited", method: "GET", path: "/v1/clusters/c1/epochs/1"},
	{op: "exportEpochs", status: 429, server: "limited", method: "GET", path: "/v1/clusters/c1/epochs.jsonl"},

	// A server shutting down.
	{op: "solve", status: 503, server: "draining", method: "POST", path: "/v1/solve", body: "@solve.json"},
	{op: "planSlotConfig", status: 503, server: "draining", method: "POST", path: "/v1/plan/slot-config", body: "@plan.json"},
	{op: "decideEpoch", status: 503, server: "draining", method: "POST", path: "/v1/clusters/c1/epochs", body: "@epoch.json"},
}

// bigBody is over the small server's limit of 1 KiB.
var bigBody = `{"objective": "` + strings.Repeat("x", 2<<10) + `"}`

// noExample lists the responses that have no example, and why.
var noExample = map[string]string{
	"getOpenAPI 200": "the answer is this document itself",
	// A store error mid-request: the converter's example problem stands.
	"listClusters 503": "needs the database to go away during the call",
}

// newAnswerServer builds one kind of server of answerCases.
func newAnswerServer(t *testing.T, kind string) *httpapi.Server {
	t.Helper()
	st := memory.New(memory.Config{Now: func() time.Time { return exampleNow }})
	cfg := httpapi.Config{
		Store: st, RateLimit: -1, Now: func() time.Time { return exampleNow },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	switch kind {
	case "main":
	case "down":
		cfg.Store = unreachable{st}
	case "tokens":
		for _, tok := range []store.Token{
			{Hash: httpapi.HashToken("token-of-c1"), Cluster: "c1", Created: exampleNow},
			{Hash: httpapi.HashToken("token-of-c2"), Cluster: "c2", Created: exampleNow},
		} {
			if err := st.CreateToken(context.Background(), tok); err != nil {
				t.Fatal(err)
			}
		}
	case "small":
		cfg.BodyLimit = 1 << 10
	case "limited":
		cfg.RateLimit, cfg.RateBurst = 1e-6, 1
	case "draining":
	default:
		t.Fatalf("unknown server %q", kind)
	}
	srv, err := httpapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if kind == "draining" {
		srv.StartDrain()
	}
	return srv
}

// do sends c to srv and returns the status, the Content-Type and the body.
func (c answerCase) do(t *testing.T, srv http.Handler) (int, string, []byte) {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		b := []byte(c.body)
		if name, ok := strings.CutPrefix(c.body, "@"); ok {
			var err error
			if b, err = os.ReadFile(filepath.Join("../examples", name)); err != nil {
				t.Fatal(err)
			}
		}
		body = bytes.NewReader(b)
	}
	req := httptest.NewRequest(c.method, c.path, body)
	req.Header.Set("X-Request-Id", requestID)
	if c.body != "" {
		req.Header.Set("Content-Type", cmpOr(c.ctype, "application/json"))
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// normalize replaces the volatile values of a JSON answer.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case "decision_id":
				x[k] = exampleDecisionID
			case "solve_micros":
				x[k] = float64(exampleSolveMicros)
			default:
				x[k] = normalize(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}

// TestResponseExamples: every response example of api/openapi.yaml is a
// golden answer (examples/answers/OPERATION.STATUS.json or .jsonl) that
// the server gives today to the request beside it in answerCases, so the
// examples cannot drift from the server; and every declared response has
// one (but those in noExample). With -update the answers are rewritten;
// then run go generate ./... to put them in the spec.
func TestResponseExamples(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			declared[op.OperationID] = true
		}
	}
	servers := map[string]*httpapi.Server{}
	seen := map[string]bool{}
	for _, c := range answerCases {
		key := c.op + " " + strconv.Itoa(c.status)
		if seen[key] {
			t.Fatalf("%s: two cases", key)
		}
		seen[key] = true
		if !declared[c.op] {
			t.Logf("%s: the spec has no operation %s yet; case not run", key, c.op)
			continue
		}
		srv := servers[c.server]
		if srv == nil {
			srv = newAnswerServer(t, c.server)
			servers[c.server] = srv
		}
		if c.server == "limited" {
			// The burst of one: this request is let through (or refused
			// for another reason); the case's own request is over it.
			// Each case gets a fresh server so the order does not matter.
			srv = newAnswerServer(t, c.server)
			c.do(t, srv)
		}
		status, ctype, body := c.do(t, srv)
		if status != c.status {
			t.Errorf("%s: %s %s answered %d, want %d: %s", key, c.method, c.path, status, c.status, body)
			continue
		}
		file := filepath.Join(answersDir, fmt.Sprintf("%s.%d.json", c.op, c.status))
		if strings.HasPrefix(ctype, "application/jsonl") {
			file += "l"
			checkGolden(t, key, file, body)
			continue
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Errorf("%s: the answer is not JSON (%s): %v", key, ctype, err)
			continue
		}
		got, err := json.MarshalIndent(normalize(v), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, key, file, append(got, '\n'))
	}

	// Every declared response has an example, and it is one of the above.
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for code, resp := range op.Responses.Map() {
				key := op.OperationID + " " + code
				if _, ok := noExample[key]; ok {
					continue
				}
				if !seen[key] {
					t.Errorf("%s %s: response %s has no case in answerCases", method, path, key)
				}
				for mt, media := range resp.Value.Content {
					if media.Example == nil && !*update {
						t.Errorf("%s (%s): no example in api/openapi.yaml: run go generate ./api/...", key, mt)
					}
				}
			}
		}
	}
}

// checkGolden compares got with file, or writes it with -update.
func checkGolden(t *testing.T, key, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("%s: %v (run go test ./api -run TestResponseExamples -update)", key, err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: the server's answer differs from %s (-want +got):\n%s\nif the change is meant, run go test ./api -run TestResponseExamples -update, then go generate ./...",
			key, file, cmp.Diff(string(want), string(got)))
	}
}
