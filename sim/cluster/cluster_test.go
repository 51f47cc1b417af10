package cluster

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestRun(t *testing.T) {
	cases := map[string]struct {
		cfg  Config
		jobs []Job
		want []Outcome
	}{
		"fifo runs the first job alone": {
			Config{MapSlots: 10, ReduceSlots: 10, Epoch: 100, Policy: "fifo"},
			[]Job{{ID: "a", MapWork: 100, MapTasks: 10}, {ID: "b", MapWork: 50, MapTasks: 10}},
			[]Outcome{
				{ID: "a", MapDone: 10, Completion: 10, Response: 10, Stretch: 1},
				{ID: "b", MapDone: 15, Completion: 15, Response: 15, Stretch: 3},
			},
		},
		"flex runs the short job first": {
			Config{MapSlots: 10, ReduceSlots: 10, Epoch: 100, Policy: "flex"},
			[]Job{{ID: "a", MapWork: 100, MapTasks: 10}, {ID: "b", MapWork: 50, MapTasks: 10}},
			[]Outcome{
				{ID: "a", MapDone: 15, Completion: 15, Response: 15, Stretch: 1.5},
				{ID: "b", MapDone: 5, Completion: 5, Response: 5, Stretch: 1},
			},
		},
		"reduce waits for the maps and its task bound": {
			Config{MapSlots: 10, ReduceSlots: 10, Epoch: 100, Policy: "fifo"},
			[]Job{{ID: "a", MapWork: 10, MapTasks: 10, ReduceWork: 20, ReduceTasks: 2}},
			[]Outcome{{ID: "a", MapDone: 1, Completion: 11, Response: 11, Stretch: 1}},
		},
		"an arrival waits for the next epoch": {
			Config{MapSlots: 4, ReduceSlots: 1, Epoch: 10, Policy: "fifo"},
			[]Job{{ID: "a", Arrival: 5, MapWork: 8, MapTasks: 4}},
			[]Outcome{{ID: "a", Arrival: 5, MapDone: 12, Completion: 12, Response: 7, Stretch: 3.5}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			rep, err := Run(c.cfg, c.jobs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, rep.Jobs, cmpopts.EquateApprox(1e-9, 1e-9)); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunRejects(t *testing.T) {
	cases := map[string]struct {
		cfg  Config
		jobs []Job
	}{
		"unknown policy": {Config{MapSlots: 1, ReduceSlots: 1, Policy: "lifo"}, nil},
		"no slots":       {Config{MapSlots: 0, ReduceSlots: 1}, nil},
		"no map work":    {Config{MapSlots: 1, ReduceSlots: 1}, []Job{{ID: "a", MapTasks: 1}}},
		"reduce no task": {Config{MapSlots: 1, ReduceSlots: 1}, []Job{{ID: "a", MapWork: 1, MapTasks: 1, ReduceWork: 1}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Run(c.cfg, c.jobs); err == nil {
				t.Error("no error")
			}
		})
	}
}
