package solver_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
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
		{"flex", penalty.AvgTardiness, 1000, 10000},
		{"flex", penalty.WeightedTardiness, 1000, 10000},
		{"flex", penalty.MaxWeightedTardiness, 1000, 10000},
		{"flex", penalty.SLACost, 1000, 10000},
		{"flex", penalty.AvgResponseTime, 10000, 100000},
		{"flex", penalty.AvgResponseTime, 100000, 1000000},
		{"flex", penalty.MaxStretch, 100000, 1000000},
		{"fair", penalty.AvgResponseTime, 1000, 10000},
		{"fair", penalty.AvgResponseTime, 10000, 100000},
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
	for _, jobs := range []int{20, 50, 100, 200} {
		benchAtScale(b, jobs, 0, "", nil)
	}
}

// BenchmarkFlexEffort is BenchmarkSolve's search at scale at other
// efforts: effort 0 (the candidate orders alone, solver.FastestEffort) and
// 2 (twice the default search), on the five sums of deadline and SLA
// penalties at J = 100 and 200, with the same ratio and worst_ratio.
//
//	go test ./solver -pgo=cmd/flexd/default.pgo -run '^$' -bench 'BenchmarkFlexEffort' -benchtime 10x
func BenchmarkFlexEffort(b *testing.B) {
	sums := []penalty.Metric{penalty.AvgTardiness, penalty.WeightedTardiness, penalty.TardyJobs, penalty.WeightedTardyJobs, penalty.SLACost}
	for _, effort := range []int{0, 2} {
		e, err := solver.EffortOption(&effort)
		if err != nil {
			b.Fatal(err)
		}
		for _, jobs := range []int{100, 200} {
			benchAtScale(b, jobs, e, fmt.Sprintf("/effort=%d", effort), sums)
		}
	}
}

// benchAtScale measures FLEX at the given Options.Effort (0: the default)
// on the FLEX 4.1 base case at J jobs and S = 10 J slots, on metrics (nil:
// every metric), over the instances of the committed reference set
// (sim/testdata/references), and reports, besides the time per solve, the
// average and worst ratio of FLEX's objective to the best-known reference
// (ratio, worst_ratio). suffix ends each benchmark's name.
func benchAtScale(b *testing.B, jobs, effort int, suffix string, metrics []penalty.Metric) {
	w := sim.Workload{Jobs: jobs, Slots: 10 * jobs, Small: 0.8, Slack: 0.75}
	path := filepath.Join("..", "sim", "testdata", "references", sim.ReferenceFile(w, 1, 10))
	if metrics == nil {
		for _, info := range penalty.All() {
			metrics = append(metrics, info.Name)
		}
	}
	for _, m := range metrics {
		b.Run(fmt.Sprintf("policy=flex/metric=%s/jobs=%d/slots=%d%s", m, jobs, w.Slots, suffix), func(b *testing.B) {
			refs, err := sim.LoadReferenceSet(path, w, 1, 10)
			if err != nil {
				b.Fatal(err)
			}
			n := len(refs.Values)
			if n == 0 {
				b.Fatalf("%s: no references", path)
			}
			problems := make([]solver.Problem, n)
			for i := range problems {
				problems[i] = sim.GenerateInstance(w, 1, i)
			}
			sum, worst, counted := 0.0, 0.0, 0
			for i, p := range problems {
				p.Metric = m
				p.Options.Effort = effort
				problems[i] = p
				ref, ok := refs.Lookup(i, m)
				if !ok {
					b.Fatalf("%s: no reference for instance %d, %s", path, i, m)
				}
				r, err := solver.Flex{}.Solve(p)
				if err != nil {
					b.Fatal(err)
				}
				if ref > 0 {
					sum += r.Value / ref
					worst = max(worst, r.Value/ref)
					counted++
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := (solver.Flex{}).Solve(problems[i%n]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/solve")
			if counted > 0 {
				b.ReportMetric(sum/float64(counted), "ratio")
				b.ReportMetric(worst, "worst_ratio")
			}
		})
	}
}
