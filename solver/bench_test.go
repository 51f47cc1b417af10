package solver_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/solver/solvertest"
)

// BenchmarkSolve measures every policy's solve time, with local search
// included for flex, and reports ns per job. Fixtures are built before the
// timer starts.
//
//	go test ./solver -run '^$' -bench 'BenchmarkSolve' -benchtime 20x
func BenchmarkSolve(b *testing.B) {
	cases := []struct {
		policy string
		metric penalty.Metric
		jobs   int
		slots  int
	}{
		{"flex", penalty.AvgResponseTime, 10, 100},
		{"flex", penalty.WeightedTardiness, 10, 100},
		{"flex", penalty.SLACost, 10, 100},
		{"flex", penalty.AvgResponseTime, 1000, 10000},
		{"flex", penalty.WeightedResponseTime, 1000, 10000},
		{"flex", penalty.AvgStretch, 1000, 10000},
		{"flex", penalty.MaxLateness, 1000, 10000},
		{"flex", penalty.TardyJobs, 1000, 10000},
		{"flex", penalty.WeightedTardyJobs, 1000, 10000},
		{"flex", penalty.SLACost, 1000, 10000},
		{"flex", penalty.AvgResponseTime, 10000, 100000},
		{"fair", penalty.AvgResponseTime, 1000, 10000},
		{"fifo", penalty.AvgResponseTime, 10000, 100000},
	}
	for _, c := range cases {
		name := fmt.Sprintf("policy=%s/metric=%s/jobs=%d/slots=%d", c.policy, c.metric, c.jobs, c.slots)
		b.Run(name, func(b *testing.B) {
			s, _ := solver.ByName(c.policy)
			p := solvertest.Large(rand.New(rand.NewPCG(1, uint64(c.jobs))), c.jobs, c.slots, c.metric)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Solve(p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.jobs), "ns/job")
		})
	}
}
