package sim

import (
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// TestFlexMatchesOptimumOnHardInstances pins FLEX 4.1 instances (J = 10;
// the base case, and 90% slack) where the optimum sacrifices jobs and where
// FLEX once missed it by 5% to 194%: the earliest-deadline starts, the
// sacrifice orders and the sacrifice moves of the local search
// (solver/flex.go) each exist because of one of them. OPT is recomputed by
// exhaustive search.
func TestFlexMatchesOptimumOnHardInstances(t *testing.T) {
	base, slack := DefaultWorkload(), DefaultWorkload()
	slack.Slack = 0.9
	cases := []struct {
		w      Workload
		seed   uint64
		index  int
		metric penalty.Metric
	}{
		{base, 1, 20, penalty.AvgTardiness},      // EDD start: the generic order's basin misses it
		{base, 1, 19, penalty.WeightedTardiness}, // sacrifice moves
		{base, 2, 10, penalty.WeightedTardyJobs}, // two cheap jobs given up to save an expensive one
		{slack, 5, 7, penalty.WeightedTardyJobs}, // three given up (sacrifice orders of three)
		{slack, 5, 9, penalty.SLACost},           // SLA jobs due at their first reachable step
	}
	for _, c := range cases {
		t.Run(string(c.metric), func(t *testing.T) {
			t.Parallel()
			p := GenerateInstance(c.w, c.seed, c.index)
			opt, err := solver.Exhaustive(p, []penalty.Metric{c.metric})
			if err != nil {
				t.Fatal(err)
			}
			p.Metric = c.metric
			got, err := solver.Flex{}.Solve(p)
			if err != nil {
				t.Fatal(err)
			}
			if got.Value > opt[0]*(1+1e-9) {
				t.Errorf("seed %d instance %d: flex %.6f, optimum %.6f (ratio %.4f), scheme %s",
					c.seed, c.index, got.Value, opt[0], got.Value/opt[0], got.Scheme)
			}
		})
	}
}
