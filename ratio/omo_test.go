package ratio

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestObserveEMA checks Eq. 4.1 by hand: the first window seeds F_o and
// A_o, later windows blend with alpha.
func TestObserveEMA(t *testing.T) {
	running := func(m, r int, pending bool) []Job {
		j := Job{ID: "j", Map: PhaseDemand{Running: m}, Reduce: PhaseDemand{Running: r}}
		if pending {
			j.Map.Pending = 1
		}
		return []Job{j}
	}
	// Window 1: 10 slots in 2 s -> f = 5; available = 6 map slots (the 3
	// reduce slots of a job still mapping are not available, 4.3.1).
	s1 := Observe(State{}, 0.3, Input{Jobs: running(6, 3, true), ReleasedSlots: 10, EpochLength: 2})
	if d := cmp.Diff(State{ReleaseRate: 5, AvailableSlots: 6, Windows: 1}, s1); d != "" {
		t.Errorf("seed (-want +got):\n%s", d)
	}
	// Window 2: 4 slots in 2 s -> f = 2, F_o = 0.3*2 + 0.7*5 = 4.1. Job j
	// still maps on 2 slots and holds 3 reduce slots (not available); job k
	// finished mapping, so its 3 reduce slots count: a = 2+3 = 5, A_o =
	// 0.3*5 + 0.7*6 = 5.7.
	jobs := append(running(2, 3, true), Job{ID: "k", Map: PhaseDemand{Tasks: 4}, Reduce: PhaseDemand{Running: 3}})
	s2 := Observe(s1, 0.3, Input{Jobs: jobs, ReleasedSlots: 4, EpochLength: 2})
	if math.Abs(s2.ReleaseRate-4.1) > 1e-12 || math.Abs(s2.AvailableSlots-5.7) > 1e-12 || s2.Windows != 2 {
		t.Errorf("second window = %+v, want F_o 4.1, A_o 5.7, 2 windows", s2)
	}
	// No window: unchanged.
	if s3 := Observe(s2, 0.3, Input{ReleasedSlots: 4}); s3 != s2 {
		t.Errorf("epoch length 0 changed the state: %+v", s3)
	}
}

// TestLazyStartGap checks Eq. 4.3 and the corrected start rule around
// alpha = 0. Job: 80 map tasks of 40 s, 4 reduce tasks, d = 1e9 bytes per
// map task, B = 125e6 B/s -> T_s = 1e9*80/(125e6*4) = 160 s. F_o = 0.25
// slots/s, A_o = 20, K = 1: alpha(x) = 160 - (x*20/(0.25*16) + 40) = 120 -
// 5x, which reaches 0 at x = 24.
func TestLazyStartGap(t *testing.T) {
	s := State{ReleaseRate: 0.25, AvailableSlots: 20, Windows: 3}
	job := func(pending, running int) Job {
		return Job{ID: "j", Map: PhaseDemand{Tasks: 80, Pending: pending, Running: running, AvgTaskTime: 40, Work: float64(40 * (pending + running))},
			Reduce: PhaseDemand{Tasks: 4, Pending: 4}, OutputBytesPerMapTask: 1e9}
	}
	cases := map[string]struct {
		pending, running int
		alpha            float64
		start            bool
	}{
		"25 pending: shuffle would end 5 s early": {25, 10, -5, false},
		"24 pending: exactly aligned":             {24, 10, 0, true},
		"23 pending: already late":                {23, 10, 5, true},
		// No pending task: the map phase ends after one task time, 160-40.
		"none pending, tasks running": {0, 10, 120, true},
	}
	cfg := Config{Mode: ModeFresh, OMO: OMOConfig{LazyStart: true, Bandwidth: 125e6}}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			j := job(c.pending, c.running)
			if got := LazyStartGap(j, s, 1, 125e6); math.Abs(got-c.alpha) > 1e-9 {
				t.Errorf("alpha = %v, want %v", got, c.alpha)
			}
			// Budgets with a zero-length epoch keeps s as the averages.
			res, _ := Budgets(cfg, Input{Cluster: Cluster{MapSlots: 10, ReduceSlots: 10}, Jobs: []Job{j}}, s)
			started := len(res.OMO.StartReduce) == 1
			if started != c.start {
				t.Errorf("started = %v, want %v\n%s", started, c.start, res)
			}
			held := len(res.Overrides) == 1 && res.Overrides[0].HoldReduce
			if held == c.start {
				t.Errorf("overrides %+v: a job not started must have its reduce demand held", res.Overrides)
			}
			if !c.start && res.Reduce != 0 {
				// FRESH with the only reduce demand held: RW_r = 0 -> all
				// slots map.
				t.Errorf("held job still got a reduce budget of %d", res.Reduce)
			}
		})
	}
}

// TestPrintedArgminNeverSelects shows why docs/algorithms.md corrects Alg.
// 4.3.1: alpha falls strictly as x grows, so the printed test "no x in
// (m'_i, m_i] has a smaller alpha" fails for every m'_i < m_i.
func TestPrintedArgminNeverSelects(t *testing.T) {
	s := State{ReleaseRate: 0.25, AvailableSlots: 20, Windows: 1}
	base := Job{Map: PhaseDemand{Tasks: 80, AvgTaskTime: 40}, Reduce: PhaseDemand{Tasks: 4, Pending: 4}, OutputBytesPerMapTask: 1e9}
	for mp := 1; mp < 80; mp++ {
		at := func(x int) float64 { j := base; j.Map.Pending = x; return LazyStartGap(j, s, 1, 125e6) }
		if !(at(mp+1) < at(mp)) {
			t.Fatalf("alpha(%d) = %v is not below alpha(%d) = %v", mp+1, at(mp+1), mp, at(mp))
		}
	}
}

// TestLazyStartOrder checks Alg. 4.3.1 line 25's order among several
// candidates: fewest occupied slots, then earlier submission, then id; and
// that jobs already started or with no reduce tasks are not candidates.
func TestLazyStartOrder(t *testing.T) {
	done := func(id string, sub float64, occupied int) Job {
		// Map phase over: always a candidate.
		return Job{ID: id, Submitted: sub, Map: PhaseDemand{Tasks: 5}, Reduce: PhaseDemand{Tasks: 2, Pending: 2},
			OutputBytesPerMapTask: 1}
	}
	jobs := []Job{
		done("z", 5, 0), done("b", 1, 0), done("a", 1, 0),
		{ID: "started", Map: PhaseDemand{Tasks: 5, Running: 3}, Reduce: PhaseDemand{Tasks: 2, Running: 2}, ReduceStarted: true},
		{ID: "no-reduce", Map: PhaseDemand{Tasks: 5, Running: 3}},
	}
	// "busy" holds 3 running map tasks, finished with its pending ones, T_s
	// huge: a candidate with more occupied slots.
	jobs = append(jobs, Job{ID: "busy", Map: PhaseDemand{Tasks: 5, Running: 3, AvgTaskTime: 1}, Reduce: PhaseDemand{Tasks: 1, Pending: 1}, OutputBytesPerMapTask: 1e12})
	cfg := Config{Mode: ModePIDHSA, BorrowMap: 1, BorrowReduce: 1, OMO: OMOConfig{LazyStart: true, Bandwidth: 1}}
	res, _ := Budgets(cfg, Input{Cluster: Cluster{MapSlots: 4, ReduceSlots: 4}, Jobs: jobs}, State{ReleaseRate: 1, AvailableSlots: 8, Windows: 1})
	if d := cmp.Diff([]string{"a", "b", "z", "busy"}, res.OMO.StartReduce); d != "" {
		t.Errorf("start order (-want +got):\n%s", d)
	}
}

// TestBatchFinish checks Eq. 4.4-4.5 and Alg. 4.3.2-4.3.3 by hand.
// Job x: 4 pending map tasks of 10 s, 2 reduce tasks, reduce started. With
// K = 2, F_o = 2, A_o = 10: t_fair = 2*4/2 + 10 = 14; s = 2*1/2*14 = 14;
// t_batch = 14*10/(2*12) = 5.8333; gain 8.1667.
// Job y: 1 pending map task of 10 s, 8 reduce tasks: t_fair = 2*1/2 + 10 =
// 11; s = 11; t_batch = 11*10/(2*18) = 3.0556; gain 7.9444 < x's.
func TestBatchFinish(t *testing.T) {
	s := State{ReleaseRate: 2, AvailableSlots: 10, Windows: 4}
	x := Job{ID: "x", Submitted: 2, Map: PhaseDemand{Tasks: 20, Pending: 4, Running: 2, AvgTaskTime: 10},
		Reduce: PhaseDemand{Tasks: 2, Running: 2}, ReduceStarted: true}
	y := Job{ID: "y", Submitted: 1, Map: PhaseDemand{Tasks: 20, Pending: 1, Running: 2, AvgTaskTime: 10},
		Reduce: PhaseDemand{Tasks: 8, Running: 8}, ReduceStarted: true}
	if g := BatchGain(x, s, 2); math.Abs(g-(14-140.0/24)) > 1e-12 {
		t.Errorf("gain(x) = %v, want %v", g, 14-140.0/24)
	}
	if g := BatchGain(y, s, 2); math.Abs(g-(11-110.0/36)) > 1e-12 {
		t.Errorf("gain(y) = %v, want %v", g, 11-110.0/36)
	}
	// A lone job always batches: s = 0 so t_batch = 0 < t_fair = 4/2+10.
	if g := BatchGain(x, s, 1); g != 12 {
		t.Errorf("gain alone = %v, want 12", g)
	}
	cfg := Config{Mode: ModeFresh, OMO: OMOConfig{BatchFinish: true}}
	cl := Cluster{MapSlots: 2, ReduceSlots: 10}
	res, _ := Budgets(cfg, Input{Cluster: cl, Jobs: []Job{y, x}}, s)
	if res.OMO.BatchFinish != "x" {
		t.Fatalf("batch finish = %q, want x\n%s", res.OMO.BatchFinish, res)
	}
	// No job reports remaining work, so FRESH keeps the configured split
	// (map 2); x's map minimum is its 4 pending tasks capped at that budget.
	if res.Map != 2 {
		t.Fatalf("map budget %d, want the configured 2", res.Map)
	}
	want := []Override{{ID: "x", MapMin: 2}}
	if d := cmp.Diff(want, res.Overrides); d != "" {
		t.Errorf("overrides (-want +got):\n%s", d)
	}
	// With room in the budget the minimum is x's whole map demand: its 4
	// pending tasks get slots while its 2 running ones keep theirs (Alg.
	// 4.3.3), not just 4 slots for 6 tasks.
	res, _ = Budgets(cfg, Input{Cluster: Cluster{MapSlots: 10, ReduceSlots: 2}, Jobs: []Job{y, x}}, s)
	if d := cmp.Diff([]Override{{ID: "x", MapMin: 6}}, res.Overrides); d != "" {
		t.Errorf("overrides with a map budget of %d (-want +got):\n%s", res.Map, d)
	}

	// Lazy start wins (Alg. 4.3.3): a job whose reduce phase starts this
	// epoch is not a batch candidate, even with the larger gain. Here x has
	// not started; its map phase ends soon and its shuffle is long, so lazy
	// start starts it, and batch finish must fall back to y.
	xl := x
	xl.ReduceStarted = false
	xl.Reduce = PhaseDemand{Tasks: 2, Pending: 2}
	xl.OutputBytesPerMapTask = 1e6
	cfg.OMO = OMOConfig{LazyStart: true, BatchFinish: true, Bandwidth: 1}
	res, _ = Budgets(cfg, Input{Cluster: cl, Jobs: []Job{y, xl}}, s)
	if d := cmp.Diff([]string{"x"}, res.OMO.StartReduce); d != "" {
		t.Fatalf("start reduce (-want +got):\n%s\n%s", d, res)
	}
	if res.OMO.BatchFinish != "y" {
		t.Errorf("batch finish = %q, want y (x is starting its reduce phase)\n%s", res.OMO.BatchFinish, res)
	}
}

// waveMakespan simulates OMO's example of Figures 4.5-4.6: one job on S
// fungible slots, unit-time map tasks run in waves on the slots its reduce
// task does not hold; its one reduce task takes a slot from time
// reduceStart, shuffles for ts, cannot finish shuffling before the last map
// task, then computes for one time unit.
func waveMakespan(maps, slots, reduceStart int, ts float64) float64 {
	pending, t := maps, 0
	for pending > 0 {
		free := slots
		if t >= reduceStart {
			free--
		}
		pending -= min(free, pending)
		t++
	}
	return math.Max(float64(t), float64(reduceStart)+ts) + 1
}

// TestOMOWaves reproduces Figures 4.5 and 4.6 (12 map tasks finish in 4
// waves and the job in 5 time units; a 13th map task costs a whole extra
// round, 6 units) and then lets Budgets drive the reduce start of the
// 13-task job epoch by epoch.
func TestOMOWaves(t *testing.T) {
	// Four slots, the reduce task holding one from the start: 3 map tasks
	// per wave, shuffle short enough to hide behind the map phase.
	if got := waveMakespan(12, 4, 0, 1); got != 5 {
		t.Errorf("12 map tasks: makespan %v, want 5 (Fig. 4.5)", got)
	}
	if got := waveMakespan(13, 4, 0, 1); got != 6 {
		t.Errorf("13 map tasks: makespan %v, want 6 (Fig. 4.6)", got)
	}

	// OMO-driven run of the 13-task job with T_s = d*m/(B*r) = 1.5*13/13
	// = 1.5. Epochs at t = w + 0.5, mid-wave, a decision taking effect at
	// the next release (t = w+1). Hand trace:
	//   t=0.5: 9 pending, 4 running, no window yet, F_o = 0 -> hold.
	//   t=1.5: 5 pending, 4 running, 4 released in 1 -> F_o = 4, A_o = 4
	//          (seed); alpha(5) = 1.5 - (5*4/(4*3) + 1) = -1.17 -> hold.
	//   t=2.5: 1 pending, 4 running; F_o = 4, A_o = 4; alpha(1) = 1.5 -
	//          (4/12 + 1) = 0.17 >= 0 -> start at t = 3.
	// Waves: 4, 4, 4, then 1 map task beside the reduce task: maps end at
	// 4, the shuffle at 3 + 1.5 = 4.5, the job at 5.5, against 6 when the
	// reduce task holds its slot from the start.
	cfg := Config{Mode: ModeFresh, OMO: OMOConfig{LazyStart: true, Bandwidth: 13}}
	var st State
	pending, start := 13, -1
	released := 0
	for w := 0; pending > 0 && start < 0; w++ {
		free := 4
		running := min(free, pending)
		pending -= running
		length := 1.0
		if w == 0 {
			length = 0
		}
		j := Job{ID: "j", Map: PhaseDemand{Tasks: 13, Pending: pending, Running: running, AvgTaskTime: 1},
			Reduce: PhaseDemand{Tasks: 1, Pending: 1}, OutputBytesPerMapTask: 1.5}
		var res Result
		res, st = Budgets(cfg, Input{Cluster: Cluster{MapSlots: 2, ReduceSlots: 2}, Jobs: []Job{j},
			ReleasedSlots: released, EpochLength: length}, st)
		released = running
		if len(res.OMO.StartReduce) > 0 {
			start = w + 1
		}
	}
	if start != 3 {
		t.Fatalf("reduce started at t=%d, want 3", start)
	}
	if got, naive := waveMakespan(13, 4, start, 1.5), waveMakespan(13, 4, 0, 1.5); got != 5.5 || naive != 6 {
		t.Errorf("makespan with lazy start %v (want 5.5), from the start %v (want 6)", got, naive)
	}
}

// TestObserveSubnormalWindow: an epoch length so small that released slots
// over it overflow to infinity leaves the averages as they were (issue 16:
// it used to reach the JSON encoder as +Inf, a 500).
func TestObserveSubnormalWindow(t *testing.T) {
	prev := State{ReleaseRate: 3, AvailableSlots: 7, Windows: 2}
	got := Observe(prev, 0.3, Input{EpochLength: 1e-309, ReleasedSlots: 5})
	if got != prev {
		t.Errorf("state %+v, want %+v unchanged", got, prev)
	}
}
