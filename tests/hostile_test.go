package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flexd/flexd/store/pgtest"
)

// hostileEpoch and hostileSolve are valid bodies the corpus mutates.
const (
	hostileEpoch = `{"epoch": 1, "now": 100, "epoch_length": 0.5, "slots": {"map": 10, "reduce": 4},
		"ratio": {"mode": "pi_dhsa"}, "omo": {"lazy_start": true, "batch_finish": true, "bandwidth": 100}, "released_slots": 3,
		"estimate": {"work": "extrapolate"},
		"jobs": [{"id": "job_1", "submitted": 0, "weight": 1, "deadline": 500,
			"map": {"min": 1, "max": 8, "pending": 20, "running": 2, "tasks": 30, "avg_task_time": 4},
			"reduce": {"min": 1, "max": 2, "work": 30, "started": true}}]}`
	// hostileSpeculation is an epoch with the task-level extension
	// (straggler advice).
	hostileSpeculation = `{"epoch": 1, "now": 100, "epoch_length": 3, "slots": {"map": 4, "reduce": 2},
		"speculation": {"detector": "esplash", "cap": {"min_tasks": 1}, "esamr": {"k": 3}, "esplash": {"levels": 2, "tau": 3}},
		"explain": true,
		"nodes": [{"id": "n1", "map_slots": 2, "reduce_slots": 1, "running_map": 1, "level": 1},
			{"id": "n2", "map_slots": 2, "reduce_slots": 1, "level": 2}],
		"jobs": [{"id": "job_1", "submitted": 0, "map": {"min": 0, "max": 4, "work": 40, "pending": 2, "running": 1, "tasks": 5, "avg_task_time": 10}}],
		"tasks": [{"attempt": "a1", "task": "t1", "job": "job_1", "phase": "map", "node": "n1", "start": 60,
			"progress": 0.2, "stage": "map", "stage_progress": 0.3},
			{"attempt": "a1b", "task": "t1", "job": "job_1", "phase": "map", "speculative": true, "state": "waiting"}],
		"completed_tasks": [{"attempt": "a0", "task": "t0", "job": "job_1", "phase": "map", "node": "n2", "start": 10,
			"finish": 20, "stage_times": [7, 3]}],
		"finished_jobs": ["job_0"]}`
	hostileSolve = `{"slots": 10, "now": 0, "objective": "avg_tardiness", "jobs": [
		{"id": "a", "min": 1, "max": 10, "work": 100, "submitted": 0, "deadline": 20},
		{"id": "b", "min": 1, "max": 4, "work": 20, "submitted": 0, "deadline": 5, "sla": [{"deadline": 3, "penalty": 1}]}]}`
)

// hostileValues are JSON values a hostile client puts where a number,
// string or object belongs; rawValues are not even valid JSON there.
var (
	hostileValues = []any{
		-1, int64(-9223372036854775808), int64(9223372036854775807), 0, 1.5, 1e-309, 1e308, -1e308,
		"NaN", "Infinity", nil, true, "x", []any{}, map[string]any{}, "\x00", "a\x00b", "\x7f", "é日",
		strings.Repeat("z", 10000), []any{[]any{[]any{[]any{1}}}},
	}
	rawValues = []string{`1e400`, `-1e400`, `"\ud800"`, `01`, `NaN`, `"\u0000"`, `1.`, `[`}
)

// hostileFields are the paths the corpus mutates in each body.
var hostileFields = map[string][]string{
	hostileEpoch: {"epoch", "now", "epoch_length", "slots.map", "slots.reduce", "released_slots", "effort",
		"ratio.mode", "omo.bandwidth", "estimate.work", "estimate.default_task_time", "estimate.min_one",
		"jobs.0.id", "jobs.0.submitted", "jobs.0.weight", "jobs.0.deadline", "jobs.0.map.min", "jobs.0.map.max",
		"jobs.0.map.pending", "jobs.0.map.tasks", "jobs.0.map.avg_task_time", "jobs.0.map.running_elapsed",
		"jobs.0.reduce.work", "jobs.0.reduce.started", "jobs"},
	hostileSpeculation: {"speculation.detector", "speculation.cap.min_tasks", "speculation.esamr.k", "speculation.esamr.basis",
		"speculation.esplash.tau", "speculation.esplash.levels", "explain", "nodes.0.id", "nodes.0.map_slots", "nodes.0.level",
		"nodes.1.running_map", "tasks.0.attempt", "tasks.0.node", "tasks.0.start", "tasks.0.progress", "tasks.0.stage",
		"tasks.0.stage_progress", "tasks.0.progress_rate", "tasks.1.state", "completed_tasks.0.stage_times",
		"completed_tasks.0.finish", "finished_jobs", "nodes", "tasks"},
	hostileSolve: {"slots", "now", "objective", "policy", "effort", "jobs.0.id", "jobs.0.min", "jobs.0.max",
		"jobs.0.work", "jobs.1.sla.0.deadline", "jobs.1.sla.0.penalty", "jobs"},
}

// setPath sets a dotted path (array indexes as numbers) in a decoded body.
func setPath(v any, path []string, val any) {
	for len(path) > 1 {
		switch c := v.(type) {
		case map[string]any:
			v = c[path[0]]
		case []any:
			var i int
			fmt.Sscan(path[0], &i)
			v = c[i]
		}
		path = path[1:]
	}
	switch c := v.(type) {
	case map[string]any:
		c[path[0]] = val
	case []any:
		var i int
		fmt.Sscan(path[0], &i)
		c[i] = val
	}
}

type hostileRequest struct {
	method, path, body string
}

// hostileCorpus builds the requests: every hostile value at every field of
// both bodies, raw garbage at a few, broken bodies, and hostile paths and
// queries on every endpoint.
func hostileCorpus(t *testing.T) []hostileRequest {
	t.Helper()
	var out []hostileRequest
	epochNo := 100
	for base, fields := range hostileFields {
		path, isEpoch := "/v1/solve", base != hostileSolve
		if isEpoch {
			path = "/v1/clusters/hostile/epochs"
		}
		for _, f := range fields {
			for _, val := range hostileValues {
				var v any
				if err := json.Unmarshal([]byte(base), &v); err != nil {
					t.Fatal(err)
				}
				if isEpoch && f != "epoch" {
					epochNo++
					setPath(v, []string{"epoch"}, epochNo)
				}
				setPath(v, strings.Split(f, "."), val)
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, hostileRequest{"POST", path, string(b)})
			}
		}
		for _, raw := range rawValues {
			out = append(out,
				hostileRequest{"POST", path, strings.Replace(base, `"now": `, `"now": `+raw+`, "x": `, 1)},
				hostileRequest{"POST", path, strings.Replace(base, `"slots": `, `"slots": `+raw+`, "y": `, 1)})
		}
	}
	for _, b := range []string{``, `null`, `[]`, `{}`, `{"jobs": null}`, `{`, `"x"`, strings.Repeat("[", 10000),
		`{"epoch": 1, "epoch": 2}`, `{"EPOCH": 1}`, "\xff\xfe", hostileEpoch + `{}`} {
		out = append(out, hostileRequest{"POST", "/v1/clusters/hostile/epochs", b}, hostileRequest{"POST", "/v1/solve", b},
			hostileRequest{"POST", "/v1/plan/slot-config", b})
	}
	for _, p := range []string{
		"/v1/clusters/hostile/epochs?from=-9223372036854775808", "/v1/clusters/hostile/epochs?to=-1",
		"/v1/clusters/hostile/epochs?limit=0", "/v1/clusters/hostile/epochs?limit=99999999999999999999",
		"/v1/clusters/hostile/epochs?cursor=x", "/v1/clusters/hostile/epochs?job_id=%00", "/v1/clusters/hostile/epochs?job_id=%ff",
		"/v1/clusters/hostile/epochs/-1", "/v1/clusters/hostile/epochs/99999999999999999999", "/v1/clusters/hostile/epochs/x",
		"/v1/clusters/%00/epochs", "/v1/clusters/" + strings.Repeat("c", 300) + "/epochs", "/v1/clusters/a%2Fb/epochs",
		"/v1/clusters/hostile/epochs.jsonl?from=-1", "/v1/clusters/hostile/epochs.jsonl?to=x", "/v1/metrics?x=%zz",
	} {
		out = append(out, hostileRequest{"GET", p, ""})
	}
	return out
}

// TestHostileCorpus runs over a thousand hostile requests against flexd on
// PostgreSQL (issue 16): none may be answered 5xx, and every refusal must
// say why (a problem with a detail, and the field when it names one).
func TestHostileCorpus(t *testing.T) {
	f := startFlexd(t, pgtest.NewPool(t), specRouter(t))
	corpus := hostileCorpus(t)
	if len(corpus) < 300 {
		t.Fatalf("corpus of %d requests, want at least 300", len(corpus))
	}
	client := f.http.Client()
	statuses := map[int]int{}
	// The slowest answer is reported, not asserted (no timed assertions):
	// issue 16 wants none over 5 s.
	var slowest time.Duration
	var slowestReq hostileRequest
	for _, h := range corpus {
		var body io.Reader
		if h.body != "" {
			body = strings.NewReader(h.body)
		}
		req, err := http.NewRequestWithContext(t.Context(), h.method, f.http.URL+h.path, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", h.method, h.path, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if d := time.Since(start); d > slowest {
			slowest, slowestReq = d, h
		}
		statuses[res.StatusCode]++
		if res.StatusCode >= 500 {
			t.Errorf("%s %s answered %d: %s\nbody: %.300s", h.method, h.path, res.StatusCode, b, h.body)
			continue
		}
		if res.StatusCode >= 400 {
			var p struct {
				Detail string `json:"detail"`
				Fields []struct {
					Field string `json:"field"`
				} `json:"errors"`
			}
			if json.Unmarshal(b, &p) != nil || p.Detail == "" {
				t.Errorf("%s %s answered %d without a problem detail: %.200s", h.method, h.path, res.StatusCode, b)
				continue
			}
			// A refused body names what is wrong in it: a field, or
			// the byte where the JSON breaks (or says it is empty).
			located := len(p.Fields) > 0 && p.Fields[0].Field != "" || strings.Contains(p.Detail, "byte") ||
				strings.Contains(p.Detail, "empty") || strings.Contains(p.Detail, "ends in the middle")
			if (res.StatusCode == 400 || res.StatusCode == 422) && h.method == "POST" && !located {
				t.Errorf("%s %s answered %d naming neither a field nor a byte offset: %.300s\nbody: %.200s", h.method, h.path, res.StatusCode, b, h.body)
			}
		}
	}
	t.Logf("%d hostile requests: statuses %v; the slowest took %v (%s %s)", len(corpus), statuses, slowest, slowestReq.method, slowestReq.path)
}

// FuzzEpochPostgres feeds arbitrary bodies to the epoch endpoint of flexd
// on PostgreSQL (the memory store's twin is httpapi's FuzzEpochDecode):
// whatever the body, the answer is never a 5xx. go test runs its seeds
// (the hostile bodies) in CI; `bash scripts/test.sh -run '^$' -fuzz
// FuzzEpochPostgres -fuzztime 10m ./tests/` is the long run.
func FuzzEpochPostgres(f *testing.F) {
	for _, seed := range []string{hostileEpoch, hostileSpeculation, hostileSolve, `{}`, `{"epoch": -1}`} {
		f.Add([]byte(seed))
	}
	srv := startFlexd(f, pgtest.NewPool(f), nil)
	client := srv.http.Client()
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.http.URL+"/v1/clusters/fuzz/epochs", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode >= 500 {
			t.Fatalf("status %d for %q: %s", res.StatusCode, body, b)
		}
	})
}
