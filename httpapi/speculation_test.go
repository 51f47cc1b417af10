package httpapi_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/flexd/flexd/httpapi"
)

// e4Epochs are case E4 (estimate-and-advice.md section 3.4) as a shim
// would post it: two jobs that finish (a map each done on n1 while they
// were live) leave node n1 the map records 0.21 and 0.72 (so its centroids are (0.21, 0.79) and (0.72, 0.28)); then job_1,
// 3 of 10 maps done on n1 (M1 0.72, 0.70, 0.74), runs a (map stage, 0.5,
// 18 s), b (sort, 0.5, 43 s) and c (map, 0.25, 45 s).
func e4Epochs() []string {
	spec := `"speculation": {"detector": "esamr"}`
	head := func(epoch int, now float64) string {
		return fmt.Sprintf(`"epoch": %d, "now": %g, "epoch_length": 3, "slots": {"map": 3, "reduce": 1}, %s`, epoch, now, spec)
	}
	done := func(id, job string, m, s float64) string {
		return fmt.Sprintf(`{"attempt": "%s", "task": "t%s", "job": "%s", "phase": "map", "node": "n1", "start": 0, "finish": %g, "stage_times": [%g, %g]}`,
			id, id, job, m+s, m, s)
	}
	run := func(id, stage string, sub, elapsed float64) string {
		return fmt.Sprintf(`{"attempt": "%s", "task": "t%s", "job": "job_1", "phase": "map", "node": "n1", "start": %g, "stage": "%s", "stage_progress": %g, "progress": 0.5}`,
			id, id, 1000-elapsed, stage, sub)
	}
	live := func(id string) string {
		return fmt.Sprintf(`{"id": "%s", "submitted": 0, "map": {"min": 0, "max": 1, "work": 10, "pending": 0, "running": 1, "tasks": 2}}`, id)
	}
	job1 := `{"id": "job_1", "submitted": 0, "map": {"min": 0, "max": 7, "work": 300, "pending": 4, "running": 3, "tasks": 10}}`
	return []string{
		`{` + head(1, 100) + `, "jobs": [` + live("job_a") + `,` + live("job_b") + `], "completed_tasks": [` +
			done("x1", "job_a", 21, 79) + `,` + done("x2", "job_b", 72, 28) + `]}`,
		`{` + head(2, 103) + `, "jobs": [], "finished_jobs": ["job_a", "job_b"]}`,
		`{` + head(3, 1000) + `, "jobs": [` + job1 + `], "completed_tasks": [` +
			done("d1", "job_1", 36, 14) + `,` + done("d2", "job_1", 35, 15) + `,` + done("d3", "job_1", 37, 13) + `], "tasks": [` +
			run("a", "map", 0.5, 18) + `,` + run("b", "sort", 0.5, 43) + `,` + run("c", "map", 0.25, 45) + `]}`,
	}
}

// TestSpeculationE4HTTP: case E4 through the server: the third epoch's
// answer advises a backup of c only (esamr_slow, 205 s to its end), with
// its allocations those of the same epoch without the extension (advice
// never changes an allocation), and the learned history survives between
// epochs in the cluster's state.
func TestSpeculationE4HTTP(t *testing.T) {
	e := newEnv(t, nil)
	var last httpapi.EpochResponse
	for i, body := range e4Epochs() {
		res := e.post("/v1/clusters/c1/epochs", "", body)
		if res.status != http.StatusOK {
			t.Fatalf("epoch %d: status %d: %s", i+1, res.status, res.body)
		}
		res.decode(t, &last)
	}
	// Rounded to a microsecond: the arithmetic is exact only on paper.
	for i := range last.Speculation.Speculate {
		if p := last.Speculation.Speculate[i].TimeToEnd; p != nil {
			*p = math.Round(*p*1e6) / 1e6
		}
	}
	got, err := json.Marshal(last.Speculation)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"detector":"esamr","speculate":[{"job":"job_1","task":"tc","attempt":"c","phase":"map","node":"n1","reason":"esamr_slow","time_to_end":205}],` +
		`"deferred":[],"cancel":[],"exclude_nodes":[],"idle_slots":{"map":0,"reduce":1}}`
	if string(got) != want {
		t.Errorf("speculation\n got %s\nwant %s", got, want)
	}

	// The same epoch without the extension: the same allocations.
	plain := e4Epochs()[2]
	cut := strings.Index(plain, `, "completed_tasks"`)
	plain = strings.Replace(plain[:cut], `, "speculation": {"detector": "esamr"}`, "", 1) + "}"
	res := e.post("/v1/clusters/c2/epochs", "", plain)
	if res.status != http.StatusOK {
		t.Fatalf("plain epoch: %d %s", res.status, res.body)
	}
	var base httpapi.EpochResponse
	res.decode(t, &base)
	if base.Speculation != nil {
		t.Errorf("speculation without a detector: %+v", base.Speculation)
	}
	if fmt.Sprint(base.Allocations) != fmt.Sprint(last.Allocations) || fmt.Sprint(base.Budgets) != fmt.Sprint(last.Budgets) {
		t.Errorf("the advice changed the allocations: %+v against %+v", last.Allocations, base.Allocations)
	}
}

// TestSpeculationBadInput: section 2.6's refusals come back as 422s naming
// the field, never a 5xx.
func TestSpeculationBadInput(t *testing.T) {
	e := newEnv(t, nil)
	base := e4Epochs()[2]
	for name, tc := range map[string]struct{ from, to, field string }{
		"unknown node":         {`"jobs": [`, `"nodes": [{"id": "n2", "map_slots": 3, "reduce_slots": 1}], "jobs": [`, "tasks[0].node"},
		"progress above one":   {`"progress": 0.5}`, `"progress": 1.5}`, "tasks[0].progress"},
		"stage times of three": {`"stage_times": [36, 14]`, `"stage_times": [36, 14, 1]`, "completed_tasks[0].stage_times"},
		"slots do not add up":  {`"jobs": [`, `"nodes": [{"id": "n1", "map_slots": 2, "reduce_slots": 1}], "jobs": [`, "nodes"},
		"unknown detector":     {`"detector": "esamr"`, `"detector": "magic"`, "speculation.detector"},
		"unknown stage":        {`"stage": "sort"`, `"stage": "merge"`, "tasks[1].stage"},
		"job not in jobs":      {`"job": "job_1", "phase": "map", "node": "n1", "start": 982`, `"job": "job_9", "phase": "map", "node": "n1", "start": 982`, "tasks[0].job"},
	} {
		t.Run(name, func(t *testing.T) {
			body := strings.Replace(base, tc.from, tc.to, 1)
			if body == base {
				t.Fatalf("the case does not change the body (%q)", tc.from)
			}
			res := e.post("/v1/clusters/bad/epochs", "", body)
			if res.status != http.StatusUnprocessableEntity || !strings.Contains(string(res.body), `"field":"`+tc.field+`"`) {
				t.Errorf("status %d, want 422 naming %s: %s", res.status, tc.field, res.body)
			}
		})
	}
}

// speculationEpoch is a large cluster's epoch with the task-level
// extension: 200 jobs of 60 maps each, 100 nodes of 100 map and 20 reduce
// slots (10,000 map slots), every slot running an attempt (10,000 running
// attempts) and 500 attempts completed since the last epoch, detector
// det. Levels are pre-configured (four of 25 nodes each), as ESPLASH's
// testbed has them.
func speculationEpoch(epoch int, det string) httpapi.EpochRequest {
	req := httpapi.EpochRequest{
		Epoch: int64(epoch), Now: 10_000 + 3*float64(epoch), EpochLength: 3,
		Slots:       httpapi.PhaseSlots{Map: 10_000, Reduce: 2_000},
		Speculation: &httpapi.SpeculationConfig{Detector: det},
	}
	for n := range 100 {
		req.Nodes = append(req.Nodes, httpapi.NodeState{ID: fmt.Sprintf("n%03d", n), MapSlots: 100, ReduceSlots: 20,
			RunningMap: 50, Level: 1 + n/25})
	}
	for j := range 200 {
		id := fmt.Sprintf("job_%03d", j)
		req.Jobs = append(req.Jobs, httpapi.EpochJob{ID: id, Submitted: float64(j),
			Map: &httpapi.PhaseState{Max: 50, Work: 2000, Pending: 0, Running: 50, Tasks: 60, AvgTaskTime: 40}})
		for k := range 50 {
			start, p, sub := 10_000-float64((j*7+k*13)%60), float64((j+k)%97+1)/100, 0.5
			node := fmt.Sprintf("n%03d", (j*50+k)%100)
			req.Tasks = append(req.Tasks, httpapi.TaskAttemptState{
				Attempt: fmt.Sprintf("a_%s_%03d", id, k), Task: fmt.Sprintf("t_%s_%03d", id, k), Job: id, Phase: "map",
				Node: node, Start: &start, Progress: &p, Stage: "map", StageProgress: &sub})
		}
		if j < 50 {
			for k := 50; k < 60; k++ {
				req.CompletedTasks = append(req.CompletedTasks, httpapi.CompletedTaskState{
					Attempt: fmt.Sprintf("a_%s_%03d", id, k), Task: fmt.Sprintf("t_%s_%03d", id, k), Job: id, Phase: "map",
					Node: fmt.Sprintf("n%03d", (j+k)%100), Start: 9_900, Finish: 9_940 + float64(k%7), StageTimes: []float64{30, 10 + float64(k%7)}})
			}
		}
	}
	return req
}

// BenchmarkEpochSpeculation is the whole epoch POST (decode, validate,
// decide, advise, encode, store in memory) of speculationEpoch: 200 jobs,
// 100 nodes, 10,000 running attempts and 500 completed ones, per
// detector. It reports the body size.
//
//	go test ./httpapi -run '^$' -bench EpochSpeculation
func BenchmarkEpochSpeculation(b *testing.B) {
	for _, det := range []string{"none", "esamr", "yarn_default", "esplash"} {
		b.Run("detector="+det, func(b *testing.B) {
			e := newEnv(b, func(c *httpapi.Config) { c.RateLimit = -1 })
			bodies := make([]string, 0, 64)
			epoch := 0
			next := func() string {
				if len(bodies) == 0 {
					for range cap(bodies) {
						epoch++
						raw, err := json.Marshal(speculationEpoch(epoch, det))
						if err != nil {
							b.Fatal(err)
						}
						bodies = append(bodies, string(raw))
					}
				}
				body := bodies[0]
				bodies = bodies[1:]
				return body
			}
			size := 0
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				body := next()
				size = len(body)
				b.StartTimer()
				if res := e.post("/v1/clusters/big/epochs", "", body); res.status != http.StatusOK {
					b.Fatalf("status %d: %.300s", res.status, res.body)
				}
			}
			b.ReportMetric(float64(size), "body-bytes")
		})
	}
}

// sepbEpoch is cases B1 and B2 as an epoch: 20 map slots, 17 map attempts
// running over five jobs (J1 and J3 with 2 and 1 maps pending), J5's
// attempt J5-0 at progress 0.2 after 95 s where its maps average 40 s:
// YARN's speculator wants a backup of it.
func sepbEpoch(checked float64) string {
	type job struct {
		id               string
		pending, running int
		avg              float64
	}
	var jobs, tasks []string
	for _, j := range []job{{"J5", 0, 2, 40}, {"J1", 2, 5, 40}, {"J2", 0, 4, 40}, {"J3", 1, 3, 40}, {"J4", 0, 3, 40}} {
		jobs = append(jobs, fmt.Sprintf(`{"id": %q, "submitted": 0, "map": {"min": 0, "max": %d, "pending": %d, "running": %d, "tasks": 10, "avg_task_time": %g}}`,
			j.id, j.pending+j.running, j.pending, j.running, j.avg))
		for k := range j.running {
			start, pg := 990.0, 0.5
			if j.id == "J5" && k == 0 {
				start, pg = 905, 0.2
			}
			tasks = append(tasks, fmt.Sprintf(`{"attempt": "%s-%d", "task": "t%s-%d", "job": %q, "phase": "map", "node": "n1", "start": %g, "progress": %g}`,
				j.id, k, j.id, k, j.id, start, pg))
		}
	}
	return fmt.Sprintf(`{"epoch": 1, "now": 1000, "epoch_length": 3, "slots": {"map": 20, "reduce": 2},
		"estimate": {"work": "extrapolate"},
		"speculation": {"detector": "yarn_default", "sepb": {"enabled": true, "jobs_checked": %g}},
		"jobs": [%s], "tasks": [%s]}`, checked, strings.Join(jobs, ","), strings.Join(tasks, ","))
}

// TestSEPBHTTP: cases B1 and B2 through the server: checking no job, the
// backup is launched; checking all, it is deferred for J1's and J3's
// pending maps and the 95 s attempt is killed (twice its job's mean).
func TestSEPBHTTP(t *testing.T) {
	e := newEnv(t, nil)
	for i, tc := range []struct {
		checked float64
		want    string
	}{
		{0, `"speculate":[{"job":"J5","task":"tJ5-0","attempt":"J5-0","phase":"map","node":"n1","reason":"yarn_benefit","time_to_end":380}],"deferred":[],"cancel":[]`},
		{1, `"speculate":[],"deferred":[{"job":"J5","task":"tJ5-0","attempt":"J5-0","phase":"map","node":"n1","reason":"pending_tasks","pending_jobs":["J1","J3"]}],` +
			`"kill":[{"job":"J5","task":"tJ5-0","attempt":"J5-0","phase":"map","node":"n1","reason":"twice_mean","elapsed":95,"mean":40}],"cancel":[]`},
	} {
		res := e.post(fmt.Sprintf("/v1/clusters/s%d/epochs", i), "", sepbEpoch(tc.checked))
		if res.status != http.StatusOK {
			t.Fatalf("jobs_checked %v: %d %s", tc.checked, res.status, res.body)
		}
		if !strings.Contains(string(res.body), tc.want) {
			t.Errorf("jobs_checked %v: the answer lacks\n%s\nin\n%s", tc.checked, tc.want, res.body)
		}
	}
}

// TestPrescheduleP1HTTP: case P1 (Appendix D's picture) through the
// server: J1's two maps, local only on the two nodes at the balancing
// line, go to their extra idle slots; the allocations are those of the
// same epoch without preschedule.
func TestPrescheduleP1HTTP(t *testing.T) {
	e := newEnv(t, nil)
	body := `{"epoch": 1, "now": 100, "epoch_length": 3, "slots": {"map": 16, "reduce": 8},
		"preschedule": {"enabled": true},
		"nodes": [{"id": "TT1", "map_slots": 4, "reduce_slots": 2, "running_map": 1},
			{"id": "TT2", "map_slots": 4, "reduce_slots": 2, "running_map": 3},
			{"id": "TT3", "map_slots": 4, "reduce_slots": 2},
			{"id": "TT4", "map_slots": 4, "reduce_slots": 2, "running_map": 2}],
		"jobs": [{"id": "J2", "submitted": 0, "map": {"min": 0, "max": 6, "work": 60, "pending": 0, "running": 6, "tasks": 6}},
			{"id": "J1", "submitted": 1, "map": {"min": 0, "max": 2, "work": 20, "pending": 2, "running": 0, "tasks": 2,
				"local_pending": {"TT2": 1, "TT4": 1}}}]}`
	res := e.post("/v1/clusters/p1/epochs", "", body)
	if res.status != http.StatusOK {
		t.Fatalf("%d %s", res.status, res.body)
	}
	want := `"preschedule":{"load_factor":{"map":0.5,"reduce":0},"nodes":[` +
		`{"node":"TT1","allowable_idle_map":1,"extra_idle_map":2,"idle_reduce":2,"allowable_idle_reduce":0,"extra_idle_reduce":2},` +
		`{"node":"TT2","allowable_idle_map":0,"extra_idle_map":1,"idle_reduce":2,"allowable_idle_reduce":0,"extra_idle_reduce":2},` +
		`{"node":"TT3","allowable_idle_map":2,"extra_idle_map":2,"idle_reduce":2,"allowable_idle_reduce":0,"extra_idle_reduce":2},` +
		`{"node":"TT4","allowable_idle_map":0,"extra_idle_map":2,"idle_reduce":2,"allowable_idle_reduce":0,"extra_idle_reduce":2}],` +
		`"assign":[{"job":"J1","node":"TT2","slot":"map","case":"extra_idle_map"},{"job":"J1","node":"TT4","slot":"map","case":"extra_idle_map"}],` +
		`"reduce_on_map":[]}`
	if !strings.Contains(string(res.body), want) {
		t.Errorf("the answer lacks\n%s\nin\n%s", want, res.body)
	}
	plain := strings.Replace(body, `"preschedule": {"enabled": true},`, "", 1)
	var with, without httpapi.EpochResponse
	res.decode(t, &with)
	res2 := e.post("/v1/clusters/p1-plain/epochs", "", plain)
	if res2.status != http.StatusOK {
		t.Fatalf("plain: %d %s", res2.status, res2.body)
	}
	res2.decode(t, &without)
	if fmt.Sprint(with.Allocations) != fmt.Sprint(without.Allocations) || without.Preschedule != nil {
		t.Errorf("preschedule changed the allocations: %+v against %+v", with.Allocations, without.Allocations)
	}
}

// TestPrescheduleP2P3HTTP: cases P2 and P3 through the server. P2: with
// pi_dhsa, J1's two maps local on a full TT1 go to its idle reduce slots
// (Case 2); with a static split, nowhere. P3: a map task on a reduce slot
// of TT1 makes TT2's idle map slot run J3's pending reduce task.
func TestPrescheduleP2P3HTTP(t *testing.T) {
	e := newEnv(t, nil)
	p2 := func(mode string) string {
		return `{"epoch": 1, "now": 100, "epoch_length": 3, "slots": {"map": 8, "reduce": 4}, "ratio": {"mode": "` + mode + `"},
		"preschedule": {"enabled": true},
		"nodes": [{"id": "TT1", "map_slots": 4, "reduce_slots": 2, "running_map": 4},
			{"id": "TT2", "map_slots": 4, "reduce_slots": 2, "running_map": 4}],
		"jobs": [{"id": "J2", "submitted": 0, "map": {"min": 0, "max": 8, "work": 80, "pending": 0, "running": 8, "tasks": 8}},
			{"id": "J1", "submitted": 1, "map": {"min": 3, "max": 3, "work": 30, "pending": 3, "running": 0, "tasks": 3,
				"local_pending": {"TT1": 2}}}]}`
	}
	for mode, want := range map[string]string{
		"pi_dhsa": `"assign":[{"job":"J1","node":"TT1","slot":"reduce","case":"idle_reduce"},{"job":"J1","node":"TT1","slot":"reduce","case":"idle_reduce"}]`,
		"static":  `"assign":[]`,
	} {
		res := e.post("/v1/clusters/p2-"+mode+"/epochs", "", p2(mode))
		if res.status != http.StatusOK || !strings.Contains(string(res.body), want) {
			t.Errorf("P2 %s: %d, want %s in %s", mode, res.status, want, res.body)
		}
	}
	p3 := `{"epoch": 1, "now": 100, "epoch_length": 3, "slots": {"map": 8, "reduce": 4}, "ratio": {"mode": "pi_dhsa"},
		"preschedule": {"enabled": true},
		"nodes": [{"id": "TT1", "map_slots": 4, "reduce_slots": 2, "running_map": 4, "running_reduce": 1, "map_on_reduce": 1},
			{"id": "TT2", "map_slots": 4, "reduce_slots": 2, "running_map": 3, "running_reduce": 2}],
		"jobs": [{"id": "J2", "submitted": 0, "map": {"min": 0, "max": 8, "work": 80, "pending": 0, "running": 8, "tasks": 8}},
			{"id": "J3", "submitted": 1, "reduce": {"min": 4, "max": 4, "work": 40, "pending": 1, "running": 3, "tasks": 4, "started": true}}]}`
	res := e.post("/v1/clusters/p3/epochs", "", p3)
	if want := `"reduce_on_map":[{"job":"J3","node":"TT2"}]`; res.status != http.StatusOK || !strings.Contains(string(res.body), want) {
		t.Errorf("P3: %d, want %s in %s", res.status, want, res.body)
	}
}
