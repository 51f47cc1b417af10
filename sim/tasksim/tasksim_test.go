package tasksim_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/sim/epochlog"
	"github.com/flexd/flexd/sim/tasksim"
)

// small is a two-node cluster with two jobs; node b is down from 20 s to
// 60 s, and job 1's map 3 straggles (5 times slower).
func small(detector string) tasksim.Config {
	p := tasksim.Profile{Name: "p", MapTime: 10, ReduceTime: 8,
		M1: map[string]float64{"x": 0.7}, R: map[string][3]float64{"x": {0.3, 0.1, 0.6}}}
	cfg := tasksim.Config{
		Nodes: []tasksim.Node{
			{ID: "a", Type: "x", MapSlots: 3, ReduceSlots: 1},
			{ID: "b", Type: "x", MapSlots: 3, ReduceSlots: 1, Down: []tasksim.Window{{From: 20, To: 60}}},
		},
		Jobs: []tasksim.Job{
			{ID: "j1", Profile: p, Maps: 12, Reduces: 2,
				Straggle: []tasksim.Straggle{{Phase: "map", Index: 3, Stage: tasksim.AllStages, Factor: 5}}},
			{ID: "j2", Profile: p, Maps: 6, Reduces: 1, Arrival: 5},
		},
		Seed: 1, TaskCV: 0.1, Log: true, Timeline: true,
	}
	if detector != "" {
		cfg.Speculation = &httpapi.SpeculationConfig{Detector: detector}
	}
	return cfg
}

// TestRunMechanics: every job completes after it arrives; every task has
// exactly one attempt that won; no two attempts share a slot at once; the
// outage kills what ran on the node and nothing runs there while it is
// down; backups are either won or killed.
func TestRunMechanics(t *testing.T) {
	for _, det := range []string{"", "yarn_default", "esamr", "esplash"} {
		cfg := small(det)
		if det == "esplash" {
			cfg.Nodes[0].Level, cfg.Nodes[1].Level = 1, 2
			cfg.Nodes[0].ReportLevel, cfg.Nodes[1].ReportLevel = true, true
		}
		rep, err := tasksim.Run(cfg)
		if err != nil {
			t.Fatalf("%s: %v", det, err)
		}
		for _, j := range rep.Jobs {
			if !(j.Completion > j.Arrival) {
				t.Errorf("%s: job %s arrived %v, completed %v", det, j.ID, j.Arrival, j.Completion)
			}
		}
		won := 0
		type lane struct{ node, lane int }
		busy := map[lane][][2]float64{}
		for _, s := range rep.Attempts {
			if s.Won {
				won++
			}
			if s.Node == 1 && s.End > 20 && s.Start < 60 && !(s.End <= 20+1e-9) {
				t.Errorf("%s: an attempt on node b ran during its outage: %+v", det, s)
			}
			k := lane{s.Node, s.Lane}
			for _, iv := range busy[k] {
				if s.Start < iv[1]-1e-9 && iv[0] < s.End-1e-9 {
					t.Errorf("%s: two attempts in one slot at once: %+v and %v", det, s, iv)
				}
			}
			busy[k] = append(busy[k], [2]float64{s.Start, s.End})
		}
		if won != 12+2+6+1 {
			t.Errorf("%s: %d attempts won, want one per task (21)", det, won)
		}
		sp := rep.Speculation
		if sp.Created != sp.Succeeded+sp.Killed {
			t.Errorf("%s: %d backups created, %d succeeded, %d killed", det, sp.Created, sp.Succeeded, sp.Killed)
		}
	}
}

// TestDeterministic: a run is a function of its configuration.
func TestDeterministic(t *testing.T) {
	a, err := tasksim.Run(small("esamr"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tasksim.Run(small("esamr"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs of one configuration differ")
	}
}

// TestLogReplays: the requests the simulated shim sent are an epoch log
// flexd replay reads: valid requests, consecutive epochs, the task-level
// extension included.
func TestLogReplays(t *testing.T) {
	rep, err := tasksim.Run(small("esamr"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range rep.Requests {
		if err := enc.Encode(&rep.Requests[i]); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := epochlog.Read(&buf)
	if err != nil {
		t.Fatalf("the log does not read back: %v", err)
	}
	if len(entries) != rep.Decisions || len(entries) == 0 {
		t.Fatalf("%d entries for %d decisions", len(entries), rep.Decisions)
	}
	tasks := 0
	for _, e := range entries {
		tasks += len(e.Request.Tasks)
	}
	if tasks == 0 {
		t.Error("no task attempt in the whole log")
	}
}
