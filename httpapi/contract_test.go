package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/flexd/flexd/api"
	"github.com/flexd/flexd/httpapi"
)

// TestContract validates real responses of every endpoint, errors
// included, against the committed api/openapi.yaml: status documented,
// content type listed, body matching the schema, headers present.
func TestContract(t *testing.T) {
	router := specRouter(t)
	e := newEnv(t, nil)
	// Seed history, then add tokens so 401 and 404 paths exist.
	e.post("/v1/clusters/c1/epochs", "", epochBody)
	e.post("/v1/clusters/c1/epochs", "", epochN("2"))
	c1 := e.addToken("tok-c1", "c1", false)
	c2 := e.addToken("tok-c2", "c2", false)

	cases := []struct {
		name, method, path, token, body string
		status                          int
	}{
		{"solve", "POST", "/v1/solve", c1, solveBody, 200},
		{"solve explain fair", "POST", "/v1/solve", c1, strings.Replace(solveBody, `"now": 0`, `"now": 0, "explain": true, "policy": "fair"`, 1), 200},
		{"solve 400", "POST", "/v1/solve", c1, `{"slots": "x"}`, 400},
		{"solve 401", "POST", "/v1/solve", "", solveBody, 401},
		{"solve 413", "POST", "/v1/solve", c1, `{"jobs": "` + strings.Repeat("x", httpapi.DefaultBodyLimit) + `"}`, 413},
		{"solve 422", "POST", "/v1/solve", c1, `{"slots": 0, "jobs": []}`, 422},
		{"epoch post", "POST", "/v1/clusters/c1/epochs", c1, epochN("3"), 200},
		{"epoch replay", "POST", "/v1/clusters/c1/epochs", c1, epochN("3"), 200},
		{"epoch 409", "POST", "/v1/clusters/c1/epochs", c1, strings.Replace(epochN("3"), `"now": 100`, `"now": 1`, 1), 409},
		{"epoch 404", "POST", "/v1/clusters/c1/epochs", c2, epochN("4"), 404},
		{"epoch 422", "POST", "/v1/clusters/c1/epochs", c1, `{"epoch": 9, "slots": {"map": 0}, "jobs": [{"id": ""}]}`, 422},
		{"history list", "GET", "/v1/clusters/c1/epochs?limit=1", c1, "", 200},
		{"history list 400", "GET", "/v1/clusters/c1/epochs?limit=-1", c1, "", 400},
		{"history get", "GET", "/v1/clusters/c1/epochs/1", c1, "", 200},
		{"history get 404", "GET", "/v1/clusters/c1/epochs/77", c1, "", 404},
		{"export", "GET", "/v1/clusters/c1/epochs.jsonl", c1, "", 200},
		{"metric menu", "GET", "/v1/metrics", c1, "", 200},
		{"epoch pi_dhsa", "POST", "/v1/clusters/c1/epochs", c1, withRatio(epochN("5"), `"ratio": {"mode": "pi_dhsa"}`), 200},
		{"epoch pd_dhsa", "POST", "/v1/clusters/c1/epochs", c1, withRatio(epochN("6"), `"ratio": {"mode": "pd_dhsa"}`), 200},
		{"epoch fresh omo", "POST", "/v1/clusters/c1/epochs", c1, withRatio(epochN("7"), `"ratio": {"mode": "fresh"}, "omo": {"lazy_start": true, "batch_finish": true, "bandwidth": 1e8}`), 200},
		{"epoch omo 422", "POST", "/v1/clusters/c1/epochs", c1, withRatio(epochN("8"), `"omo": {"batch_finish": true}`), 422},
		{"plan slot-config", "POST", "/v1/plan/slot-config", c1, planBody, 200},
		{"plan slot-config 400", "POST", "/v1/plan/slot-config", c1, `{"slots": "ten"}`, 400},
		{"plan slot-config 401", "POST", "/v1/plan/slot-config", "", planBody, 401},
		{"plan slot-config 422", "POST", "/v1/plan/slot-config", c1, `{"slots": 1, "k": 0, "jobs": []}`, 422},
		{"healthz", "GET", "/healthz", "", "", 200},
		{"readyz", "GET", "/readyz", "", "", 200},
		{"openapi", "GET", "/openapi.yaml", "", "", 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body io.Reader
			if c.body != "" {
				body = strings.NewReader(c.body)
			}
			req := httptest.NewRequest(c.method, c.path, body)
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			rec := httptest.NewRecorder()
			e.srv.ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d; body %.300s", rec.Code, c.status, rec.Body.Bytes())
			}
			checkContract(t, router, req, rec)
		})
	}
}

// specRouter loads and validates the committed api/openapi.yaml and
// returns a router over it for checkContract.
func specRouter(t *testing.T) routers.Router {
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
		t.Fatalf("router: %v", err)
	}
	// The export is JSON Lines, which kin-openapi has no decoder for; its
	// schema is a string, so read it as one.
	openapi3filter.RegisterBodyDecoder("application/jsonl", openapi3filter.FileBodyDecoder)
	return router
}

// checkContract validates the recorded answer to req against the spec:
// status documented, content type listed, body matching the schema,
// headers present.
func checkContract(t *testing.T, router routers.Router, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	// Route on a fresh request: the server consumed the body.
	route, params, err := router.FindRoute(httptest.NewRequest(req.Method, req.URL.String(), nil))
	if err != nil {
		t.Fatalf("no route in the spec for %s %s: %v", req.Method, req.URL, err)
	}
	validate(t, route, params, req, rec)
}

func validate(t *testing.T, route *routers.Route, params map[string]string, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
		},
		Status: rec.Code,
		Header: rec.Header(),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
		},
	}
	in.SetBodyBytes(bytes.Clone(rec.Body.Bytes()))
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("response does not match api/openapi.yaml: %v\nbody: %.1000s", err, rec.Body.Bytes())
	}
}

// TestContractCatchesDrift makes sure the contract check can fail: bodies
// that break the spec are rejected.
func TestContractCatchesDrift(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.Spec)
	if err != nil {
		t.Fatal(err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		status      int
		contentType string
		body        string
		noRequestID bool
	}{
		"field missing":       {200, "application/json", `{"policy": "flex"}`, false},
		"wrong type":          {200, "application/json", `{"status": 7}`, false},
		"undocumented status": {418, "application/json", `{}`, false},
		"problem as json":     {422, "application/json", `{"type": "about:blank", "title": "x", "status": 422}`, false},
		"no request id":       {200, "application/json", `{"status": "ok"}`, true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := "/v1/solve"
			method := "POST"
			if name == "wrong type" || name == "no request id" {
				path, method = "/healthz", "GET"
			}
			req := httptest.NewRequest(method, path, nil)
			route, params, err := router.FindRoute(req)
			if err != nil {
				t.Fatal(err)
			}
			h := http.Header{"Content-Type": {c.contentType}}
			if !c.noRequestID {
				h.Set("X-Request-Id", "r")
			}
			in := &openapi3filter.ResponseValidationInput{
				RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
				Status:                 c.status, Header: h,
				Options: &openapi3filter.Options{IncludeResponseStatus: true},
			}
			in.SetBodyBytes([]byte(c.body))
			if err := openapi3filter.ValidateResponse(context.Background(), in); err == nil {
				t.Errorf("a drifted response passed the contract check")
			}
		})
	}
}
