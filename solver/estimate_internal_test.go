package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/flexd/flexd/penalty"
)

// TestScoreEstimateMatchesScore: after setBase on an order, scoreEstimate
// of any one insertion move scores what a full schedule of the moved order
// does, to estimateTol, on sums and on maxima (where the jobs the estimate
// did not schedule bring the incumbent's penalties: maxEstimate).
func TestScoreEstimateMatchesScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 52))
	metrics := []penalty.Metric{
		penalty.WeightedTardiness, penalty.SLACost, penalty.TardyJobs,
		penalty.MaxLateness, penalty.MaxWeightedTardiness, penalty.MaxResponseTime, penalty.MaxStretch, penalty.MaxTardiness,
	}
	near := func(got, want float64) bool {
		return math.Abs(got-want) <= estimateTol*max(1, math.Abs(want))
	}
	maxChanged := 0
	for i := range 40 {
		m := metrics[i%len(metrics)]
		in := deadlineInstance(t, rng, 9+rng.IntN(50), m)
		ev := newEvaluator(in)
		n := len(in.jobs)
		order := rng.Perm(n)
		ev.setBase(order)
		base := ev.score(order)
		if !near(ev.base.value, base.value) || !near(ev.base.second, base.second) {
			t.Fatalf("instance %d (%s): setBase scores %v, a full schedule %v", i, m, ev.base, base)
		}
		cand := make([]int, n)
		for range 40 {
			from, to := rng.IntN(n), rng.IntN(n+1)
			if to == from || to == from+1 {
				continue
			}
			moveTo(cand, order, from, to)
			p, q := changedSpan(cand, order)
			if p >= q {
				continue
			}
			got := ev.scoreEstimate(cand, p, q)
			want := ev.score(cand)
			if !near(got.value, want.value) || !near(got.second, want.second) {
				t.Fatalf("instance %d (%s), job at %d to %d: estimate %v, full schedule %v", i, m, from, to, got, want)
			}
			if in.agg == penalty.Max && want.value != base.value {
				maxChanged++
			}
		}
	}
	// Moves that change the maximum test that part of maxEstimate.
	if maxChanged < 50 {
		t.Errorf("%d moves changed a maximum, want at least 50", maxChanged)
	}
}

// TestMaxEstimateWhenTheTopMoves: an estimate that scheduled every job of
// baseTop, each now completing at once (its least penalty), takes the
// maximum of the rest from all the other jobs, beyond baseTop.
func TestMaxEstimateWhenTheTopMoves(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 52))
	for i := range 10 {
		in := deadlineInstance(t, rng, 20+rng.IntN(30), alternate(i, penalty.MaxLateness, penalty.MaxWeightedTardiness))
		ev := newEvaluator(in)
		n := len(in.jobs)
		ev.setBase(rng.Perm(n))
		if len(ev.baseTop) != maxTopJobs {
			t.Fatalf("instance %d: baseTop holds %d jobs, want %d", i, len(ev.baseTop), maxTopJobs)
		}
		var touched []int32
		want := math.Inf(-1)
		moved := make([]bool, n)
		for _, j := range ev.baseTop {
			touched = append(touched, int32(j))
			moved[j] = true
			ev.completions[j] = in.now
			want = max(want, in.fn[j].At(in.now))
		}
		for j := range n {
			if !moved[j] {
				want = max(want, ev.basePen[j])
			}
		}
		if got := ev.maxEstimate(touched); got.value != want {
			t.Errorf("instance %d: maximum %v, want %v", i, got.value, want)
		}
	}
}
