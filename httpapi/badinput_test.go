package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/solver"
)

// manyJobs is a /v1/solve body with n minimal jobs.
func manyJobs(n int) string {
	var b strings.Builder
	b.WriteString(`{"slots": 100, "jobs": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"%d","max":1,"work":1}`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// TestBadInput: every kind of bad body gets the right 4xx naming the field,
// never a 5xx.
func TestBadInput(t *testing.T) {
	huge := `{"slots": 10, "jobs": [{"id": "j", "max": 1, "work": 1, "pad": "` + strings.Repeat("x", 9<<20) + `"}]}`
	cases := map[string]struct {
		path   string
		body   string
		status int
		// fields are the paths the problem must list (all of them).
		fields []string
	}{
		"malformed JSON":          {"/v1/solve", `{"slots": 10, "jobs": [`, 400, nil},
		"not an object":           {"/v1/solve", `[1, 2]`, 400, []string{"(body)"}},
		"trailing data":           {"/v1/solve", solveBody + ` {}`, 400, nil},
		"empty body":              {"/v1/solve", ``, 400, nil},
		"unknown top-level field": {"/v1/solve", `{"slots": 10, "jobz": []}`, 400, []string{"jobz"}},
		"unknown nested field":    {"/v1/solve", `{"slots": 10, "jobs": [{"id": "a", "max": 1, "work": 1}, {"id": "b", "max": 1, "work": 1, "sla": [{"deadline": 1, "penalty": 1, "x": 1}]}]}`, 400, []string{"jobs[1].sla[0].x"}},
		"wrong type string":       {"/v1/solve", `{"slots": "ten", "jobs": []}`, 400, []string{"slots"}},
		"wrong type nested":       {"/v1/solve", `{"slots": 10, "jobs": [{"id": "a", "max": 1, "work": 1}, {"id": 7, "max": 1, "work": 1}]}`, 400, []string{"jobs[1].id"}},
		"float for int":           {"/v1/solve", `{"slots": 10, "jobs": [{"id": "a", "max": 1.5, "work": 1}]}`, 400, []string{"jobs[0].max"}},
		"huge float 1e400":        {"/v1/solve", `{"slots": 10, "jobs": [{"id": "a", "max": 1, "work": 1e400}]}`, 400, []string{"jobs[0].work"}},
		"huge int":                {"/v1/solve", `{"slots": 1e30, "jobs": []}`, 400, []string{"slots"}},
		"NaN string":              {"/v1/solve", `{"slots": 10, "jobs": [{"id": "a", "max": 1, "work": "NaN"}]}`, 400, []string{"jobs[0].work"}},
		"negative work":           {"/v1/solve", `{"slots": 10, "jobs": [{"id": "a", "max": 1, "work": -5}]}`, 422, []string{"jobs[0].work"}},
		"zero slots":              {"/v1/solve", `{"slots": 0, "jobs": [{"id": "a", "max": 1, "work": 1}]}`, 422, []string{"slots"}},
		"duplicate ids":           {"/v1/solve", `{"slots": 10, "jobs": [{"id": "a", "max": 1, "work": 1}, {"id": "a", "max": 1, "work": 1}]}`, 422, []string{"jobs[1].id"}},
		"empty id":                {"/v1/solve", `{"slots": 10, "jobs": [{"id": "", "max": 1, "work": 1}]}`, 422, []string{"jobs[0].id"}},
		"sla out of order": {"/v1/solve", `{"slots": 10, "objective": "sla_cost", "jobs": [{"id": "a", "max": 1, "work": 1,
			"sla": [{"deadline": 9, "penalty": 0.2}, {"deadline": 5, "penalty": 0.6}]}]}`, 422, []string{"jobs[0].sla[1].deadline"}},
		"every problem listed": {"/v1/solve", `{"slots": 0, "objective": "nope", "policy": "magic", "jobs": [{"id": "a", "max": 0, "work": 0}]}`, 422,
			[]string{"policy", "slots", "objective", "jobs[0].max", "jobs[0].work"}},
		"deadline missing":       {"/v1/solve", `{"slots": 10, "objective": "avg_tardiness", "jobs": [{"id": "a", "max": 1, "work": 1}]}`, 422, []string{"jobs[0].deadline"}},
		"optimal above 10":       {"/v1/solve", strings.Replace(manyJobs(11), `"slots": 100`, `"slots": 100, "policy": "optimal"`, 1), 422, nil},
		"100001 jobs":            {"/v1/solve", manyJobs(100_001), 422, []string{"jobs"}},
		"fair above its limit":   {"/v1/solve", strings.Replace(manyJobs(solver.MaxFairJobs+1), `"slots": 100`, `"slots": 100, "policy": "fair"`, 1), 422, []string{"jobs"}},
		"overflow to infinity":   {"/v1/solve", `{"slots": 1, "jobs": [{"id": "a", "max": 1, "work": 1e308}, {"id": "b", "max": 1, "work": 1e308}, {"id": "c", "max": 1, "work": 1e308}]}`, 422, nil},
		"9 MiB body":             {"/v1/solve", huge, 413, nil},
		"epoch unknown field":    {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"pending": 20`, `"pendng": 20`, 1), 400, []string{"jobs[0].map.pendng"}},
		"epoch wrong type":       {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"started": true`, `"started": "yes"`, 1), 400, []string{"jobs[1].reduce.started"}},
		"epoch negative work":    {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"work": 400`, `"work": -400`, 1), 422, []string{"jobs[0].map.work"}},
		"epoch cluster clash":    {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `{"epoch"`, `{"cluster": "c2", "epoch"`, 1), 422, []string{"cluster"}},
		"epoch duplicate ids":    {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"id": "job_2"`, `"id": "job_1"`, 1), 422, []string{"jobs[1].id"}},
		"epoch 9 MiB body":       {"/v1/clusters/c1/epochs", huge, 413, nil},
		"effort above 16":        {"/v1/solve", strings.Replace(solveBody, `"now": 0,`, `"now": 0, "effort": 17,`, 1), 422, []string{"effort"}},
		"effort negative":        {"/v1/solve", strings.Replace(solveBody, `"now": 0,`, `"now": 0, "effort": -1,`, 1), 422, []string{"effort"}},
		"effort not an int":      {"/v1/solve", strings.Replace(solveBody, `"now": 0,`, `"now": 0, "effort": 1.5,`, 1), 400, []string{"effort"}},
		"epoch effort above":     {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"epoch": 1,`, `"epoch": 1, "effort": 99,`, 1), 422, []string{"effort"}},
		"estimate unknown mode":  {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"epoch": 1,`, `"epoch": 1, "estimate": {"work": "guess"},`, 1), 422, []string{"estimate.work"}},
		"estimate default 0":     {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"epoch": 1,`, `"epoch": 1, "estimate": {"work": "extrapolate", "default_task_time": 0},`, 1), 422, []string{"estimate.default_task_time"}},
		"estimate min_one":       {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"epoch": 1,`, `"epoch": 1, "estimate": {"min_one": "often"},`, 1), 422, []string{"estimate.min_one"}},
		"estimate unknown key":   {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"epoch": 1,`, `"epoch": 1, "estimate": {"works": "given"},`, 1), 400, []string{"estimate.works"}},
		"negative avg_task_time": {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"pending": 20`, `"pending": 20, "avg_task_time": -4`, 1), 422, []string{"jobs[0].map.avg_task_time"}},
		"epoch -1":               {"/v1/clusters/c1/epochs", epochN("-1"), 422, []string{"epoch"}},
		"epoch most negative":    {"/v1/clusters/c1/epochs", epochN("-9223372036854775808"), 422, []string{"epoch"}},
		"epoch past 2^53":        {"/v1/clusters/c1/epochs", epochN("9223372036854775807"), 422, []string{"epoch"}},
		"epoch missing":          {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"epoch": 1,`, ``, 1), 422, []string{"epoch"}},
		"epoch null":             {"/v1/clusters/c1/epochs", epochN("null"), 422, []string{"epoch"}},
		"epoch null, slow path":  {"/v1/clusters/c1/epochs", strings.Replace(epochN("null"), `"id": "job_1"`, `"id": "job\u005f1"`, 1), 422, []string{"epoch"}},
		"job id with a NUL":      {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"id": "job_1"`, `"id": "job\u0000_1"`, 1), 422, []string{"jobs[0].id"}},
		"solve id with a tab":    {"/v1/solve", strings.Replace(solveBody, `"id": "j1"`, `"id": "j\t1"`, 1), 422, []string{"jobs[0].id"}},
		"epoch effort negative":  {"/v1/clusters/c1/epochs", strings.Replace(epochBody, `"epoch": 1,`, `"epoch": 1, "effort": -3,`, 1), 422, []string{"effort"}},
	}
	e := newEnv(t, nil)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			res := e.post(c.path, "", c.body)
			if res.status != c.status {
				t.Fatalf("status %d, want %d; body %.500s", res.status, c.status, res.body)
			}
			p := res.problem(t)
			if p.Status != c.status || p.Title != http.StatusText(c.status) {
				t.Errorf("problem status/title = %d %q", p.Status, p.Title)
			}
			got := map[string]bool{}
			for _, f := range p.Errors {
				got[f.Field] = true
				if f.Message == "" {
					t.Errorf("field %s has no message", f.Field)
				}
			}
			for _, f := range c.fields {
				if !got[f] {
					t.Errorf("problem does not list %q: %+v", f, p.Errors)
				}
			}
		})
	}
}

func TestBadQuery(t *testing.T) {
	e := newEnv(t, nil)
	cases := map[string]struct {
		query string
		field string
	}{
		"from not a number":  {"from=x", "from"},
		"limit too big":      {"limit=5000", "limit"},
		"limit zero":         {"limit=0", "limit"},
		"cursor garbage":     {"cursor=abc", "cursor"},
		"job_id with a NUL":  {"job_id=%00", "job_id"},
		"from most negative": {"from=-9223372036854775808", "from"},
		"to negative":        {"to=-1", "to"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			res := e.get("/v1/clusters/c1/epochs?"+c.query, "")
			if res.status != http.StatusBadRequest {
				t.Fatalf("status %d", res.status)
			}
			p := res.problem(t)
			if len(p.Errors) != 1 || p.Errors[0].Field != c.field {
				t.Errorf("errors = %+v, want field %s", p.Errors, c.field)
			}
		})
	}
}

// TestBodyLimitConfigurable: the limit is the Config's, and a body just
// under it is fine.
func TestBodyLimitConfigurable(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.BodyLimit = int64(len(solveBody)) })
	if res := e.post("/v1/solve", "", solveBody); res.status != http.StatusOK {
		t.Errorf("body at the limit: %d", res.status)
	}
	if res := e.post("/v1/solve", "", solveBody+" "); res.status != http.StatusRequestEntityTooLarge {
		t.Errorf("body one byte over: %d", res.status)
	}
}

// FuzzEpochDecode feeds arbitrary bodies through decoding, validation and
// (when valid) deciding: whatever the body, the answer is never a 5xx.
func FuzzEpochDecode(f *testing.F) {
	for _, seed := range []string{
		epochBody, epochN("2"), `{}`, `{"epoch": -1}`, `{"jobs": [{"id": "a", "map": {"work": 1e308, "max": 1}}], "slots": {"map": 1}}`,
		`{"slots": {"map": 1e7, "reduce": 0}, "jobs": [{"id": "a", "map": {"min": 5, "max": 3, "work": 1}}]}`,
		`{"jobs": [{"id": "a", "sla": [{"deadline": 1, "penalty": 2}, {"deadline": 1, "penalty": 1}]}]}`,
		`{"epoch": 1, "slots": {"map": 3}, "objective": "max_stretch", "jobs": [{"id": "a", "map": {"max": 2, "work": 5, "total_work": 0}}]}`,
		`[`, `null`, `"x"`, `{"ratio": {"mode": "pd_dhsa"}, "omo": {"lazy_start": true}}`,
		dhsa(`"ratio": {"mode": "pd_dhsa", "pools": [{"name": "a"}, {"name": "b", "weight": 2}], "reduce_slot_weight": 3}`),
		dhsa(`"ratio": {"mode": "pi_dhsa", "borrow_map": 0.5, "borrow_reduce": 0}`),
		omoEpoch(1, 4), strings.Replace(omoEpoch(1, 4), `"mode": "fresh"`, `"mode": "pd_dhsa", "tau1": 0.1`, 1),
	} {
		f.Add([]byte(seed))
	}
	// The task-level extension: the E4 epochs, and the last as ESPLASH and
	// YARN's speculator would read it (with nodes).
	for _, seed := range e4Epochs() {
		f.Add([]byte(seed))
	}
	withNodes := strings.Replace(e4Epochs()[2], `"jobs": [`, `"nodes": [{"id": "n1", "map_slots": 3, "reduce_slots": 1, "level": 0}], "jobs": [`, 1)
	f.Add([]byte(strings.Replace(withNodes, `"detector": "esamr"`, `"detector": "esplash", "esplash": {"levels": 2}`, 1)))
	f.Add([]byte(strings.Replace(withNodes, `"detector": "esamr"`, `"detector": "yarn_default", "cap": {"min_tasks": 0}`, 1)))
	e := newEnv(f, nil)
	f.Fuzz(func(t *testing.T, body []byte) {
		e.t = t
		res := e.post("/v1/clusters/c1/epochs", "", string(body))
		if res.status >= 500 {
			t.Fatalf("status %d for body %q: %s", res.status, body, res.body)
		}
		solve := e.post("/v1/solve", "", string(body))
		if solve.status >= 500 {
			t.Fatalf("/v1/solve status %d for body %q: %s", solve.status, body, solve.body)
		}
	})
}

// TestSubnormalEpochLength: a window so short that OMO's release rate
// overflows is answered, not a 500 (issue 16: +Inf reached the encoder).
func TestSubnormalEpochLength(t *testing.T) {
	e := newEnv(t, nil)
	body := withRatio(strings.Replace(epochBody, `"epoch_length": 0.5`, `"epoch_length": 1e-309, "released_slots": 5`, 1),
		`"ratio": {"mode": "pi_dhsa"}, "omo": {"lazy_start": true, "batch_finish": true, "bandwidth": 100}`)
	if res := e.post("/v1/clusters/c1/epochs", "", body); res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
}

// TestContentEncodingRefused: a compressed body is refused with 415, not
// read as JSON (issue 16, item 9).
func TestContentEncodingRefused(t *testing.T) {
	e := newEnv(t, nil)
	req := httptest.NewRequest(http.MethodPost, "/v1/solve", strings.NewReader(solveBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "br")
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnsupportedMediaType {
		t.Errorf("status %d, want 415", rec.Code)
	}
}

// gateReader is a body that signals its first read and then waits.
type gateReader struct {
	started, release chan struct{}
	once             bool
	r                io.Reader
}

// newGate is a solveBody that waits, once first read, until released.
func newGate() *gateReader {
	return &gateReader{started: make(chan struct{}), release: make(chan struct{}), r: strings.NewReader(solveBody)}
}

func (g *gateReader) Read(p []byte) (int, error) {
	if !g.once {
		g.once = true
		close(g.started)
		<-g.release
	}
	return g.r.Read(p)
}

// TestInFlightBytesBound: while a request holds the in-flight bound (one
// without a declared length counts as the whole body cap), another is
// refused at once with 503 and Retry-After, before its body is read; once
// the first is done, requests run again (issue 16, item 3).
func TestInFlightBytesBound(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.BodyLimit, c.InFlightBytes = 1<<20, 1<<20 })
	g := newGate()
	reqA := httptest.NewRequest(http.MethodPost, "/v1/solve", g)
	reqA.ContentLength = -1
	reqA.Header.Set("Content-Type", "application/json")
	recA := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		e.srv.ServeHTTP(recA, reqA)
		close(done)
	}()
	<-g.started
	res := e.post("/v1/solve", "", solveBody)
	if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "" {
		t.Errorf("second request while the first holds the bound: %d (Retry-After %q), want 503 with Retry-After", res.status, res.header.Get("Retry-After"))
	}
	// The gauges show it: the held request's reservation (the whole body
	// limit) and the two requests in flight, the first and this one.
	m := e.get("/metrics", "")
	for _, want := range []string{"flexd_http_body_bytes_in_flight 1.048576e+06", "flexd_http_requests_in_flight 2"} {
		if !strings.Contains(string(m.body), want) {
			t.Errorf("/metrics lacks %q while a request holds the bound", want)
		}
	}
	close(g.release)
	<-done
	if recA.Code != http.StatusOK {
		t.Errorf("first request: %d", recA.Code)
	}
	if res := e.post("/v1/solve", "", solveBody); res.status != http.StatusOK {
		t.Errorf("after the first finished: %d", res.status)
	}
}

// TestOptimalStopsAtTheDeadline: an exhaustive solve whose request has run
// out of time stops and answers 504, instead of finishing for a caller that
// gave up (issue 16, item 7: 3.5 s answered 200 under a 2 s timeout).
func TestOptimalStopsAtTheDeadline(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.RequestTimeout = time.Nanosecond })
	body := strings.Replace(manyJobs(10), `"slots": 100`, `"slots": 100, "policy": "optimal"`, 1)
	res := e.post("/v1/solve", "", body)
	if res.status != http.StatusGatewayTimeout {
		t.Errorf("status %d, want 504: %s", res.status, res.body)
	}
}

// TestStrictKeys: what encoding/json lets through is refused with 400
// naming the field: a key in another case than its field's, a key twice
// in one object (issue 16, item 9); a job list past the limit is a 422
// as soon as the decoder counts past it.
func TestStrictKeys(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.Limits.MaxJobs = 2 })
	for name, tc := range map[string]struct {
		body, field string
		status      int
	}{
		"upper-case key":   {strings.Replace(epochBody, `"epoch":`, `"Epoch":`, 1), "Epoch", 400},
		"duplicate key":    {strings.Replace(epochBody, `"epoch_length": 0.5`, `"epoch_length": 0.5, "epoch_length": 0.5`, 1), "epoch_length", 400},
		"duplicate in job": {strings.Replace(epochBody, `"id": "job_1"`, `"id": "job_1", "id": "job_9"`, 1), "jobs[0].id", 400},
		"too many jobs": {`{"epoch": 1, "now": 0, "epoch_length": 1, "slots": {"map": 1, "reduce": 1}, "jobs": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}]}`,
			"jobs", 422},
	} {
		t.Run(name, func(t *testing.T) {
			res := e.post("/v1/clusters/c1/epochs", "", tc.body)
			if res.status != tc.status || !strings.Contains(string(res.body), `"field":"`+tc.field+`"`) {
				t.Errorf("status %d, want %d naming %s: %s", res.status, tc.status, tc.field, res.body)
			}
		})
	}
	if res := e.post("/v1/solve", "", strings.Replace(solveBody, `"slots"`, `"Slots"`, 1)); res.status != 400 {
		t.Errorf("/v1/solve with an upper-case key: %d %s", res.status, res.body)
	}
}

// TestContentTypeRequired: a body must say it is JSON; text/plain (a
// browser's cross-site simple POST), a form or no Content-Type at all is
// a 415 before the body is read (issue 16, item 9).
func TestContentTypeRequired(t *testing.T) {
	e := newEnv(t, nil)
	for ct, want := range map[string]int{
		"":                                  http.StatusUnsupportedMediaType,
		"text/plain":                        http.StatusUnsupportedMediaType,
		"application/x-www-form-urlencoded": http.StatusUnsupportedMediaType,
		"application/json; charset=utf-8":   http.StatusOK,
		"application/vnd.flexd+json":        http.StatusOK,
	} {
		req := httptest.NewRequest(http.MethodPost, "/v1/solve", strings.NewReader(solveBody))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Content-Type %q: status %d, want %d: %s", ct, rec.Code, want, rec.Body.String())
		}
	}
}

// TestEpochTimeoutNotRecomputed: an epoch whose decision ran out of time
// is answered 504 once; the same body again is refused at once with a 422
// naming the policy instead of spending the timeout again, and another
// body for that epoch is decided (issue 16, item 7).
func TestEpochTimeoutNotRecomputed(t *testing.T) {
	// Long enough for the store, far too short for 10! orders.
	e := newEnv(t, func(c *httpapi.Config) { c.RequestTimeout = 100 * time.Millisecond })
	var jobs []string
	for i := range 10 {
		jobs = append(jobs, fmt.Sprintf(`{"id": "j%d", "submitted": 0, "map": {"min": 0, "max": 10, "work": %d}}`, i, 100+37*i))
	}
	body := func(policy string) string {
		return fmt.Sprintf(`{"epoch": 1, "now": 0, "epoch_length": 1, "policy": %q, "slots": {"map": 10, "reduce": 1}, "jobs": [%s]}`,
			policy, strings.Join(jobs, ","))
	}
	if res := e.post("/v1/clusters/c1/epochs", "", body("optimal")); res.status != http.StatusGatewayTimeout {
		t.Fatalf("first: %d %s, want 504", res.status, res.body)
	}
	res := e.post("/v1/clusters/c1/epochs", "", body("optimal"))
	if res.status != http.StatusUnprocessableEntity || !strings.Contains(string(res.body), `"field":"policy"`) {
		t.Errorf("retry: %d %s, want 422 naming policy", res.status, res.body)
	}
	e2 := newEnv(t, nil) // the fast policy within a real timeout
	if res := e2.post("/v1/clusters/c1/epochs", "", body("flex")); res.status != http.StatusOK {
		t.Errorf("flex: %d %s", res.status, res.body)
	}
}
