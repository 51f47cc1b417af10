package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/flexd/flexd/api"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store/memory"
)

// TestSpecIsFresh regenerates the spec from the annotations into a
// temporary file and fails when the committed api/openapi.yaml differs:
// the annotations changed without `go generate ./api/...`.
func TestSpecIsFresh(t *testing.T) {
	out := filepath.Join(t.TempDir(), "openapi.yaml")
	cmd := exec.Command("go", "run", "./internal/gen", "-httpapi", "../httpapi", "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("regenerating: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Errorf("api/openapi.yaml is stale: run `go generate ./api/...` and commit the result (fresh %d bytes, committed %d)", len(fresh), len(committed))
	}
	if !bytes.Equal(api.Spec, committed) {
		t.Errorf("embedded Spec differs from openapi.yaml on disk")
	}
}

// TestEveryOperationDeclaresA4XX: the contract's operations each have an
// operationId, a declared tag, and, except the public probes and this
// description (which take no input), the 4XX answers a client can get.
// Redocly's operation-4xx-response rule is off for the exceptions' sake
// (api/lint/redocly.yaml); this is the check that stands in for it.
func TestEveryOperationDeclaresA4XX(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]bool{}
	for _, tg := range doc.Tags {
		tags[tg.Name] = true
	}
	public := map[string]bool{"health": true, "ready": true, "getOpenAPI": true}
	ids := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if op.OperationID == "" || ids[op.OperationID] {
				t.Errorf("%s: operationId %q missing or repeated", where, op.OperationID)
			}
			ids[op.OperationID] = true
			for _, tg := range op.Tags {
				if !tags[tg] {
					t.Errorf("%s: tag %q is not declared", where, tg)
				}
			}
			if public[op.OperationID] {
				if op.Security == nil || len(*op.Security) != 0 {
					t.Errorf("%s: a public operation must say it needs no token", where)
				}
				continue
			}
			has4xx := false
			for code := range op.Responses.Map() {
				has4xx = has4xx || strings.HasPrefix(code, "4")
			}
			if !has4xx {
				t.Errorf("%s: no 4XX answer declared", where)
			}
		}
	}
}

// TestRequestExamplesExecute: every request body example in the spec (what
// the Swagger UI's Try it out sends) is answered 2xx by a server with the
// memory store, exactly as shipped.
func TestRequestExamplesExecute(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := httpapi.New(httpapi.Config{Store: memory.New(memory.Config{}), RateLimit: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			mt := op.RequestBody.Value.Content.Get("application/json")
			if mt == nil || mt.Example == nil {
				t.Errorf("%s %s: no request body example", method, path)
				continue
			}
			body, err := json.Marshal(mt.Example)
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(method, strings.ReplaceAll(path, "{cluster}", "example"), bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code/100 != 2 {
				t.Errorf("%s %s with its example: %d %s", method, path, rec.Code, rec.Body.String())
			}
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d operations with a request body, want 3 (epoch, solve, slot-config)", n)
	}
}

// TestErrorExamplesPerStatus: every error answer's example is a problem of
// its own status (the 401's a 401, not the schema's 422), so the Swagger
// UI shows what each status really looks like.
func TestErrorExamplesPerStatus(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for code, resp := range op.Responses.Map() {
				status, err := strconv.Atoi(code)
				if err != nil || status < 400 || resp.Value == nil {
					continue
				}
				mt := resp.Value.Content.Get("application/problem+json")
				if mt == nil {
					continue
				}
				ex, ok := mt.Example.(map[string]any)
				if !ok {
					t.Errorf("%s %s %d: no example", method, path, status)
					continue
				}
				if got, _ := ex["status"].(float64); int(got) != status || ex["title"] != http.StatusText(status) || ex["detail"] == nil {
					t.Errorf("%s %s %d: example %v is not a %d problem with a detail", method, path, status, ex, status)
				}
				n++
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d error examples checked", n)
	}
}
