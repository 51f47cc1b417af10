package fairshare

import (
	"fmt"
	"math/rand/v2"
	"testing"
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

// BenchmarkPlan times the whole FAIR plan, one fair-share computation and
// one rounding per completion: O(J^2) by design (docs/fair-share.md).
func BenchmarkPlan(b *testing.B) {
	for _, v := range []Variant{MRv1, YARN} {
		for _, size := range []struct{ jobs, slots int }{{100, 1000}, {1000, 10000}} {
			jobs := benchJobs(size.jobs, size.slots)
			b.Run(fmt.Sprintf("variant=%s/jobs=%d/slots=%d", v, size.jobs, size.slots), func(b *testing.B) {
				var intervals int
				for b.Loop() {
					intervals = len(Plan(v, jobs, size.slots, 0).Intervals)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size.jobs), "ns/job")
				b.ReportMetric(float64(intervals), "intervals")
			})
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
