package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// BenchmarkFlexBaseCase solves the 100 instances of the FLEX 4.1 base case
// (seed 1; J = 10, S = 100) with FLEX under each metric of the menu and
// reports the median solve time (local search included) besides the mean:
// the "J = 10, S = 100: median solve under 1 ms".
//
//	go test ./sim -run '^$' -bench FlexBaseCase -benchtime 5x
func BenchmarkFlexBaseCase(b *testing.B) {
	cfg := StudyConfig{Workload: DefaultWorkload(), Instances: 100}
	probs := GenerateStudy(cfg, 1)
	for _, info := range penalty.All() {
		b.Run(fmt.Sprintf("metric=%s", info.Name), func(b *testing.B) {
			var times []time.Duration
			evals := 0
			for b.Loop() {
				for _, p := range probs {
					p.Metric = info.Name
					start := time.Now()
					r, err := solver.Flex{}.Solve(p)
					times = append(times, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
					evals += r.Stats.Evaluations
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e6, "median-ms/solve")
			b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds())/1e6, "p90-ms/solve")
			b.ReportMetric(float64(evals)/float64(len(times)), "schedules/solve")
			b.ReportMetric(0, "ns/op")
		})
	}
}
