package cluster

import (
	"math"
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
		// Shuffle 40 slot-seconds (40 bytes at 1 byte/s) on 2 reduce slots:
		// with slowstart 0 it keeps pace with the maps (10 s at 4 slots
		// produce the output at 4 slot-s/s, the reduce takes it at 2), so it
		// ends at 20 s, then 2 s of computing.
		"an early shuffle overlaps the maps": {
			Config{MapSlots: 4, ReduceSlots: 2, Epoch: 100, Policy: "fifo", Bandwidth: 1},
			[]Job{{ID: "a", MapWork: 40, MapTasks: 4, ShuffleBytes: 40, ReduceWork: 4, ReduceTasks: 2}},
			[]Outcome{{ID: "a", MapDone: 10, Completion: 22, Response: 22, Stretch: 22.0 / 32}},
		},
		"slowstart 1 shuffles after the maps": {
			Config{MapSlots: 4, ReduceSlots: 2, Epoch: 100, Policy: "fifo", Bandwidth: 1, SlowStart: 1},
			[]Job{{ID: "a", MapWork: 40, MapTasks: 4, ShuffleBytes: 40, ReduceWork: 4, ReduceTasks: 2}},
			[]Outcome{{ID: "a", MapDone: 10, Completion: 32, Response: 32, Stretch: 32.0 / 32}},
		},
		// Slow maps (1 slot): the reduce catches up with them and idles;
		// it cannot finish before the map phase does.
		"a reduce cannot outrun its maps": {
			Config{MapSlots: 1, ReduceSlots: 2, Epoch: 100, Policy: "fifo", Bandwidth: 1},
			[]Job{{ID: "a", MapWork: 10, MapTasks: 1, ShuffleBytes: 2, ReduceWork: 2, ReduceTasks: 2}},
			[]Outcome{{ID: "a", MapDone: 10, Completion: 11, Response: 11, Stretch: 11.0 / 12}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			rep, err := Run(c.cfg, c.jobs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, rep.Jobs, cmpopts.EquateApprox(1e-9, 1e-9),
				cmpopts.IgnoreFields(Outcome{}, "SlotSeconds", "Rate")); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunAccounts(t *testing.T) {
	// One job alone: its slots are held the whole time, so its rate is the
	// slots it held, and Jain's index over one job is 1. The reduce slots
	// idle while the maps (1 slot) produce output slower than 2 slots take it.
	rep, err := Run(Config{MapSlots: 1, ReduceSlots: 2, Epoch: 100, Policy: "fifo", Bandwidth: 1},
		[]Job{{ID: "a", MapWork: 10, MapTasks: 1, ShuffleBytes: 2, ReduceWork: 2, ReduceTasks: 2, HasDeadline: true, Deadline: 5}})
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Jobs[0]
	if o.SlotSeconds != 10*1+11*2 || rep.Fairness != 1 || rep.IdleReduceSlotSeconds < 17.9 || rep.IdleReduceSlotSeconds > 18.1 {
		t.Errorf("slot-seconds %g (want 32), fairness %g (want 1), idle reduce %g (want 18)", o.SlotSeconds, rep.Fairness, rep.IdleReduceSlotSeconds)
	}
	if !rep.Deadlines || rep.TardyJobs != 1 || rep.TotalTardiness != 6 {
		t.Errorf("deadlines %v, tardy %d, tardiness %g: want true, 1, 6", rep.Deadlines, rep.TardyJobs, rep.TotalTardiness)
	}
}

func TestRunRejects(t *testing.T) {
	ok := []Job{{ID: "a", MapWork: 1, MapTasks: 1}}
	cases := map[string]struct {
		cfg  Config
		jobs []Job
	}{
		"unknown policy":               {Config{MapSlots: 1, ReduceSlots: 1, Policy: "lifo"}, nil},
		"no slots":                     {Config{MapSlots: 0, ReduceSlots: 1}, nil},
		"no map work":                  {Config{MapSlots: 1, ReduceSlots: 1}, []Job{{ID: "a", MapTasks: 1}}},
		"reduce no task":               {Config{MapSlots: 1, ReduceSlots: 1}, []Job{{ID: "a", MapWork: 1, MapTasks: 1, ReduceWork: 1}}},
		"slowstart above 1":            {Config{MapSlots: 1, ReduceSlots: 1, SlowStart: 1.5}, ok},
		"omo on a static split":        {Config{MapSlots: 1, ReduceSlots: 1, OMO: OMOConfig{BatchFinish: true}}, ok},
		"lazy start without bandwidth": {Config{MapSlots: 1, ReduceSlots: 1, Ratio: "fresh", OMO: OMOConfig{LazyStart: true}}, ok},
		"borrowing above 1":            {Config{MapSlots: 1, ReduceSlots: 1, Ratio: "pd_dhsa", BorrowReduce: ptr(1.5)}, ok},
		"negative borrowing":           {Config{MapSlots: 1, ReduceSlots: 1, Ratio: "pi_dhsa", BorrowMap: ptr(-0.1)}, ok},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Run(c.cfg, c.jobs); err == nil {
				t.Error("no error")
			}
		})
	}
}

func ptr(x float64) *float64 { return &x }

// TestPoolStaticSplits: a map-only job of 8 tasks on 2 map and 6 reduce
// slots borrows the idle reduce slots under pd_dhsa (all 8 run: 10 s) but
// not with borrowing off (2 at a time: 40 s), which is what
// PoolStaticSplits runs for every split.
func TestPoolStaticSplits(t *testing.T) {
	jobs := []Job{{ID: "a", MapWork: 80, MapTasks: 8}}
	base := Config{MapSlots: 2, ReduceSlots: 6, Epoch: 100, Policy: "fifo", Ratio: "pd_dhsa"}
	if got := runOne(t, base, jobs).Makespan; got != 10 {
		t.Errorf("pd_dhsa makespan %v, want 10: the map phase borrows the 6 idle reduce slots", got)
	}
	vs := PoolStaticSplits(base, 2, "pool ")
	var labels []string
	for _, v := range vs {
		labels = append(labels, v.Label)
	}
	if d := cmp.Diff([]string{"pool 2/6", "pool 4/4", "pool 6/2"}, labels); d != "" {
		t.Fatalf("labels (-want +got):\n%s", d)
	}
	if got := runOne(t, vs[0].Config, jobs).Makespan; got != 40 {
		t.Errorf("%s makespan %v, want 40: with borrowing off the map phase keeps its 2 slots", vs[0].Label, got)
	}
	if got := runOne(t, vs[2].Config, jobs).Makespan; math.Abs(got-80.0/6) > 1e-9 {
		t.Errorf("%s makespan %v, want %v", vs[2].Label, got, 80.0/6)
	}
}

func TestRunAllIsDeterministic(t *testing.T) {
	jobs, err := GenerateMixed(Mixed{Jobs: 8, MapHeavy: 0.5, Lambda: 5, Pools: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var vs []Variant
	for _, mode := range []string{"static", "pi_dhsa", "pd_dhsa", "fresh"} {
		vs = append(vs, Variant{Label: mode, Config: Config{MapSlots: 10, ReduceSlots: 10, Ratio: mode, Bandwidth: 64 << 20, SlowStart: 0.05}})
	}
	vs = append(vs, Variant{Label: "omo", Config: Config{MapSlots: 10, ReduceSlots: 10, Ratio: "fresh", Bandwidth: 64 << 20,
		OMO: OMOConfig{LazyStart: true, BatchFinish: true}}})
	one, err := RunAll(vs, jobs, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	two, err := RunAll(vs, jobs, 2, func(int, int) {})
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		one[i].Variant.Config.Progress, two[i].Variant.Config.Progress = nil, nil
	}
	if diff := cmp.Diff(one, two); diff != "" {
		t.Errorf("1 worker vs 2 workers (-one +two):\n%s", diff)
	}
}
