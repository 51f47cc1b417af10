package solver

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/flexd/flexd/penalty"
)

// The search at scale (sums of deadline penalties past
// maxExhaustiveSearchJobs; Flex.Solve): FLEX's candidate orders are far from
// what a search finds once J passes a few dozen (the FLEX paper studied
// J = 10), and the insertion neighbourhood that closes the gap at J = 10
// costs J^2 schedules a pass, a second at J = 100. dueSearch spends a
// budget of milliseconds instead: splitSearch, whose moves choose which jobs
// to give up (J schedules a pass); windowSearch, insertion within a few
// positions and at a few geometric distances, scored with prefix reuse
// (mps.Packer.Resume) and don't-look bits; then iterated window search with
// short double-bridge kicks. docs/solver-at-scale.md has what it reaches.

// setBase makes order the evaluator's incumbent: later scoreFrom calls
// reuse its MPS run up to the first position they change.
func (ev *evaluator) setBase(order []int) {
	ev.packer.Record(order, ev.completions)
}

// scoreFrom scores order, which shares its first k positions with the
// incumbent of the last setBase, reusing the incumbent's schedule up to
// there (mps.Packer.Resume): the same score as score(order), cheaper.
func (ev *evaluator) scoreFrom(order []int, k int) score {
	ev.evaluations++
	ev.packer.Resume(order, k, ev.completions)
	return ev.scoreCompletions()
}

// windowSearch is first-improvement insertion local search in which each job
// moves to the positions within window either way, and to a few farther
// ones at geometrically growing distances (jumps), scored with prefix reuse;
// it runs until a pass finds nothing or budget evaluations are spent. look
// says which positions to try first (nil: all).
//
// Two things keep it cheap. Don't-look bits (Bentley's, for the TSP): a pass
// tries the moves of position i only if a position within window of i
// changed since i was last tried, so the passes that confirm a local
// optimum cost little, and a kick (iterated search) re-examines only the
// positions near its cuts. And the incumbent's run is recorded again only
// when the moves tried have moved on by more than recordGap positions from
// the last accepted change: until then the last recording still serves the
// prefix before that change.
func (ev *evaluator) windowSearch(start []int, s score, budget, window int, look []bool) ([]int, score, int) {
	n := len(start)
	order := slices.Clone(start)
	cand := make([]int, n)
	ev.setBase(order)
	valid := n // order[:valid] is the recorded order's prefix
	if look == nil {
		look = make([]bool, n)
		for i := range look {
			look[i] = true
		}
	}
	targets := make([]int, 0, 2*window+32)
	spent := 0
	for improved := true; improved && spent < budget; {
		improved = false
		for i := 0; i < n && spent < budget; i++ {
			if !look[i] {
				continue
			}
			look[i] = false
			targets = targets[:0]
			for d := 1; d <= window; d++ {
				targets = append(targets, i-d, i+d+1)
			}
			for d := 2 * window; d < n; d *= 2 {
				targets = append(targets, i-d, i+d+1)
			}
			for _, k := range targets {
				if k < 0 || k > n || spent >= budget {
					continue
				}
				moveTo(cand, order, i, k)
				spent++
				p := min(i, k)
				if p-valid > recordGap {
					ev.setBase(order)
					valid = n
				}
				if t := ev.scoreFrom(cand, min(p, valid)); t.less(s) {
					s, improved = t, true
					copy(order, cand)
					valid = min(valid, p)
					markAround(look, p, max(i, k), window)
					break
				}
			}
		}
	}
	return order, s, spent
}

// markAround sets the look bits of positions lo-window-1 to hi+window+1.
func markAround(look []bool, lo, hi, window int) {
	for x := max(0, lo-window-1); x < min(len(look), hi+window+2); x++ {
		look[x] = true
	}
}

// iterate spends the budget on iterated local search from best: a double-
// bridge kick of the walk's order (three cuts, the middle segments
// swapped), then window search from the kicked order with only the
// positions near the cuts to look at; the walk moves to the new local
// optimum when it is no worse. The kicks come from a generator seeded by
// the instance size, so the result is still a function of the input.
func (ev *evaluator) iterate(best scoredOrder, budget, window int) scoredOrder {
	n := len(best.o.order)
	if n < 8 {
		return best
	}
	rng := rand.New(rand.NewPCG(uint64(n), 0x6b1c))
	walk := best
	kick := make([]int, n)
	look := make([]bool, n)
	spent := 0
	for spent < budget {
		// Short segments: a kick that moves half the order undoes the
		// descent's work; the cuts lie within a few windows of each other.
		span := min(n-1, 8*window)
		a := rng.IntN(n - span)
		cuts := []int{a + 1 + rng.IntN(span), a + 1 + rng.IntN(span)}
		slices.Sort(cuts)
		b, c := cuts[0], cuts[1]
		x := copy(kick, walk.o.order[:a])
		x += copy(kick[x:], walk.o.order[b:c])
		x += copy(kick[x:], walk.o.order[a:b])
		copy(kick[x:], walk.o.order[c:])
		clear(look)
		markAround(look, a, c, window)
		s0 := ev.score(kick)
		o, s, used := ev.windowSearch(kick, s0, budget-spent-1, window, look)
		spent += used + 1
		if cmpTol(s.value, walk.s.value) <= 0 {
			walk = scoredOrder{ordering{strings.TrimSuffix(best.o.scheme, "+iterated") + "+iterated", o}, s}
		}
		if s.less(best.s) {
			best = walk
		}
	}
	return best
}

// recordGap is how far (in positions) window search lets the moves it tries
// run ahead of the last recording before recording the incumbent again.
const recordGap = 8

// splitSearch searches the orders of one shape: a front set of jobs in due
// order, then the others in a back order. On sums of deadline penalties good
// orders have that shape more or less: the jobs meant to meet their
// deadlines first, earliest due first, then the jobs given up, which for
// tardiness Smith's rule orders, their deadlines being constants. Which jobs
// to give up is the hard part (FLEX 3.2 names Moore-Hodgson for it): a move
// flips one job between the sets, so a pass costs J schedules, not the J^2
// of insertion. It runs passes until one finds nothing or budget
// evaluations are spent, and returns the best order, its score and the
// evaluations spent. front is the starting set and is updated in place.
func (ev *evaluator) splitSearch(front []bool, due, back []int, budget int) ([]int, score, int) {
	n := len(due)
	order := make([]int, n)
	build := func() {
		x := 0
		for _, k := range due {
			if front[k] {
				order[x] = k
				x++
			}
		}
		for _, k := range back {
			if !front[k] {
				order[x] = k
				x++
			}
		}
	}
	build()
	s := ev.score(order)
	spent := 1
	for improved := true; improved && spent < budget; {
		improved = false
		for _, k := range due {
			if spent >= budget {
				break
			}
			front[k] = !front[k]
			build()
			spent++
			if t := ev.score(order); t.less(s) {
				s, improved = t, true
				continue
			}
			front[k] = !front[k]
		}
	}
	build()
	return order, s, spent
}

// dueSearch is the search at scale for sums of deadline penalties: split
// searches from the best order's on-time set under two due keys (deadline,
// and deadline less the fastest duration), then window search from the best
// result with what is left of the budget. It returns the best order found,
// or best itself when nothing beats it.
func (ev *evaluator) dueSearch(best scoredOrder, budget int) scoredOrder {
	in := ev.in
	n := len(in.jobs)
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	deadline := in.reachableDue
	// What a job costs when given up, per unit of its weight: the back
	// order is Smith's rule, cap-aware, with that as the weight.
	stake := func(k int) float64 {
		switch in.metrics[k] {
		case penalty.WeightedTardyJobs, penalty.WeightedTardiness:
			return in.pj[k].Weight
		case penalty.SLACost:
			if sla := in.pj[k].SLA; len(sla) > 0 {
				return sla[len(sla)-1].Penalty
			}
			return 0
		}
		return 1
	}
	back := sortedBy(n, func(k int) float64 {
		if st := stake(k); st > 0 {
			return fastest(k) / st
		}
		return math.Inf(1)
	})
	// The on-time set of the best order so far is the starting front.
	ev.score(best.o.order)
	onTime := make([]bool, n)
	for k := range onTime {
		onTime[k] = in.fn[k].At(ev.completions[k]) <= 0
	}
	spent := 1
	for _, key := range []struct {
		scheme string
		due    func(k int) float64
	}{
		{"split_edd", deadline},
		{"split_edd_slack", func(k int) float64 { return deadline(k) - fastest(k) }},
	} {
		front := slices.Clone(onTime)
		o, s, used := ev.splitSearch(front, sortedBy(n, key.due), back, budget/(2*splitShare))
		spent += used
		if s.less(best.s) {
			best = scoredOrder{ordering{key.scheme, o}, s}
		}
	}
	if left := budget - spent; left > 0 {
		o, s, used := ev.windowSearch(best.o.order, best.s, left, searchWindow, nil)
		spent += used
		if s.less(best.s) {
			best = scoredOrder{ordering{strings.TrimSuffix(best.o.scheme, "+window") + "+window", o}, s}
		}
	}
	if left := budget - spent; left > 0 {
		best = ev.iterate(best, left, searchWindow)
	}
	return best
}

// splitShare: each of the two split searches may spend 1/(2 splitShare) of
// the budget; window search has the rest.
const splitShare = 2

// searchWindow is how far window search moves a job either way.
const searchWindow = 3
