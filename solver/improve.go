package solver

// FLEX's improvement step (FLEX section 3 leaves it open; docs/algorithms.md
// section 4 item 3): local search from the best candidates, then iterated
// local search (improve). It is the whole search on every objective but
// the sums of deadline penalties past maxExhaustiveSearchJobs, where it is
// the pre-phase of the search at scale (search.go), and it runs before the
// critical search on the maxima (critical.go). Also the moves every search
// shares (moveTo, toBack).

import (
	"slices"
	"strings"

	"github.com/flexd/flexd/penalty"
)

// scoredOrder is a candidate order with its MPS score.
type scoredOrder struct {
	o ordering
	s score
}

// searchStarts is how many of the best distinct candidates local search
// starts from: on step metrics the best candidate often sits on a plateau
// that a slightly worse one does not. Sums of deadline penalties add the
// two earliest-deadline starts (see improve); a third best candidate then
// costs more budget than it brings (at J = 20 the starts share 2,000
// schedules and would each stop short of one pass over the neighbourhoods:
// SLA cost came out 8.7% worse on average with three).
const searchStarts = 2

// improve runs local search from the best few distinct candidates (sorted
// best first), and, on sums of deadline penalties, from the earliest-
// deadline orders too, however they score; then it spends what is left of
// the budget on iterated local search: two random swaps from the best order
// so far, then local search again, kept when better. The kicks use a
// generator seeded by the instance size, so the result is still a function
// of the input.
//
// Why the deadline starts: on tardiness the candidates that score best
// (the generic order first) put the short jobs early, and the optimum often
// does not; it is EDD with a few jobs moved, which local search from EDD
// reaches and local search from the generic order does not (FLEX 4.1 base
// case, seed 1, instance 20: EDD scores 9.00, the generic order 5.31, the
// optimum 5.05; local search from EDD finds 5.05, from the generic order
// it stays at 5.31).
//
// With atOnce (the pre-phase of the search at scale) the starts are
// searched in two groups at once, every other start in each, each group
// with half the budget (descendAtOnce).
func (ev *evaluator) improve(sorted []scoredOrder, budget int, atOnce bool) scoredOrder {
	// Moves scored from a recording of the incumbent (localSearch): the
	// same answers (the study's CSVs at J = 10 to 200, byte for byte),
	// 6% fewer instructions at J = 10 (SLA cost, tardiness, tardy jobs,
	// max lateness) and at J = 20 and 50 (response time, stretch, max
	// lateness; 9% on the convex metrics alone). Not in the search at
	// scale's pre-phase (atOnce), whose descents from the deadline orders
	// keep most of their first moves and record each: there it cost 0.6%
	// more of a solve at J = 200 (scripts/instructions.sh).
	resume := !atOnce
	var starts []scoredOrder
	add := func(c scoredOrder) {
		for _, s := range starts {
			if slices.Equal(s.o.order, c.o.order) {
				return
			}
		}
		starts = append(starts, c)
	}
	for _, c := range sorted {
		if len(starts) == searchStarts {
			break
		}
		add(c)
	}
	if ev.deadlines && ev.in.agg == penalty.Sum {
		for _, c := range sorted {
			if c.o.scheme == "edd" || c.o.scheme == "edd_slack" {
				add(c)
			}
		}
	}
	var best scoredOrder
	var spent int
	if atOnce && len(starts) > 1 {
		best, spent = ev.descendAtOnce(starts, sorted[0], budget)
	} else {
		best, spent = ev.descend(starts, sorted[0], budget, resume)
	}
	n := len(best.o.order)
	rng := ev.rng(0x5eed)
	kick := make([]int, n)
	// The walk starts at the best order and moves to each new local
	// optimum whose objective is no worse, ignoring the tie-breaker: on a
	// plateau the tie-breaker can point away from the next step down, and
	// walking the plateau finds it where always restarting from the best
	// does not.
	walk := best
	for spent+2*n < budget {
		copy(kick, walk.o.order)
		for range 2 {
			a, b := rng.IntN(n), rng.IntN(n)
			kick[a], kick[b] = kick[b], kick[a]
		}
		s0 := ev.score(kick)
		order, s, used := ev.localSearch(kick, s0, budget-spent-1, resume)
		spent += used + 1
		walk, best = walkTo(walk, best, order, s)
	}
	return best
}

// walkTo is one step of an iterated local search: the walk moves to the new
// local optimum o, scored s, when its objective is no worse than the walk's
// (the tie-breaker ignored), and best becomes the walk when s beats it. The
// scheme is best's, marked "+iterated" once.
func walkTo(walk, best scoredOrder, o []int, s score) (scoredOrder, scoredOrder) {
	if cmpTol(s.value, walk.s.value) <= 0 {
		walk = scoredOrder{ordering{strings.TrimSuffix(best.o.scheme, "+iterated") + "+iterated", o}, s}
	}
	if s.less(best.s) {
		best = walk
	}
	return walk, best
}

// descend runs local search from each of starts in turn, each with an
// equal share of what is left of budget, and returns the best order found
// if it beats best (else best) and the evaluations spent; resume is
// localSearch's.
func (ev *evaluator) descend(starts []scoredOrder, best scoredOrder, budget int, resume bool) (scoredOrder, int) {
	spent := 0
	for x, st := range starts {
		share := (budget - spent) / (len(starts) - x)
		order, s, used := ev.localSearch(st.o.order, st.s, share, resume)
		spent += used
		if s.less(best.s) {
			best = scoredOrder{ordering{st.o.scheme + "+local_search", order}, s}
		}
	}
	return best, spent
}

// descendAtOnce is descend with the starts in two groups searched at once
// (atOnce), every other start in each, each group with half the budget:
// the same work as descend in about half the time. The pre-phase of the
// search at scale ran alone on one core, a tenth of the budget: at
// J = 200 a tenth of a solve's time. A/B medians of five on the 2-core
// machine, the same binary with and without: SLA cost 0.86 and
// avg_tardiness 0.91 times the time at J = 200, 0.97 at J = 100, with the
// same answers on SLA cost and tardy jobs and within 0.0004 on
// tardiness (docs/solver-at-scale-log.md, time).
func (ev *evaluator) descendAtOnce(starts []scoredOrder, best scoredOrder, budget int) (scoredOrder, int) {
	var res [2]struct {
		best  scoredOrder
		spent int
	}
	ev.atOnce(2, func(e *evaluator, g int) {
		var group []scoredOrder
		for x := g; x < len(starts); x += 2 {
			group = append(group, starts[x])
		}
		res[g].best, res[g].spent = e.descend(group, best, budget/2, false)
	})
	spent := 0
	for _, r := range res {
		spent += r.spent
		if r.best.s.less(best.s) {
			best = r.best
		}
	}
	return best, spent
}

// localSearch improves order by first-improvement moves, adjacent swaps
// first, then insertions, then swaps of any two jobs (FLEX section 3 leaves
// the improvement step open; docs/algorithms.md section 4 item 3), and, on
// sums of deadline penalties with at most maxPlateauBoostJobs jobs, when a
// pass of those finds nothing, sacrifice moves; until a whole pass finds
// nothing or the budget of MPS evaluations is spent. It returns the order,
// its score and the evaluations spent.
//
// A sacrifice move sends two jobs to the back of the order, in either
// order, where they run on their minima: giving up two cheap deadlines can
// save an expensive one when neither alone does, which no single move
// shows (FLEX 4.1 base case, seed 2, instance 10, weighted tardy jobs: the
// optimum gives up two jobs of weight 0.165 and 0.020 to keep one of 0.545).
func (ev *evaluator) localSearch(start []int, s score, budget int, resume bool) ([]int, score, int) {
	n := len(start)
	order := append([]int(nil), start...)
	cand := make([]int, n)
	spent := 0
	// Every move changes the order from some position on: with resume
	// the incumbent is recorded, and each move scored from the
	// recording's prefix (scoreResumed), bit for bit what a whole schedule
	// gives (improve says when).
	eval, kept := ev.score, func() {}
	if resume {
		ev.recordOrder(order)
		eval, kept = ev.scoreResumed, func() { ev.recordOrder(order) }
	}
	for improved := true; improved && spent < budget; {
		improved = false
		for i := 0; i+1 < n && spent < budget; i++ {
			order[i], order[i+1] = order[i+1], order[i]
			spent++
			if t := eval(order); t.less(s) {
				s, improved = t, true
				kept()
				continue
			}
			order[i], order[i+1] = order[i+1], order[i]
		}
		for i := 0; i < n && spent < budget; i++ {
			for k := 0; k < n && spent < budget; k++ {
				if k == i || k == i+1 {
					continue // no move, or an adjacent swap already tried
				}
				moveTo(cand, order, i, k)
				spent++
				if t := eval(cand); t.less(s) {
					s, improved = t, true
					copy(order, cand)
					kept()
				}
			}
		}
		for i := 0; i < n && spent < budget; i++ {
			for k := i + 2; k < n && spent < budget; k++ {
				order[i], order[k] = order[k], order[i]
				spent++
				if t := eval(order); t.less(s) {
					s, improved = t, true
					kept()
					continue
				}
				order[i], order[k] = order[k], order[i]
			}
		}
		if !improved && ev.deadlines && ev.in.agg == penalty.Sum && n <= maxPlateauBoostJobs {
			for i := 0; i < n && spent < budget; i++ {
				for k := i + 1; k < n && spent < budget; k++ {
					for _, flip := range [2]bool{false, true} {
						toBack(cand, order, i, k, flip)
						spent++
						if t := eval(cand); t.less(s) {
							s, improved = t, true
							copy(order, cand)
							kept()
							break
						}
					}
				}
			}
		}
	}
	return order, s, spent
}

// recordOrder records order's schedule in the packer for scoreResumed, from
// the first position where it differs from the last recording.
func (ev *evaluator) recordOrder(order []int) {
	if k := ev.packer.RecordedPrefix(order); k > 0 {
		ev.packer.Rerecord(order, k, ev.completions)
	} else {
		ev.packer.Record(order, ev.completions)
	}
}

// scoreResumed is score for an order that shares a prefix with the last
// recording (recordOrder): the schedule resumes from there
// (mps.Packer.Resume), bit for bit what score computes, for the share of
// a schedule after the prefix.
func (ev *evaluator) scoreResumed(order []int) score {
	k := ev.packer.RecordedPrefix(order)
	if k == 0 {
		return ev.score(order)
	}
	ev.evaluations++
	ev.packer.Resume(order, k, ev.completions)
	return ev.scoreCompletions()
}

// toBack writes into dst the order src with the jobs at positions i < k
// moved to the end, in their order, or swapped when flip is set.
func toBack(dst, src []int, i, k int, flip bool) {
	n := len(src)
	copy(dst[:i], src[:i])
	copy(dst[i:k-1], src[i+1:k])
	copy(dst[k-1:n-2], src[k+1:])
	dst[n-2], dst[n-1] = src[i], src[k]
	if flip {
		dst[n-2], dst[n-1] = dst[n-1], dst[n-2]
	}
}

// moveTo writes into dst the order src with the job at position i moved to
// position k (as if removed and reinserted before the job now at k).
func moveTo(dst, src []int, i, k int) {
	x := src[i]
	switch {
	case k < i:
		copy(dst[:k], src[:k])
		dst[k] = x
		copy(dst[k+1:i+1], src[k:i])
		copy(dst[i+1:], src[i+1:])
	default:
		copy(dst[:i], src[:i])
		copy(dst[i:k-1], src[i+1:k])
		dst[k-1] = x
		copy(dst[k:], src[k:])
	}
}
