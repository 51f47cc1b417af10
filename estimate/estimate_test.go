package estimate_test

import (
	"math"
	"testing"

	"github.com/flexd/flexd/estimate"
)

// The cases of the specification's section 7.4 (FLEX 4.2) that concern one
// phase; F4, F5 and F7 need a whole epoch and are in package epoch.
func TestExtrapolateWork(t *testing.T) {
	def := estimate.Prior{Default: estimate.DefaultTaskTime}
	cluster := estimate.Prior{Default: estimate.DefaultTaskTime}
	// F2's other jobs: A with 20 completed at 40 s, B with 10 at 70 s.
	cluster.Cluster, cluster.HasCluster = estimate.ClusterPrior([]estimate.PhaseStats{
		{Tasks: 30, Pending: 5, Running: 5, AvgTaskTime: 40},
		{Tasks: 15, Pending: 5, AvgTaskTime: 70},
		{Tasks: 9, Pending: 9, AvgTaskTime: 1000}, // a seed without completed tasks counts for nothing
	})
	for _, c := range []struct {
		name  string
		p     estimate.PhaseStats
		prior estimate.Prior
		mode  estimate.Mode
		min   estimate.MinOne
		want  estimate.Work
	}{
		{"F1 measured", estimate.PhaseStats{Tasks: 80, Pending: 50, Running: 10, AvgTaskTime: 40}, def, estimate.Extrapolate, estimate.NoSample,
			estimate.Work{Work: 2400, TotalWork: 3200, TaskTime: 40, Source: estimate.Extrapolated, TasksLeft: 60}},
		{"F2 cluster prior", estimate.PhaseStats{Tasks: 80, Pending: 70, Running: 10}, cluster, estimate.Extrapolate, estimate.NoSample,
			estimate.Work{Work: 4000, TotalWork: 4000, TaskTime: 50, Source: estimate.PriorCluster, TasksLeft: 80, MinRaised: true}},
		{"F3 default prior", estimate.PhaseStats{Tasks: 80, Pending: 70, Running: 10}, def, estimate.Extrapolate, estimate.NoSample,
			estimate.Work{Work: 4800, TotalWork: 4800, TaskTime: 60, Source: estimate.Default, TasksLeft: 80, MinRaised: true}},
		{"job seed", estimate.PhaseStats{Tasks: 10, Pending: 10, AvgTaskTime: 7}, cluster, estimate.Extrapolate, estimate.NoSample,
			estimate.Work{Work: 70, TotalWork: 70, TaskTime: 7, Source: estimate.PriorJob, TasksLeft: 10, MinRaised: true}},
		{"min_one always", estimate.PhaseStats{Tasks: 80, Pending: 50, Running: 10, AvgTaskTime: 40}, def, estimate.Extrapolate, estimate.Always,
			estimate.Work{Work: 2400, TotalWork: 3200, TaskTime: 40, Source: estimate.Extrapolated, TasksLeft: 60, MinRaised: true}},
		{"min_one never", estimate.PhaseStats{Tasks: 80, Pending: 70, Running: 10}, def, estimate.Extrapolate, estimate.Never,
			estimate.Work{Work: 4800, TotalWork: 4800, TaskTime: 60, Source: estimate.Default, TasksLeft: 80}},
		// runnable: a reduce phase whose maps are not done is not raised
		// (no reduce task completes before them); once they are, it is.
		{"runnable, maps left", estimate.PhaseStats{Tasks: 5, Pending: 5, Blocked: true}, def, estimate.Extrapolate, estimate.Runnable,
			estimate.Work{Work: 300, TotalWork: 300, TaskTime: 60, Source: estimate.Default, TasksLeft: 5}},
		{"runnable, maps done", estimate.PhaseStats{Tasks: 5, Pending: 5}, def, estimate.Extrapolate, estimate.Runnable,
			estimate.Work{Work: 300, TotalWork: 300, TaskTime: 60, Source: estimate.Default, TasksLeft: 5, MinRaised: true}},
		{"no_sample ignores Blocked", estimate.PhaseStats{Tasks: 5, Pending: 5, Blocked: true}, def, estimate.Extrapolate, estimate.NoSample,
			estimate.Work{Work: 300, TotalWork: 300, TaskTime: 60, Source: estimate.Default, TasksLeft: 5, MinRaised: true}},
		{"tasks unknown", estimate.PhaseStats{Pending: 3, Running: 1, AvgTaskTime: 5}, def, estimate.Extrapolate, estimate.NoSample,
			estimate.Work{Work: 20, TotalWork: 20, TaskTime: 5, Source: estimate.PriorJob, TasksLeft: 4, MinRaised: true}},
		// 10 running tasks that have run 250 s in all at 40 s each: 400 -
		// 250 = 150 s left, plus 50 pending at 40 s.
		{"elapsed", estimate.PhaseStats{Tasks: 80, Pending: 50, Running: 10, AvgTaskTime: 40, RunningElapsed: 250}, def, estimate.ExtrapolateElapsed, estimate.NoSample,
			estimate.Work{Work: 2150, TotalWork: 3200, TaskTime: 40, Source: estimate.Extrapolated, TasksLeft: 60}},
		// Running tasks past the mean count the floor: 10% of a task each.
		{"elapsed floor", estimate.PhaseStats{Tasks: 80, Pending: 50, Running: 10, AvgTaskTime: 40, RunningElapsed: 900}, def, estimate.ExtrapolateElapsed, estimate.NoSample,
			estimate.Work{Work: 2040, TotalWork: 3200, TaskTime: 40, Source: estimate.Extrapolated, TasksLeft: 60}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := estimate.ExtrapolateWork(c.p, c.prior, c.mode, c.min)
			if !ok {
				t.Fatal("no estimate")
			}
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
	if cluster.Cluster != 50 {
		t.Errorf("cluster prior %v, want (20*40 + 10*70) / 30 = 50", cluster.Cluster)
	}
}

// TestNothingLeft: F5, a phase with no task pending or running is not
// estimated (the job takes no part in it).
func TestNothingLeft(t *testing.T) {
	if w, ok := estimate.ExtrapolateWork(estimate.PhaseStats{Tasks: 10, AvgTaskTime: 4}, estimate.Prior{Default: 60}, estimate.Extrapolate, estimate.NoSample); ok {
		t.Errorf("estimated %+v for a finished phase", w)
	}
}

func TestClusterPriorWithoutSamples(t *testing.T) {
	if v, ok := estimate.ClusterPrior([]estimate.PhaseStats{{Tasks: 5, Pending: 5, AvgTaskTime: 3}}); ok || v != 0 {
		t.Errorf("prior %v, %v from phases without completed tasks", v, ok)
	}
}

// FuzzExtrapolateWork: for statistics a shim may send (counts >= 0, times
// finite and >= 0), an estimate is finite, positive and never below the
// pending tasks' share, whatever the mode.
func FuzzExtrapolateWork(f *testing.F) {
	f.Add(80, 50, 10, 40.0, 250.0, 60.0, true)
	f.Add(0, 1, 0, 0.0, 0.0, 1e-300, false)
	f.Fuzz(func(t *testing.T, tasks, pending, running int, avg, elapsed, def float64, elapsedMode bool) {
		if tasks < 0 || pending < 0 || running < 0 || pending > 1<<30 || running > 1<<30 || tasks > 1<<31 {
			return
		}
		for _, x := range []float64{avg, elapsed, def} {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > 1e12 {
				return
			}
		}
		if def == 0 {
			return
		}
		mode := estimate.Extrapolate
		if elapsedMode {
			mode = estimate.ExtrapolateElapsed
		}
		p := estimate.PhaseStats{Tasks: tasks, Pending: pending, Running: running, AvgTaskTime: avg, RunningElapsed: elapsed}
		w, ok := estimate.ExtrapolateWork(p, estimate.Prior{Default: def}, mode, estimate.NoSample)
		if ok != (pending+running > 0) {
			t.Fatalf("ok %v with %d tasks left", ok, pending+running)
		}
		if !ok {
			return
		}
		if math.IsNaN(w.Work) || math.IsInf(w.Work, 0) || w.Work < w.TaskTime*float64(pending) || w.Work > w.TaskTime*float64(pending+running)*(1+1e-12) {
			t.Fatalf("work %v out of [%v, %v]", w.Work, w.TaskTime*float64(pending), w.TaskTime*float64(pending+running))
		}
	})
}
