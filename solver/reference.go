package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/flexd/flexd/penalty"
)

// BestKnown is the reference the simulation study compares policies with
// where the exhaustive OPT cannot go (J > 10): for each metric, the least
// objective that a long iterated local search over MPS orders finds on p
// (the metrics override p.Metric and any per-job metric). It is a yardstick
// for tests and the study, never for production calls.
//
// The search is deliberately unlike FLEX's own, so that the two do not share
// blind spots: it starts from FLEX's answer, every classical order and
// random orders; descends from each to a local optimum of the insertion and
// swap neighbourhoods (every move tried, first improvement); then spends
// what is left on iterated local search with double-bridge kicks (the
// classic perturbation of Martin, Otto and Felten, which no chain of single
// insertions undoes cheaply), accepting a new local optimum when it is no
// worse. evaluations is the budget in MPS schedules per metric; seed fixes
// the random orders and kicks, so the result is a function of its inputs.
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
// descends from besides FLEX's answer and the classical orders.
const referenceRandomStarts = 4

func bestKnown(p Problem, evaluations int, seed uint64) (float64, error) {
	flex, err := Flex{}.Solve(p)
	if err != nil {
		return 0, err
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
	fo := make([]int, n)
	for x, i := range flex.Order {
		fo[x] = canon[i]
	}
	starts = append(starts, fo)
	for _, o := range in.classicalOrders() {
		starts = append(starts, o.order)
	}
	for range referenceRandomStarts {
		starts = append(starts, rng.Perm(n))
	}
	best := append([]int(nil), fo...)
	bestS := ev.score(best)
	if n < 2 {
		return in.cost(flex.Plan.Completions), nil
	}
	share := evaluations / (2 * len(starts))
	spent := 0
	for _, st := range starts {
		if spent >= evaluations/2 {
			break
		}
		order, s, used := ev.descend(st, ev.score(st), share)
		spent += used + 1
		if s.less(bestS) {
			best, bestS = order, s
		}
	}
	// Iterated local search from the best local optimum.
	walk := slices.Clone(best)
	walkS := bestS
	kick := make([]int, n)
	for spent < evaluations {
		doubleBridge(kick, walk, rng)
		order, s, used := ev.descend(kick, ev.score(kick), evaluations-spent)
		spent += used + 1
		if cmpTol(s.value, walkS.value) <= 0 {
			walk, walkS = order, s
		}
		if s.less(bestS) {
			best, bestS = slices.Clone(order), s
		}
	}
	return bestS.value, nil
}

// doubleBridge writes into dst the order src cut at three random points into
// A B C D and put together as A C B D.
func doubleBridge(dst, src []int, rng *rand.Rand) {
	n := len(src)
	if n < 4 {
		copy(dst, src)
		if n >= 2 {
			a, b := rng.IntN(n), rng.IntN(n)
			dst[a], dst[b] = dst[b], dst[a]
		}
		return
	}
	cuts := []int{1 + rng.IntN(n-1), 1 + rng.IntN(n-1), 1 + rng.IntN(n-1)}
	slices.Sort(cuts)
	a, b, c := cuts[0], cuts[1], cuts[2]
	x := copy(dst, src[:a])
	x += copy(dst[x:], src[b:c])
	x += copy(dst[x:], src[a:b])
	copy(dst[x:], src[c:])
}

// descend is plain first-improvement local search over every insertion and
// every swap until neither improves or the budget is spent: the reference
// search's descent, with no restriction of the neighbourhoods.
func (ev *evaluator) descend(start []int, s score, budget int) ([]int, score, int) {
	n := len(start)
	order := slices.Clone(start)
	cand := make([]int, n)
	spent := 0
	for improved := true; improved && spent < budget; {
		improved = false
		for i := 0; i < n && spent < budget; i++ {
			for k := 0; k <= n && spent < budget; k++ {
				if k == i || k == i+1 {
					continue // no move
				}
				moveTo(cand, order, i, k)
				spent++
				if t := ev.score(cand); t.less(s) {
					s, improved = t, true
					copy(order, cand)
				}
			}
		}
		for i := 0; i < n && spent < budget; i++ {
			for k := i + 2; k < n && spent < budget; k++ {
				order[i], order[k] = order[k], order[i]
				spent++
				if t := ev.score(order); t.less(s) {
					s, improved = t, true
					continue
				}
				order[i], order[k] = order[k], order[i]
			}
		}
	}
	return order, s, spent
}
