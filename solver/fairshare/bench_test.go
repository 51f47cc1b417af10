package fairshare

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/flexd/flexd/solver/mps"
	"github.com/flexd/flexd/solver/solvertest/largejobs"
)

// benchJobs builds a seeded FLEX 4.1-like phase problem: most jobs can use
// the whole cluster, a few are small; minima are small and fit in S.
func benchJobs(n, total int) []Job {
	r := rand.New(rand.NewPCG(42, uint64(n)))
	jobs := make([]Job, n)
	budget := total / 2
	for i := range jobs {
		hi := total
		if r.IntN(5) == 0 {
			hi = 1 + r.IntN(total/10)
		}
		lo := min(r.IntN(4), hi, budget)
		budget -= lo
		jobs[i] = Job{
			ID:        fmt.Sprintf("j%04d", i),
			Min:       lo,
			Max:       hi,
			Weight:    []float64{1, 1, 2, 0.5}[r.IntN(4)],
			Submitted: float64(r.IntN(100)),
			Work:      1 + r.Float64()*float64(total)*10/float64(n)*2,
		}
	}
	return jobs
}

// largeJobs is solvertest.Large's instance as the fair policy hands it to
// Plan (Max capped at S, Min at Max), drawn from the same generator the
// same way: real weights, so Plan takes planEvents. It is the shape
// docs/fair-share.md measures (BenchmarkSolve/policy=fair in package
// solver, which this package cannot import); rng is seeded as there.
func largeJobs(n, total int) []Job {
	return largeJobsSeeded(1, n, total)
}

// largeJobsSeeded is largeJobs drawn with another seed.
func largeJobsSeeded(seed uint64, n, total int) []Job {
	drawn := largejobs.Draw(rand.New(rand.NewPCG(seed, uint64(n))), n, total)
	jobs := make([]Job, n)
	for i, d := range drawn {
		jobs[i] = Job{ID: fmt.Sprintf("job%06d", i), Min: min(d.Min, d.Max), Max: d.Max, Work: d.Work, Weight: d.Weight}
	}
	return jobs
}

// BenchmarkPlanLarge times Plan on largeJobs, the shape where it takes
// planEvents, at J = 1,000 and 10,000 (S = 10 J), with its real-valued
// weights, with four weights (priority classes) and with every weight 1
// (Hadoop's default; one class, see group):
//
//	go test ./solver/fairshare -run '^$' -bench 'BenchmarkPlanLarge' -benchtime 5x -count 3
func BenchmarkPlanLarge(b *testing.B) {
	for _, weights := range []string{"real", "four", "equal"} {
		for _, n := range []int{1000, 10000} {
			jobs := largeJobs(n, 10*n)
			for i := range jobs {
				switch weights {
				case "four": // a few priority classes
					jobs[i].Weight = []float64{0.5, 1, 2, 4}[i%4]
				case "equal": // every job at Hadoop's default weight
					jobs[i].Weight = 1
				}
			}
			benchPlanLarge(b, weights, jobs, n)
		}
	}
}

func benchPlanLarge(b *testing.B, weights string, jobs []Job, n int) {
	b.Run(fmt.Sprintf("weights=%s/jobs=%d/slots=%d", weights, n, 10*n), func(b *testing.B) {
		var intervals int
		for b.Loop() {
			intervals = len(Plan(MRv1, jobs, 10*n, 0).Intervals)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/job")
		b.ReportMetric(float64(intervals), "intervals")
	})
}

// BenchmarkPlan times the whole FAIR plan: Plan (event-driven for MRv1,
// planYARN for YARN) and planRecompute, the direct computation it reproduces (one fair-share
// computation and one rounding per completion), at J = 100 and 1,000;
// Plan alone at 10,000, where the direct computation takes seconds.
//
//	go test ./solver/fairshare -run '^$' -bench 'BenchmarkPlan' -benchtime 5x -count 3
func BenchmarkPlan(b *testing.B) {
	type size struct{ jobs, slots int }
	for _, impl := range []struct {
		name  string
		plan  func(Variant, []Job, int, float64) mps.Plan
		sizes []size
	}{
		{"plan", Plan, []size{{100, 1000}, {1000, 10000}, {10000, 100000}}},
		{"recompute", planRecompute, []size{{100, 1000}, {1000, 10000}}},
	} {
		for _, v := range []Variant{MRv1, YARN} {
			for _, sz := range impl.sizes {
				jobs := benchJobs(sz.jobs, sz.slots)
				b.Run(fmt.Sprintf("impl=%s/variant=%s/jobs=%d/slots=%d", impl.name, v, sz.jobs, sz.slots), func(b *testing.B) {
					var intervals int
					for b.Loop() {
						intervals = len(impl.plan(v, jobs, sz.slots, 0).Intervals)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sz.jobs), "ns/job")
					b.ReportMetric(float64(intervals), "intervals")
				})
			}
		}
	}
}

// BenchmarkCompute times one fair-share computation, the unit Plan repeats.
func BenchmarkCompute(b *testing.B) {
	for _, v := range []Variant{MRv1, YARN} {
		jobs := benchJobs(1000, 10000)
		sched := make([]Schedulable, len(jobs))
		for i, j := range jobs {
			sched[i] = j.Schedulable()
		}
		b.Run(fmt.Sprintf("variant=%s/jobs=1000/slots=10000", v), func(b *testing.B) {
			for b.Loop() {
				Compute(v, sched, 10000)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(jobs)), "ns/job")
		})
	}
}
