package sim

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// TestFlexMatchesOptimumOnHardInstances pins FLEX 4.1 instances (J = 10;
// the base case, and 90% slack) where the optimum sacrifices jobs and where
// FLEX once missed it by 5% to 194%: the earliest-deadline starts, the
// sacrifice orders (solver/candidates.go) and the sacrifice moves of the
// local search (solver/improve.go) each exist because of one of them. OPT
// is recomputed by exhaustive search.
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

// TestExchangesAtScale pins instances of the FLEX 4.1 base case at J = 100
// where the search at scale stopped far from the best known order until it
// had compound moves: on weighted tardy jobs, split search's single flips
// could not trade one job for another (instances 1 and 9: 1.258 and 1.138
// of the reference; swapSearch), and on SLA cost one deadline per job could
// not aim a job at its second step (instance 0: 1.131; levelSearch). The
// references are the committed best-known values; FLEX must stay within 5%
// of them. (Instance 1's best known has since moved 13% lower, to a basin
// FLEX reaches since the tie-breaker stopped pulling jobs towards
// deadlines they cannot meet: evaluator.pull in package solver.)
func TestExchangesAtScale(t *testing.T) {
	w := Workload{Jobs: 100, Slots: 1000, Small: 0.8, Slack: 0.75}
	refs, err := LoadReferenceSet(filepath.Join("testdata", "references", ReferenceFile(w, 1, 10)), w, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		index  int
		metric penalty.Metric
	}{
		{1, penalty.WeightedTardyJobs},
		{9, penalty.WeightedTardyJobs},
		{0, penalty.SLACost},
	} {
		t.Run(fmt.Sprintf("%s/%d", c.metric, c.index), func(t *testing.T) {
			t.Parallel()
			ref, ok := refs.Lookup(c.index, c.metric)
			if !ok {
				t.Fatalf("no reference for instance %d, %s", c.index, c.metric)
			}
			p := GenerateInstance(w, 1, c.index)
			p.Metric = c.metric
			got, err := solver.Flex{}.Solve(p)
			if err != nil {
				t.Fatal(err)
			}
			const bound = 1.05
			if got.Value > ref*bound {
				t.Errorf("flex %.4f, best known %.4f (ratio %.4f, bound %.2f), scheme %s", got.Value, ref, got.Value/ref, bound, got.Scheme)
			}
		})
	}
}
