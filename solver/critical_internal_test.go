package solver

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flexd/flexd/penalty"
)

// TestCriticalSearchReportsItsCritical: the position criticalSearch
// returns beside its answer is the one criticalPosition finds by scheduling
// the answer, or -1; at a budget that lets the descent converge it is
// known, and the answer's score is the one a full schedule gives. Small
// budgets end passes that moved a job: a stale position there would send
// iterateCritical's kicks to the wrong job.
func TestCriticalSearchReportsItsCritical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 52))
	metrics := []penalty.Metric{penalty.MaxLateness, penalty.MaxWeightedTardiness, penalty.MaxResponseTime, penalty.MaxStretch}
	unknown, moved := 0, 0
	for i := range 16 {
		in := deadlineInstance(t, rng, 15+rng.IntN(45), metrics[i%len(metrics)])
		ev := newEvaluator(in)
		n := len(in.jobs)
		start := rng.Perm(n)
		for _, budget := range []int{1, 2, 3, 5, 8, 13, 10 * n * n} {
			o, s, _, c := ev.criticalSearch(start, nil, budget)
			if !slices.Equal(slices.Sorted(slices.Values(o)), identity(n)) {
				t.Fatalf("instance %d, budget %d: %v is not a permutation", i, budget, o)
			}
			if full := ev.score(o); full != s {
				t.Errorf("instance %d, budget %d: reported %v, a full schedule scores %v", i, budget, s, full)
			}
			if !slices.Equal(o, start) {
				moved++
			}
			want := ev.criticalPosition(o)
			switch {
			case c == -1 && budget == 10*n*n:
				t.Errorf("instance %d: no critical position after the descent converged (%v)", i, want)
			case c == -1:
				unknown++
			case c != want:
				t.Errorf("instance %d, budget %d: critical position %d, the answer's is %d", i, budget, c, want)
			}
		}
	}
	// The budgets must cut some descents short and let others move.
	if unknown == 0 || moved == 0 {
		t.Errorf("%d answers with no critical position, %d moved: the budgets test nothing", unknown, moved)
	}
}

// TestMoveEarlierWithLowerKeepsOnlyALowerMaximum: moveEarlier with lower
// keeps a move only when the maximum itself falls (criticalSearch moves the
// jobs ahead of the critical one so); without it, a move that only lowers
// the tie-breaker is kept too. Kept on the tie-breaker, those moves walked
// the maxima's plateaus (docs/solver-at-scale-log.md, session 55, item 1).
func TestMoveEarlierWithLowerKeepsOnlyALowerMaximum(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 1))
	metrics := []penalty.Metric{penalty.MaxTardiness, penalty.MaxWeightedLateness}
	lowered, tieOnly := 0, 0
	for i := range 12 {
		in := deadlineInstance(t, rng, 20+rng.IntN(40), metrics[i%len(metrics)])
		ev := newEvaluator(in)
		n := len(in.jobs)
		start := rng.Perm(n)
		from := ev.score(start)
		for x := 1; x < n; x++ {
			for _, lower := range []bool{true, false} {
				inc := ev.newIncumbent(slices.Clone(start), &from)
				cand := make([]int, n)
				moved := moveEarlier(inc, cand, x, 10*n, lower)
				o, _, _ := inc.result()
				if !moved {
					if !slices.Equal(o, start) {
						t.Fatalf("instance %d, position %d: no move kept, but the order changed", i, x)
					}
					continue
				}
				full := ev.score(o)
				switch {
				case !full.lessBy(from, estimateTol):
					t.Errorf("instance %d, position %d, lower %v: kept %v, no better than %v", i, x, lower, full, from)
				case lower && !full.lowerBy(from, estimateTol):
					t.Errorf("instance %d, position %d: with lower kept %v, the maximum of %v not lower", i, x, full, from)
				case lower:
					lowered++
				case !full.lowerBy(from, estimateTol):
					tieOnly++
				}
			}
		}
	}
	// Both kinds of move must occur, or the test tells them apart on nothing.
	if lowered == 0 || tieOnly == 0 {
		t.Errorf("%d moves lowered the maximum, %d only the tie-breaker: the instances test nothing", lowered, tieOnly)
	}
}
