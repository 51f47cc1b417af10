package ratio

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchJobs builds n jobs in 10 pools with a seeded generator, half in
// their map phase and half reducing.
func benchJobs(n int) []Job {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	jobs := make([]Job, n)
	for i := range jobs {
		mt := 1 + rng.IntN(200)
		done := rng.IntN(mt + 1)
		run := min(mt-done, rng.IntN(20))
		j := Job{
			ID: fmt.Sprintf("job_%d", i), Pool: fmt.Sprintf("pool_%d", i%10), Submitted: float64(i),
			Map:                   PhaseDemand{Tasks: mt, Running: run, Pending: mt - done - run, AvgTaskTime: 5 + rng.Float64()*50},
			Reduce:                PhaseDemand{Tasks: 1 + rng.IntN(20), AvgTaskTime: 20 + rng.Float64()*100},
			OutputBytesPerMapTask: rng.Float64() * 1e8,
		}
		j.Map.Work = float64(j.Map.Demand()) * j.Map.AvgTaskTime
		if j.Map.Demand() == 0 || rng.IntN(2) == 0 {
			j.ReduceStarted = true
			j.Reduce.Running = min(j.Reduce.Tasks, 1+rng.IntN(5))
			j.Reduce.Pending = j.Reduce.Tasks - j.Reduce.Running
		} else {
			j.Reduce.Pending = j.Reduce.Tasks
		}
		j.Reduce.Work = float64(j.Reduce.Demand()) * j.Reduce.AvgTaskTime
		jobs[i] = j
	}
	return jobs
}

// BenchmarkBudgets measures one epoch's budget stage per mode, with OMO on
// where it is allowed, and reports ns per job.
//
//	go test ./ratio -run '^$' -bench BenchmarkBudgets
func BenchmarkBudgets(b *testing.B) {
	for _, mode := range []Mode{ModeStatic, ModePIDHSA, ModePDDHSA, ModeFresh} {
		for _, n := range []int{100, 10000} {
			b.Run(fmt.Sprintf("mode=%s/jobs=%d", mode, n), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Mode = mode
				if mode != ModeStatic {
					cfg.OMO = OMOConfig{LazyStart: true, BatchFinish: true, Bandwidth: 125e6}
				}
				in := Input{Cluster: Cluster{MapSlots: n * 3, ReduceSlots: n}, Jobs: benchJobs(n), ReleasedSlots: n, EpochLength: 1}
				st := State{ReleaseRate: float64(n), AvailableSlots: float64(3 * n), Windows: 5}
				b.ResetTimer()
				for b.Loop() {
					Budgets(cfg, in, st)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/job")
			})
		}
	}
}

// BenchmarkSlotConfig measures Algorithm 3.3.1 (O(S n^2)) and reports ns
// per split and the best makespan's gain over an even split, so a change
// in either shows.
func BenchmarkSlotConfig(b *testing.B) {
	for _, c := range []struct{ jobs, slots, k int }{{10, 40, 2}, {50, 200, 5}, {100, 500, 10}} {
		b.Run(fmt.Sprintf("jobs=%d/slots=%d/k=%d", c.jobs, c.slots, c.k), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, uint64(c.jobs)))
			ps := make([]Profile, c.jobs)
			for i := range ps {
				ps[i] = Profile{MapTasks: 1 + rng.IntN(400), ReduceTasks: 1 + rng.IntN(50), MapTime: 1 + rng.Float64()*30, ReduceTime: 5 + rng.Float64()*60}
			}
			var plan StaticPlan
			for b.Loop() {
				plan, _ = SlotConfig(ps, c.slots, c.k)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.slots-1), "ns/split")
			b.ReportMetric(plan.Curve[c.slots/2-1].Makespan/plan.Makespan, "even/best")
		})
	}
}
