package solver

import (
	"fmt"
	"math/rand/v2"

	"github.com/flexd/flexd/penalty"
)

// BestKnown is the reference the simulation study compares policies with
// where the exhaustive OPT cannot go (J > 10): for each metric, the least
// objective that a long iterated local search over MPS orders finds on p
// (the metrics override p.Metric and any per-job metric). It is a yardstick
// for tests and the study, never for production calls.
//
// The search starts from FLEX's answers (at the default and the largest
// effort), every classical order and random orders; descends from each to
// a local optimum of the whole insertion neighbourhood (every job to every
// position, first improvement; FLEX's own search tries only a few
// positions); then spends what is left on iterated local search with
// double-bridge kicks (the classic perturbation of Martin, Otto and Felten,
// which no chain of single insertions undoes cheaply), accepting a new
// local optimum when it is no worse. evaluations is the budget in MPS
// schedules per metric; seed fixes the random orders and kicks, so the
// result is a function of its inputs.
func BestKnown(p Problem, metrics []penalty.Metric, evaluations int, seed uint64) ([]float64, error) {
	out := make([]float64, len(metrics))
	for x, m := range metrics {
		v, err := bestKnown(withMetric(p, m), evaluations, seed)
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", m, err)
		}
		out[x] = v
	}
	return out, nil
}

// referenceRandomStarts is how many random orders the reference search
// descends from besides FLEX's answers and the classical orders.
const referenceRandomStarts = 2

// referenceReach is how far from an accepted move, and around a kick's
// cuts, the reference's iterated search looks again; its kicks span
// referenceKickReaches * referenceReach positions (64): the span its
// committed sets were searched with, whatever FLEX's own walks use
// (evaluator.kickSpan).
const (
	referenceReach       = 8
	referenceKickReaches = 8
)

func bestKnown(p Problem, evaluations int, seed uint64) (float64, error) {
	var flexOrders [][]int
	for _, effort := range []int{DefaultEffort, MaxEffort} {
		q := p
		q.Options.Effort = effort
		r, err := Flex{}.Solve(q)
		if err != nil {
			return 0, err
		}
		flexOrders = append(flexOrders, r.Order)
	}
	in, err := newInstance(p)
	if err != nil {
		return 0, err
	}
	n := len(in.jobs)
	ev := newEvaluator(in)
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	// FLEX reports its order in the caller's job indexes; the instance
	// works in canonical (id-sorted) ones.
	canon := make([]int, n)
	for k, i := range in.orig {
		canon[i] = k
	}
	var starts [][]int
	for _, fo := range flexOrders {
		o := make([]int, n)
		for x, i := range fo {
			o[x] = canon[i]
		}
		starts = append(starts, o)
	}
	for _, o := range in.classicalOrders() {
		starts = append(starts, o.order)
	}
	for range referenceRandomStarts {
		starts = append(starts, rng.Perm(n))
	}
	best := scoredOrder{ordering{"flex", starts[0]}, ev.score(starts[0])}
	if n < 2 {
		return best.s.value, nil
	}
	// Half the budget descends from the starts in turn, each to a local
	// optimum of every insertion unless its share runs out first (a start
	// that converges early leaves the rest to the next ones); the other
	// half iterates from the best.
	spent := 0
	for x, st := range starts {
		share := (evaluations/2 - spent) / (len(starts) - x)
		if share <= 0 {
			break
		}
		o, s, used := ev.windowSearch(st, nil, share, n, n, n, nil)
		spent += used + 1
		if s.less(best.s) {
			best = scoredOrder{ordering{"descent", o}, s}
		}
	}
	if left := evaluations - spent; left > 0 {
		best = ev.iterate(best, left, n, referenceReach, referenceKickReaches, rng)
	}
	return best.s.value, nil
}
