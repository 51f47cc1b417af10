package solver_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/solver"
)

// TestBestKnownAgainstOPT: the reference search never beats the exhaustive
// optimum (it scores real MPS orders), never loses to FLEX (it starts from
// FLEX's answer), and at J = 7 finds the optimum almost always.
func TestBestKnownAgainstOPT(t *testing.T) {
	w := sim.Workload{Jobs: 7, Slots: 70, Small: 0.8, Slack: 0.75}
	var metrics []penalty.Metric
	for _, in := range penalty.All() {
		metrics = append(metrics, in.Name)
	}
	found, total := 0, 0
	for i := range 6 {
		p := sim.GenerateInstance(w, 3, i)
		opt, err := solver.Exhaustive(p, metrics)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := solver.BestKnown(p, metrics, 3000, 1)
		if err != nil {
			t.Fatal(err)
		}
		for x, m := range metrics {
			q := p
			q.Metric = m
			flex, err := solver.Flex{}.Solve(q)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-9 * math.Max(1, math.Abs(opt[x]))
			if ref[x] < opt[x]-tol {
				t.Errorf("instance %d, %s: reference %v below OPT %v", i, m, ref[x], opt[x])
			}
			if ref[x] > flex.Value+tol {
				t.Errorf("instance %d, %s: reference %v above FLEX's %v", i, m, ref[x], flex.Value)
			}
			total++
			if ref[x] <= opt[x]+tol {
				found++
			}
		}
	}
	if found < total*95/100 {
		t.Errorf("reference found OPT on %d of %d, want at least 95%%", found, total)
	}
}

// TestEffort: effort 0 (FastestEffort) scores only the candidate orders,
// a larger effort searches longer, and searching never makes the answer
// worse than the candidates alone.
func TestEffort(t *testing.T) {
	p := sim.GenerateInstance(sim.Workload{Jobs: 50, Slots: 500, Small: 0.8, Slack: 0.75}, 1, 0)
	p.Metric = penalty.WeightedTardiness
	solve := func(effort int) solver.Result {
		t.Helper()
		q := p
		q.Options.Effort = effort
		r, err := solver.Flex{}.Solve(q)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	fast, def, more := solve(solver.FastestEffort), solve(0), solve(4)
	if !(fast.Stats.Evaluations < def.Stats.Evaluations && def.Stats.Evaluations < more.Stats.Evaluations) {
		t.Errorf("evaluations: fastest %d, default %d, effort 4 %d; want increasing",
			fast.Stats.Evaluations, def.Stats.Evaluations, more.Stats.Evaluations)
	}
	if def.Value > fast.Value || more.Value > fast.Value {
		t.Errorf("values: fastest %v, default %v, effort 4 %v; searching made it worse", fast.Value, def.Value, more.Value)
	}
	if one := solve(solver.DefaultEffort); one.Value != def.Value || one.Stats.Evaluations != def.Stats.Evaluations {
		t.Errorf("effort 1 differs from the default: %v/%d vs %v/%d", one.Value, one.Stats.Evaluations, def.Value, def.Stats.Evaluations)
	}
	for _, bad := range []int{-1, solver.MaxEffort + 1} {
		if _, err := solver.EffortOption(&bad); err == nil {
			t.Errorf("EffortOption(%d) accepted", bad)
		}
	}
}

// TestSearchSeed: Options.SearchSeed reaches every search that kicks at
// random, and an answer stays a function of the problem and the seed: on
// each metric below (SLA cost's level walks, the window walks of
// tardiness and of tardy jobs, a maximum's iterated critical search) the
// same seed gives the same plan, and the eight seeds 0 to 7 do not all
// give the same plan.
func TestSearchSeed(t *testing.T) {
	p := sim.GenerateInstance(sim.Workload{Jobs: 60, Slots: 600, Small: 0.8, Slack: 0.75}, 1, 0)
	for _, m := range []penalty.Metric{penalty.SLACost, penalty.WeightedTardiness, penalty.TardyJobs, penalty.MaxWeightedTardiness} {
		solve := func(seed uint64) solver.Result {
			t.Helper()
			q := p
			q.Metric = m
			q.Options.SearchSeed = seed
			r, err := solver.Flex{}.Solve(q)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		plans := map[string]bool{}
		for seed := range uint64(8) {
			r := solve(seed)
			plans[fmt.Sprint(r.Plan.Completions)] = true
			if again := solve(seed); again.Value != r.Value || !slices.Equal(again.Plan.Completions, r.Plan.Completions) {
				t.Errorf("%s, seed %d: solved twice, %v then %v", m, seed, r.Value, again.Value)
			}
		}
		if len(plans) < 2 {
			t.Errorf("%s: seeds 0 to 7 all gave the same plan: the seed does not reach the kicks", m)
		}
	}
}

// TestConvexDefaultSkipsSearch: on response time and stretch from 100
// jobs the default effort answers with the candidate orders alone (as
// effort 0 does), and effort 2 still searches; at 50 jobs the default
// searches.
func TestConvexDefaultSkipsSearch(t *testing.T) {
	for _, c := range []struct {
		jobs   int
		search bool
	}{{50, true}, {100, false}, {200, false}} {
		p := sim.GenerateInstance(sim.Workload{Jobs: c.jobs, Slots: 10 * c.jobs, Small: 0.5, Slack: 0.35}, 1, 0)
		for _, m := range []penalty.Metric{penalty.AvgResponseTime, penalty.WeightedResponseTime, penalty.AvgStretch} {
			p.Metric = m
			evals := func(effort int) int {
				q := p
				q.Options.Effort = effort
				r, err := solver.Flex{}.Solve(q)
				if err != nil {
					t.Fatal(err)
				}
				return r.Stats.Evaluations
			}
			fast, def, two := evals(solver.FastestEffort), evals(solver.DefaultEffort), evals(2)
			if (def > fast) != c.search {
				t.Errorf("J = %d, %s: default effort %d evaluations, effort 0 %d; want a search: %v", c.jobs, m, def, fast, c.search)
			}
			if !(two > fast) {
				t.Errorf("J = %d, %s: effort 2 %d evaluations, effort 0 %d; want a search", c.jobs, m, two, fast)
			}
		}
	}
}

// TestOptimalCancel: a closed Options.Cancel stops the exhaustive search
// with ErrCanceled; an open one changes nothing.
func TestOptimalCancel(t *testing.T) {
	p := sim.GenerateInstance(sim.Workload{Jobs: 9, Slots: 90, Small: 0.8, Slack: 0.75}, 1, 0)
	closed := make(chan struct{})
	close(closed)
	q := p
	q.Options.Cancel = closed
	if _, err := (solver.Optimal{}).Solve(q); !errors.Is(err, solver.ErrCanceled) {
		t.Errorf("closed cancel: %v, want ErrCanceled", err)
	}
	q.Options.Cancel = make(chan struct{})
	got, err := solver.Optimal{}.Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	want, err := solver.Optimal{}.Solve(p)
	if err != nil || got.Value != want.Value {
		t.Errorf("open cancel: %v, %v; without: %v", got.Value, err, want.Value)
	}
}
