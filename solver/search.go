package solver

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/flexd/flexd/penalty"
)

// The search at scale (sums of deadline penalties past
// maxExhaustiveSearchJobs; Flex.Solve): FLEX's candidate orders are far from
// what a search finds once J passes a few dozen (the FLEX paper studied
// J = 10), and the insertion neighbourhood that closes the gap at J = 10
// costs J^2 schedules a pass, a second at J = 100. dueSearch spends tens of
// milliseconds instead: splitSearch, whose moves choose which jobs to give
// up (J schedules a pass), plain and iterated; windowSearch, insertion
// within a few positions and at a few geometric distances with don't-look
// bits; then iterated window search with short double-bridge kicks. A
// window or level move is guessed first on a single machine of S slots
// (guessMoves: one penalty per job passed), and only each job's best-guessed
// move is scored, by an estimate that schedules only until the move's
// schedule meets the incumbent's again (mps.Packer.Estimate, scored by
// difference); a move kept is scored in full when the incumbent is next
// recorded, from the first position it changed (mps.Packer.Rerecord). On
// tardiness the tie-breaker anticipates deadlines (evaluator.early).
// docs/solver-at-scale.md has what it reaches.
//
// This file holds the driver (dueSearches, dueSearch) and the incremental
// scoring every search shares (setBase, scoreEstimate, incumbent; the
// evaluator and its per-job terms are in evaluator.go); the searches are
// in files of their own: exchange.go (split search, the exchanges and
// admissions of tardy jobs), chains.go (the admissions' ejection chains),
// levels.go (the level search of SLA cost), window.go (window search and
// its iterated walks), guess.go (the guesses that pick which moves to
// estimate) and critical.go (the maxima).

// setBase makes order the evaluator's incumbent: later scoreFrom calls
// reuse its MPS run up to the first position they change, and
// scoreEstimate its per-job penalties (and on a maximum its largest ones,
// baseTop). The run is recorded from the first position where order
// differs from the last one recorded (mps.Packer.Rerecord): a search
// records its incumbent again after a few moves, and a kicked order
// shares a prefix with the walk's.
func (ev *evaluator) setBase(order []int) {
	if k := ev.packer.RecordedPrefix(order); k > 0 {
		ev.packer.Rerecord(order, k, ev.completions)
	} else {
		ev.packer.Record(order, ev.completions)
	}
	n := len(order)
	if cap(ev.basePen) < n {
		ev.basePen, ev.baseRamp, ev.baseHot = make([]float64, n), make([]float64, n), make([]bool, n)
	}
	ev.basePen, ev.baseRamp, ev.baseHot = ev.basePen[:n], ev.baseRamp[:n], ev.baseHot[:n]
	if ev.dues != nil && len(ev.baseAround) != n {
		ev.baseAround = slices.Grow(ev.baseAround[:0], n)[:n]
	}
	// A job that completes as it did in the last incumbent keeps its
	// terms, which are functions of its completion and of the margin
	// (the rest of what they read is fixed when the evaluator is made):
	// a new incumbent is mostly the last one with a few jobs moved, and
	// the terms of every job were a tenth of an SLA cost search's
	// instructions. A margin changed since (tests do) makes them all
	// anew.
	reuse := len(ev.baseAt) == n && ev.baseMargin == ev.margin
	if !reuse {
		ev.baseAt = slices.Grow(ev.baseAt[:0], n)[:n]
		ev.baseMargin = ev.margin
	}
	// The score as scoreCompletions makes it, from the same terms; on a
	// maximum also the jobs with the largest penalties (baseTop).
	isMax := ev.in.agg == penalty.Max
	v, second := 0.0, 0.0
	if isMax {
		v = math.Inf(-1)
	}
	top := ev.baseTop[:0]
	for k, c := range ev.completions {
		if !reuse || c != ev.baseAt[k] {
			ev.baseAt[k] = c
			ev.basePen[k] = ev.in.fn[k].At(c)
			if ev.plateau {
				pull := ev.pull(k, c)
				ev.baseRamp[k] = ev.rampWith(c, pull)
				ev.baseHot[k] = pull > 0 || ev.basePen[k] > 0
				if ev.dues != nil {
					ev.baseAround[k] = ev.aroundOf(k, c)
				}
			}
		}
		if isMax {
			v = math.Max(v, ev.basePen[k])
			top = ev.intoTop(top, k)
		} else {
			v += ev.basePen[k]
		}
		if ev.plateau {
			second += ev.baseRamp[k]
		}
	}
	ev.baseTop = top
	ev.base = score{v, second}
}

// scoreFrom scores order, which shares its first k positions with the
// incumbent of the last setBase, reusing the incumbent's schedule up to
// there (mps.Packer.Resume): the same score as score(order), cheaper.
func (ev *evaluator) scoreFrom(order []int, k int) score {
	ev.evaluations++
	ev.packer.Resume(order, k, ev.completions)
	return ev.scoreCompletions()
}

// intoTop inserts job k into top, the jobs with the largest basePen,
// largest first, when it is among the maxTopJobs largest, and returns it.
func (ev *evaluator) intoTop(top []int, k int) []int {
	pen := ev.basePen[k]
	if len(top) == maxTopJobs && pen <= ev.basePen[top[len(top)-1]] {
		return top
	}
	if len(top) < maxTopJobs {
		top = append(top, k)
	}
	x := len(top) - 1
	for ; x > 0 && ev.basePen[top[x-1]] < pen; x-- {
		top[x] = top[x-1]
	}
	top[x] = k
	return top
}

// maxTopJobs is how many jobs baseTop lists: an estimate that scheduled
// them all takes the maximum of the others from every job's penalty.
const maxTopJobs = 8

// scoreEstimate is scoreFrom for an order that also equals the incumbent
// after position m, estimated by mps.Packer.Estimate: it stops scheduling
// where the two schedules meet again. Cheap, and exact to about 1e-9 of
// the objective (see estimateTol).
//
// Only the jobs the estimate scheduled itself are scored; the others keep
// their penalties in the incumbent: on a sum the score is the incumbent's
// plus the difference, on a maximum see maxEstimate.
func (ev *evaluator) scoreEstimate(order []int, k, m int) score {
	ev.evaluations++
	touched := ev.packer.Estimate(order, k, m, ev.completions)
	if ev.in.agg == penalty.Max {
		return ev.maxEstimate(touched)
	}
	v, second := ev.base.value, ev.base.second
	for _, j := range touched {
		c := ev.completions[j]
		if c == ev.baseAt[j] {
			// Most jobs an estimate schedules finish as in the
			// incumbent (the jobs ahead of the move, at their maximum):
			// their difference is 0.
			continue
		}
		v += ev.in.fn[j].At(c) - ev.basePen[j]
		if ev.plateau {
			second += ev.ramp(int(j), c) - ev.baseRamp[j]
		}
	}
	return score{v, second}
}

// maxEstimate is scoreEstimate's score on a maximum, for the jobs touched
// scheduled (their completions in ev.completions): the larger of their
// penalties' maximum and the largest penalty in the incumbent of a job
// they do not hold (the first of baseTop not among them, or, when all
// are, a look at every job); the tie-breaker, a sum, as on sums.
func (ev *evaluator) maxEstimate(touched []int32) score {
	n := len(ev.basePen)
	if len(ev.touched) != n {
		ev.touched = make([]uint32, n)
	}
	if ev.touchedGen++; ev.touchedGen == 0 {
		// Wrapped: marks of 0 would read as touched.
		clear(ev.touched)
		ev.touchedGen = 1
	}
	gen := ev.touchedGen
	v, second := math.Inf(-1), ev.base.second
	for _, j := range touched {
		ev.touched[j] = gen
		c := ev.completions[j]
		if c == ev.baseAt[j] {
			v = math.Max(v, ev.basePen[j])
			continue
		}
		v = math.Max(v, ev.in.fn[j].At(c))
		if ev.plateau {
			second += ev.ramp(int(j), c) - ev.baseRamp[j]
		}
	}
	for _, j := range ev.baseTop {
		if ev.touched[j] != gen {
			return score{math.Max(v, ev.basePen[j]), second}
		}
	}
	for j := range n {
		if ev.touched[j] != gen {
			v = math.Max(v, ev.basePen[j])
		}
	}
	return score{v, second}
}

// incumbent is a local search's current order and score with the MPS run
// recorded for prefix reuse (setBase). It is recorded again lazily: until
// the moves tried run more than recordGap positions ahead of the last
// accepted change, the old recording still serves the prefix before it.
type incumbent struct {
	ev    *evaluator
	order []int
	s     score
	// order[:valid] is the recorded order's prefix, and order[changed+1:]
	// its suffix.
	valid, changed int
	// full counts the schedules built in full, estimated the events the
	// estimates scheduled: an estimate costs its share of a full
	// schedule's J events (and the guesses theirs: spent).
	full      int
	estimated int
	// guessed0 is the evaluator's guess count when the incumbent was
	// made.
	guessed0 int
	// exact is false while s is an estimate's (a move kept on its
	// estimate alone), not a full schedule's: record makes it exact
	// again, as result does.
	exact bool
}

// spent is the evaluations spent: the full ones, and the estimates and the
// guesses made since the incumbent was made in full-schedule equivalents
// (rounded up).
func (in *incumbent) spent() int {
	n := len(in.order)
	events := in.estimated + (in.ev.guessed-in.guessed0)/guessTermsPerEvent
	return in.full + (events+n-1)/n
}

// newIncumbent makes order, scored *s, the incumbent; with s nil it is
// scored from the run that records it, one evaluation, instead of by a
// run of its own (a kicked descent would otherwise schedule its start
// twice).
func (ev *evaluator) newIncumbent(order []int, s *score) *incumbent {
	in := &incumbent{ev: ev, order: slices.Clone(order), exact: true, guessed0: ev.guessed}
	in.record()
	if s != nil {
		in.s = *s
		return in
	}
	ev.evaluations++
	if ev.in.agg == penalty.Sum {
		in.s = ev.base
	} else {
		in.s = ev.scoreCompletions()
	}
	return in
}

func (in *incumbent) record() {
	in.ev.setBase(in.order)
	in.valid, in.changed = len(in.order), -1
	if !in.exact {
		in.s, in.exact = in.ev.base, true
	}
}

// result is the search's answer: the incumbent's order, its score, exact
// (recorded once more if a move was kept on its estimate), and the
// evaluations spent.
func (in *incumbent) result() ([]int, score, int) {
	in.confirm()
	return in.order, in.s, in.spent()
}

// confirm records the incumbent again, one full schedule, if it was kept on
// an estimate: its score is then exact and the evaluator's recording
// (basePen, baseAt) is its own.
func (in *incumbent) confirm() {
	if !in.exact {
		in.full++
		in.record()
	}
}

// try scores cand, which differs from the incumbent only in positions p to
// q, and makes it the incumbent if it is better. It counts the evaluations
// it spends.
//
// A move is scored by an estimate (scoreEstimate) and kept on it when it
// beats the incumbent by more than estimateTol: the incumbent's score is
// then an estimate's until it is next recorded (record, result). Maxima
// were scored in full from the recorded prefix (scoreFrom) until session
// 52; estimated, the weighted and deadline maxima take 0.52 to 0.76 times
// as long at J = 100 and 200, the others 0.90 to 0.95, for answers as good
// (docs/solver-at-scale-log.md, session 52).
func (in *incumbent) try(cand []int, p, q int) bool {
	return in.tryIf(cand, p, q, false)
}

// tryIf is try; with lower it keeps cand only when it lowers the value
// itself, not just the tie-breaker (score.second).
func (in *incumbent) tryIf(cand []int, p, q int, lower bool) bool {
	if p-in.valid > recordGap {
		in.record()
	}
	e0 := in.ev.packer.Events()
	t := in.ev.scoreEstimate(cand, min(p, in.valid), max(q, in.changed))
	if in.ev.in.agg == penalty.Sum {
		in.estimated += max(1, in.ev.packer.Events()-e0)
	} else {
		// A maximum's move counts as a whole schedule, as when it was
		// scored by one (criticalSearch's budget buys the moves it
		// bought then).
		in.full++
	}
	if !t.lessBy(in.s, estimateTol) {
		return false
	}
	if lower && !t.lowerBy(in.s, estimateTol) {
		return false
	}
	in.s, in.exact = t, false
	copy(in.order, cand)
	in.valid, in.changed = min(in.valid, p), max(in.changed, q)
	return true
}

// estimateTol is the relative margin by which a move's estimate must beat
// the incumbent for try to keep it. Estimates meet the recorded run within
// 1e-9 of its times (mps.Packer.Estimate), and scored against full runs
// they were off by up to 3e-9 of the objective (J = 20 to 200, both
// settings, the five sums of deadline penalties): a move estimated better
// by less than that was, at J = 100 in the second setting, not better in
// full in 10 to 40% of the cases. Moves kept were confirmed in full until
// then (mps.Packer.Resume from the prefix), a quarter of the solve's time;
// kept on estimates beyond 1e-9, the quality harness found no cell worse
// (docs/solver-at-scale-log.md).
const estimateTol = 1e-9

// budgetBoundJobs is the number of jobs from which, at the default effort,
// the searches at scale run out of budget before their first descent
// converges (at J = 200 window search has no kick left, and the exchanges
// of tardy jobs do not finish their first pass), and from which they
// change course:
//   - swapSearch screens the two-for-one trades (screenPairFront), which
//     its full loops never reach there. Below, it sent one base-case
//     instance at J = 100 to another basin (weighted tardy jobs 1.000 ->
//     1.111) and changed nothing else;
//   - the two tardy-jobs keys' searches count once (exchangeKeys);
//   - SLA cost's second search starts from best itself rather than from
//     the second-best candidate, and tardiness's from the second-best
//     candidate rather than from SRPT (dueSearches).
//
// (Window search skipped the moves mayGain rules out in its descent over
// the whole order only from here too, until tardiness ran two searches
// from two starts; see mayGain.)
const budgetBoundJobs = 150

// slaDescentShare is the share of the budget that the level search leaves,
// on SLA cost below budgetBoundJobs jobs, to a descent over the whole
// insertion neighbourhood after it (dueSearch).
const slaDescentShare = 0.1

// recordGap is how far (in positions) window search lets the moves it tries
// run ahead of the last recording before recording the incumbent again.
const recordGap = 8

// dueSearches is dueSearch from best with the given budget or, where a
// second core buys more as a second search than as a second walk (see
// walks), two searches at once, each with one walk and the whole budget,
// and the better answer, the first's among equals; on SLA cost and, from
// budgetBoundJobs jobs, on tardiness, the two with half the budget and two
// more from the better answer with the other half (searchHalves). The
// second search starts elsewhere, so that it ends in another basin:
//
//   - on tardiness alone, from SRPT below budgetBoundJobs jobs (the
//     candidate least like the deadline orders that usually score best),
//     and from there, where a descent from so far away would not finish,
//     from the best of the scored candidates sorted that is not best's
//     order (the best candidate itself when best is the pre-phase's
//     improvement of it). Its window descent jumps as far as the order is
//     long (farJumps): a large job that blocks many may have to move a
//     hundred positions. At J = 200 the first window descent spends most
//     of the budget, so a second walk does nothing there
//     (docs/solver-at-scale-log.md: weighted_tardiness at J = 200 1.042 ->
//     1.034, unseen seeds 7 to 9 1.046 / 1.027 / 1.030 -> 1.026 / 1.017 /
//     1.016). On 120 instances of unseen seeds 10 to 13 (J = 100 and 200,
//     both settings), against references of 100,000 evaluations,
//     weighted_tardiness at J = 200 went from 1.035, two instances past
//     1.10 (1.48 and 1.25, where a descent with every jump from any
//     classical order found what the capped one could not), to 1.016,
//     worst 1.06, with the far jumps; at J = 100 (base case) avg_tardiness
//     was 1.007 (worst 1.134) with the far jumps from the second-best
//     candidate, 1.001 (1.013) from SRPT;
//   - on SLA cost below budgetBoundJobs, from the second-best candidate
//     as above, without the split descent (noSplit): on seeds 10 to 13 at
//     J = 50 and 100, 1.012 / 1.011 / 1.015 / 1.019 -> 1.007 / 1.011 /
//     1.012 / 1.014 (base case / second setting), and against the
//     committed references (before their refresh) J = 50 1.013 / 1.015 ->
//     1.006 / 1.003, J = 100 1.014 / 1.025 -> 1.011 / 1.012, where the
//     two walks from one start ran before;
//   - on SLA cost from budgetBoundJobs jobs, from best itself without the
//     split descent: the level search from best, its descents in the
//     second walk's order (levelSearch; at the same budget, J = 200 1.059
//     -> 1.047, second setting 1.060 -> 1.045 with its worst instance
//     1.143 -> 1.085; the budget there was then cut to meet the time
//     bar, at about the quality of one search: see defaultBudget). The
//     second-best candidate there did no better on seeds 10 to 13.
//
// Tardy jobs run their two keys' searches at once already (exchangeKeys).
func (ev *evaluator) dueSearches(best scoredOrder, sorted []scoredOrder, budget int) scoredOrder {
	n := len(ev.in.jobs)
	starts := [2]scoredOrder{best, best}
	if ev.tardinessOnly || ev.slaOnly && n < budgetBoundJobs {
		other := func(t scoredOrder) bool { return !slices.Equal(t.o.order, best.o.order) }
		second := -1
		if ev.tardinessOnly && n < budgetBoundJobs {
			second = slices.IndexFunc(sorted, func(t scoredOrder) bool { return t.o.scheme == "srpt" && other(t) })
		}
		if second < 0 {
			second = slices.IndexFunc(sorted, other)
		}
		if second < 0 {
			return ev.dueSearch(best, budget)
		}
		starts[1] = sorted[second]
	} else if !ev.slaOnly {
		return ev.dueSearch(best, budget)
	}
	if ev.slaOnly || ev.tardinessOnly && n >= budgetBoundJobs {
		return ev.searchHalves(starts, budget)
	}
	var res [2]scoredOrder
	ev.atOnce(2, func(e *evaluator, x int) {
		e.walks = 1
		e.farJumps = ev.tardinessOnly && x == 1
		res[x] = e.dueSearch(starts[x], budget)
	})
	if res[1].s.less(res[0].s) {
		return res[1]
	}
	return res[0]
}

// searchHalves is dueSearches' two searches, on SLA cost and, from
// budgetBoundJobs jobs, on tardiness, in two halves of the budget: the two
// searches from starts (the second without the split descent on SLA cost,
// jumping far on tardiness), each with half; then two searches from the
// better answer (the first's among equals), both as the first search was
// but without the split descent on SLA cost, with random streams of their
// own (evaluator.kicks), each with the other half; on SLA cost the second
// of them orders the targets by their deadlines alone (evaluator.byDeadline:
// see levelJit) and starts from the best point on a path between the first
// half's two answers (relinkAnswers; both start there if it beats both
// answers), the path's evaluations taken from the other half, and the best
// point on a path between the second half's answers is the answer if it
// beats them all (its evaluations on top). It returns the best of the
// answers, the earliest among equals.
//
// Why: two searches from two starts end apart, each in a basin of its own
// (on SLA cost at J = 200 2.2% apart on average over 110 instances, each
// the better on about half of them); the better basin is worth the second
// half of both cores, kicked two ways, more than the worse is worth the
// half it would have kept. Measured at the default effort, summed excess
// over the best known, two seeds of the kicks (docs/solver-at-scale-log.md,
// session 44):
//   - SLA cost: 22 cells at J = 200 (seeds 1, 10 to 13 and 20 to 25, both
//     settings) 0.3181 -> 0.2760, cells past 1% 18 -> 13; 22 cells at
//     J = 100 0.1700 -> 0.1506; seeds 28 and 29 at J = 200 (no choice made
//     on them) 0.0562 -> 0.0461, seeds 26 and 27 0.0639 -> 0.0665; J = 50
//     and 20 the same. A first half of 0.3 or 0.7 of the budget did less
//     (0.2925 and 0.2789 with one seed, against 0.2743 at a half and 0.2996
//     before); the second half's two searches as the first's (one with the
//     split descent, the same streams) did worse than before, 0.3257;
//   - tardiness from budgetBoundJobs jobs: 22 cells at J = 200
//     avg_tardiness 0.1062 -> 0.0947, weighted_tardiness 0.1376 -> 0.1349;
//     seeds 26 to 29 0.0494 -> 0.0433 and 0.0552 -> 0.0481. Below it, where
//     the second search starts from SRPT, J = 100 did better (0.0322 ->
//     0.0269, 0.0383 -> 0.0343) but J = 50 took one instance of weighted
//     tardiness to 1.225 of the best known (seed 22's base case): a search
//     from so far away does not finish in half the budget.
func (ev *evaluator) searchHalves(starts [2]scoredOrder, budget int) scoredOrder {
	half := budget / 2
	rest := budget - half
	var between func(res [2]scoredOrder, second bool) (scoredOrder, bool)
	if ev.slaOnly {
		// On SLA cost the second half's second search starts from the
		// best point between the first half's answers (relink), which
		// the second half pays for; the best point between the second
		// half's answers competes with them, its evaluations on top of
		// the budget (see relinkAnswers).
		// Both paths share the back order, made once.
		back := ev.in.backOrder()
		between = func(res [2]scoredOrder, second bool) (scoredOrder, bool) {
			m, used, ok := ev.relinkAnswers(res, back, int(relinkShare*float64(budget)))
			if !second {
				rest -= used
			}
			return m, ok
		}
	}
	return ev.inHalves(starts, between, func(e *evaluator, x int, from scoredOrder, second bool) scoredOrder {
		// The first search runs on ev itself: its settings are put back
		// after.
		saved := e.searchSettings
		defer func() { e.searchSettings = saved }()
		e.walks = 1
		e.noSplit = ev.slaOnly && (second || x == 1)
		e.farJumps = ev.tardinessOnly && !second && x == 1
		e.byDeadline = ev.slaOnly && second && x == 1
		if !second {
			return e.dueSearch(from, half)
		}
		e.kicks = secondHalfKicks + uint64(x)
		return e.dueSearch(from, rest)
	})
}

// inHalves is a search in two halves on two cores (searchHalves,
// iterateCriticals): search from each of starts at once, then, with second
// set, from the better answer (the first's among equals) twice at once,
// each run telling itself apart by x. With between not nil, what it makes
// of the first half's answers (ok) starts the second half instead: both of
// its searches if it beats the better answer, the second (x = 1)
// otherwise; and what it makes of the second half's answers (second set)
// is the answer if it beats them all. search must answer no worse than
// the order it starts from. It returns the best answer, the earliest among
// equals.
func (ev *evaluator) inHalves(starts [2]scoredOrder, between func(res [2]scoredOrder, second bool) (scoredOrder, bool), search func(e *evaluator, x int, from scoredOrder, second bool) scoredOrder) scoredOrder {
	var res [2]scoredOrder
	both := func(starts [2]scoredOrder, second bool) {
		ev.atOnce(2, func(e *evaluator, x int) { res[x] = search(e, x, starts[x], second) })
	}
	both(starts, false)
	mid := res[0]
	if res[1].s.less(mid.s) {
		mid = res[1]
	}
	next := [2]scoredOrder{mid, mid}
	if between != nil {
		if m, ok := between(res, false); ok && m.s.less(mid.s) {
			mid = m
			next = [2]scoredOrder{m, m}
		} else if ok {
			next[1] = m
		}
	}
	both(next, true)
	best := mid
	for _, r := range res {
		if r.s.less(best.s) {
			best = r
		}
	}
	if between != nil {
		if m, ok := between(res, true); ok && m.s.less(best.s) {
			best = m
		}
	}
	return best
}

// secondHalfKicks sets searchHalves' second half's random streams (see
// evaluator.kicks) apart from the first half's.
const secondHalfKicks = 100

// dueSearch is the search at scale for sums of deadline penalties: split
// searches from the best order's on-time set under two due keys (deadline,
// and deadline less the fastest duration), iterated on mixtures of
// metrics; on tardy jobs under keys and from starts of their own (big jobs
// just in time, the fluid model's set: see below), each followed by
// exchanges, the keys at once; on SLA cost one key, followed by the
// iterated level search and, below budgetBoundJobs, a full descent;
// skipped on tardiness alone; then window search from the best result;
// then iterated window search with what is left of the budget; on tardy
// jobs late jobs to the front around the walks (admitFront) and, last,
// Moore-Hodgson's rule from the on-time set (mooreHodgsonPass). It returns
// the best order found, or best itself when nothing beats it.
func (ev *evaluator) dueSearch(best scoredOrder, budget int) scoredOrder {
	in := ev.in
	n := len(in.jobs)
	// On tardy jobs a share of the budget waits for admitFront, before the
	// walks.
	reserved := 0
	if ev.tardyOnly {
		reserved = int(admitFrontShare * float64(budget))
		budget -= reserved
	}
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	deadline := in.reachableDue
	back := in.backOrder()
	// The on-time set of the best order so far is the starting front.
	onTime := ev.onTimeSet(best.o.order)
	spent := 1
	keys := []dueKey{
		{"split_edd", deadline, nil},
		{"split_edd_slack", func(k int) float64 { return deadline(k) - fastest(k) }, nil},
	}
	if ev.tardinessOnly {
		// On tardiness alone the split shape (on-time jobs in due order,
		// the others after) is often far from the best order, and
		// window search and its iteration do better with the whole
		// budget. Measured on the committed reference sets at the
		// default effort, average ratio to the best known: J = 200
		// avg_tardiness 1.038 -> 1.029 (base case) and 1.058 -> 1.051
		// (slack 0.35), weighted_tardiness 1.072 -> 1.057 and 1.085 ->
		// 1.070; J = 100 avg_tardiness 1.012 -> 1.007 and 1.018 ->
		// 1.016, weighted_tardiness unchanged; J = 20 and 50 no worse.
		// On mixtures of metrics the split searches stay.
		keys = nil
	}
	if ev.slaOnly {
		// On SLA cost one split descent (deadline key) is enough, and the
		// iterated level search below does more with the other's budget.
		// Measured at the default effort, average ratio to the best
		// known, base case: J = 100 1.046 -> 1.037 (seed 1, committed
		// references), 1.012 -> 1.009, 1.036 -> 1.036, 1.031 -> 1.030
		// (seeds 7-9, references at effort 20); J = 200 1.095 -> 1.084,
		// 1.093 -> 1.083, 1.132 -> 1.113, 1.058 -> 1.052; no worst
		// instance worse. Second setting (slack 0.35, small 0.5): J = 20
		// to 100 unchanged, J = 200 1.100 -> 1.106. Time about the same:
		// both forms solved in turn on those 40 base-case instances,
		// 1.02 times as long (BenchmarkSolve: J = 100 up to 1.13, J = 200
		// no slower).
		keys = keys[:1]
		if ev.noSplit {
			// dueSearches' second search on SLA cost: the level
			// search from best itself.
			keys = nil
		}
	}
	// exchangesFrom runs the exchanges (swapSearch) on e from the on-time
	// set of from under the deadline key; exchangesFromBest from the best
	// order so far.
	exchangesFrom := func(e *evaluator, from scoredOrder, left int) (scoredOrder, int) {
		front := e.onTimeSet(from.o.order)
		due, pushed := sortedBy(n, deadline), 0
		if n < budgetBoundJobs {
			due, _, pushed = e.pushLate(front, nil, due, back, pushLateJobs, left/2)
		}
		o, s, used := e.swapSearch(front, due, back, left-pushed)
		return from.beatenBy(o, s, "+swap"), used + pushed
	}
	exchangesFromBest := func(left int) {
		var used int
		best, used = exchangesFrom(ev, best, left)
		spent += used
	}
	// exchangesBeside runs the exchanges from the best order and other
	// from the same order at once, on two evaluators, and keeps the
	// better answer (the exchanges' among equals), counting the larger
	// spending, as the time goes.
	exchangesBeside := func(left int, other func(e *evaluator, from scoredOrder) (scoredOrder, int)) {
		var res [2]scoredOrder
		var used [2]int
		from := best
		ev.atOnce(2, func(e *evaluator, x int) {
			if x == 0 {
				res[x], used[x] = exchangesFrom(e, from, left)
				return
			}
			res[x], used[x] = other(e, from)
		})
		spent += max(used[0], used[1])
		best = res[0]
		if res[1].s.less(best.s) {
			best = res[1]
		}
	}
	if ev.tardyOnly {
		// On tardy jobs the keys' front sets are in order of deadline
		// plus the job's work over the cluster's slots (jit), from the
		// best order's on-time set and from the fluid model's
		// (lawlerMoore); below budgetBoundJobs also in order of deadline
		// alone, from the best order's set.
		//
		// Why jit: in the best known orders the big jobs finish just
		// before their deadlines, behind small jobs due later. A big
		// job in deadline order takes most of the slots as soon as its
		// turn comes and the small jobs behind it, held to their
		// minima, go late; behind them it still gets what they cannot
		// use (their maxima are small) and meets its deadline. On the
		// committed base case at J = 200, instances 3 and 4, the best
		// known order's on-time set in deadline order has 3 and 2 of
		// its jobs late (4.113 and 5.043 against 3.180 and 3.625); in
		// jit order none, and the split order is the best known one.
		// Moving each of the 20 biggest jobs to the latest position
		// where it stays on time does the same; adding work / S to the
		// deadline does it in one sort. (1.5 to 2 times work / S did it
		// on one instance, 0.5 on the other.)
		//
		// Why the fluid model's set: a start far from the best order's,
		// often with dozens of its jobs late in MPS, which the
		// exchanges take to other basins. On the unseen seed 11, J =
		// 200, instance 2, they reach 3.822 from it where the search
		// from the best order's set stopped at 4.285 (the reference
		// search at 4.146). Starting every key there did worse.
		//
		// Measured at the default effort (docs/solver-at-scale-log.md),
		// weighted tardy jobs, before -> after (average / worst):
		// committed references J = 100 1.005 / 1.033 and 1.007 -> 0.989
		// / 1.019 and 1.001, J = 200 1.014 and 1.004 -> 1.001 and 1.003,
		// J = 20 and 50 the same; unseen seeds 10 to 13, summed excess
		// of six cells 0.032 -> -0.021 (J = 50 base 1.011 / 1.269 ->
		// 1.009 / 1.269, second 1.015 / 1.188 -> 1.001 / 1.028; J = 200
		// base 1.005 / 1.208 -> 0.981 / 1.049); tardy jobs -0.012 ->
		// -0.020. The fluid start came first (the key was deadline
		// then): weighted tardy jobs 0.041 -> 0.032 alone. Without the
		// deadline key below 150 jobs one committed instance at J = 50
		// (second setting, instance 1) went to 1.100.
		keys = []dueKey{{"split_jit", in.jitDue, nil}, {"split_fluid", in.jitDue, in.lawlerMoore(deadline)}}
		if n < budgetBoundJobs {
			keys = append(keys, dueKey{"split_edd", deadline, nil})
		}
		best, spent = ev.exchangeKeys(keys, onTime, back, best, spent, budget)
		keys = nil
		// Exchanges once more, from the on-time set of the best order so
		// far under the deadline key, before window search rather than
		// only after it: the keys' searches end on sets the other key's
		// order or a window move has changed, and the exchanges that
		// remain are the cheapest gains. Measured on the committed
		// references and the unseen seeds at the default effort, tardy
		// jobs seed 7 J = 100 1.029 -> 1.000 and J = 200 1.032 -> 1.014,
		// weighted tardy jobs J = 100 1.011 -> 0.997 (base case), 1.013
		// -> 1.009 (second setting), seeds 8 and 9 1.005 -> 1.002 and
		// 1.023 -> 1.014; no cell worse by more than 0.001.
		//
		// Window search runs beside them, on the other core, from the
		// same order, with the same budget; the better answer is kept
		// and the larger spending counted, as the time goes. At J = 200
		// the exchanges often spend all that is left finding nothing,
		// and the window search after them never ran: on seed 8's
		// instance 1 it was the move that gives 6 tardy jobs instead of
		// 7 (effort 2 found it). Measured on the committed references
		// and the unseen seeds, tardy jobs and weighted tardy jobs: 3 of
		// 10 cells better at J = 200 (weighted tardy jobs 1.016 ->
		// 1.010, tardy jobs seed 8 1.033 -> 1.000) and 2 of 18 at J = 20
		// to 100 (weighted seeds 7 and 9 at J = 100 1.000 -> 0.989 and
		// 1.017 -> 1.009), none worse; J = 100 took 1.08 to 1.12 times
		// as long (15 to 16.5 ms), J = 200 within 3%.
		//
		// From budgetBoundJobs jobs the window search converges in 50
		// to 80 evaluations where the exchanges spend all that is left
		// (1,000 to 1,500): its core idled for a third of the solve.
		// The exchanges under the jit key follow it there, from its
		// answer (jitExchanges).
		if left := budget - spent; left > 0 {
			exchangesBeside(left, func(e *evaluator, from scoredOrder) (scoredOrder, int) {
				o, s, u := e.windowSearch(from.o.order, &from.s, left, searchWindow, searchWindow, maxJump, nil)
				r := from.beatenBy(o, s, "+window")
				if n >= budgetBoundJobs && u < left {
					var used int
					r, used = e.jitExchanges(r, back, left-u)
					u += used
				}
				return r, u
			})
			// And a repair (admitRepair) of the set they end on.
			var used int
			best, used = ev.admitRepair(best, back, min(repairEvaluations, budget/(2*swapShare)))
			spent += used
		}
	}
	for _, key := range keys {
		front := slices.Clone(onTime)
		due := sortedBy(n, key.due)
		o, s, used := ev.splitSearch(front, due, back, budget/(2*splitShare))
		spent += used
		if s.less(best.s) {
			best = scoredOrder{ordering{key.scheme, o}, s}
		} else if !ev.tardyOnly && !ev.slaOnly {
			// On a mixture of metrics with tardiness among them, a split
			// descent that finds nothing better ends the split searches,
			// and the window search gets their budget: the split shape
			// can be far from the best order. (On tardiness alone, where
			// this was measured first, at J = 200 avg_tardiness 1.11 ->
			// 1.04 of the best known, they are now skipped altogether:
			// above.)
			break
		}
		if ev.slaOnly {
			// The level search below, iterated, has the rest.
			continue
		}
		// Iterated split search: flip two to four random jobs, descend
		// again, move when no worse. The set is what split search gets
		// stuck on: no single flip pays when a late job can only be
		// admitted if another leaves.
		rng := ev.rng(0x5e7)
		walkF, walkS := slices.Clone(front), s
		for lim := spent + budget/(2*splitILSShare); spent < lim; {
			f2 := slices.Clone(walkF)
			for range 2 + rng.IntN(3) {
				x := rng.IntN(n)
				f2[x] = !f2[x]
			}
			o, s, used := ev.splitSearch(f2, due, back, lim-spent)
			spent += used
			if cmpTol(s.value, walkS.value) <= 0 {
				walkF, walkS = f2, s
			}
			if s.less(best.s) {
				best = scoredOrder{ordering{key.scheme + "+iterated", o}, s}
			}
		}
	}
	wide := false
	if ev.slaOnly {
		// Below budgetBoundJobs the level search leaves a share of the
		// budget to a descent over the whole insertion neighbourhood
		// (every job to every position; window search's usual window and
		// jumps reach 32 positions at most). The levels' order (targeted
		// jobs by target deadline) can be far from the best order with
		// the same targets: on the committed base case at J = 100,
		// instance 4, the best known order's targets in that order score
		// 5.84 against its 4.12, a full descent takes them back to 4.12
		// in under 400 evaluations, and the level search's answer goes
		// from 4.27 to 4.16 the same way. Measured at the default effort
		// (docs/solver-at-scale-log.md): committed references J = 100 base
		// case 1.017 / 1.037 -> 1.009 / 1.017, second setting 1.021 ->
		// 1.020, J = 50 1.007 -> 1.006, J = 20 the same; unseen seeds 10
		// to 13, J = 50 1.003 / 1.010 -> 1.001 / 1.008, J = 100 1.009 /
		// 1.012 -> 1.008 / 1.013. At J = 200, where the budget is short
		// of what the level search needs, it did worse.
		reserve := 0
		if n < budgetBoundJobs {
			reserve = int(slaDescentShare * float64(budget))
		}
		// The level search leaves levelRepairEvaluations (at most a fifth
		// of the budget: past dueTaperJobs it falls as 1/J^2) to a repair
		// of its answer's targets (levelRepair).
		repair := min(levelRepairEvaluations, budget/5)
		o, s, used := ev.levelSearch(best.o.order, back, budget-spent-reserve-repair)
		spent += used
		best = best.beatenBy(o, s, "+level")
		best, used = ev.levelRepair(best, back, repair)
		spent += used
		wide = reserve > 0
	}
	if left := budget - spent; left > 0 {
		jump, window := maxJump, searchWindow
		if ev.farJumps {
			jump = n
			if n >= budgetBoundJobs {
				window = n
			}
		}
		if wide {
			o, s, used := ev.windowSearch(best.o.order, &best.s, left, n, n, n, nil)
			spent += used
			best = best.beatenBy(o, s, "+descent")
			left = budget - spent
		}
		o, s, used := ev.windowSearch(best.o.order, &best.s, left, window, searchWindow, jump, nil)
		spent += used
		best = best.beatenBy(o, s, "+window")
	}
	if left := min(budget-spent, int(lateSwapShare*float64(budget))); left > 0 && ev.tardinessOnly {
		// Late jobs out of Smith's order swapped (lateSwaps), before the
		// walks.
		o, s, used := ev.lateSwaps(best.o.order, &best.s, left)
		spent += used
		best = best.beatenBy(o, s, "+lateswaps")
	}
	if left := budget - spent; left > 0 && ev.tardyOnly {
		// Exchanges again: window search and the other key's search move
		// the set in ways the exchanges can build on. Below
		// budgetBoundJobs, with late jobs let in with pushes beside them
		// on the other core (admitPushed), the better answer kept and the
		// larger spending counted, as the time goes.
		if n < budgetBoundJobs {
			exchangesBeside(left, func(e *evaluator, from scoredOrder) (scoredOrder, int) {
				return e.admitPushed(from, back, min(left, admitEvaluations))
			})
		} else {
			exchangesFromBest(left)
		}
	}
	if reserved > 0 {
		// Late jobs to the front (admitFront), with the share set aside
		// and what the stages before left, at most the share on
		// admissions just in time; the walks get the rest.
		var used int
		best, used = ev.admitFront(best, reserved+max(0, budget-spent), admitFrontEvaluations, reserved, false)
		spent += used - reserved
	}
	if left := budget - spent; left > 0 && ev.weightedTardiness && n >= budgetBoundJobs {
		var used int
		best, used = ev.farLate(best, left)
		spent += used
		if left := budget - spent; left > 0 {
			best, used = ev.smithBack(best, left)
			spent += used
		}
	}
	if left := budget - spent; left > 0 {
		best = ev.iterateWalks(best, left)
	}
	if ev.tardinessOnly {
		// A late job for a big one on time ahead of it (bigSwaps).
		best = ev.bigSwaps(best, int(bigSwapShare*float64(budget)))
	}
	if reserved > 0 {
		// The walks move jobs so that a late job's move to the front can
		// pay where it did not before them: those moves once more, without
		// the window search (one schedule per late job and round), and
		// where one does not pay the admission just in time
		// (justInTime.admit), with at most twice admitFront's share of
		// schedules: on seed 20's second setting at J = 100, instance 1,
		// the trades that take weighted tardy jobs from 2.309 to 1.976
		// come after the walks (twice the share: 1.0048 -> 1.0023 on that
		// cell). On the unseen seed 10 at J = 200, instance 7, FLEX's
		// answer had job 109 (due 0.395) late 24th, and first it is on
		// time with nothing else changed: the best known value (2.8810 ->
		// 2.7459). Unseen J = 200 base case 1.0041 -> 1.0028 (worst
		// 1.049 -> 1.025; the same with eight seeds of the kicks), every
		// other cell of weighted tardy jobs and tardy jobs the same; J = 200
		// up to 3% slower (docs/solver-at-scale-log.md, session 41).
		best, _ = ev.admitFront(best, 2*reserved, 0, 2*reserved, false)
	}
	if ev.tardyOnly {
		// Moore-Hodgson's rule from the on-time set, under the deadline
		// and the jit order (mooreHodgsonPass).
		best = ev.mooreHodgsonPass(best, int(mooreHodgsonShare*float64(budget+reserved)), in.reachableDue, in.jitDue)
		// Then the admissions once more, their chains weighing each
		// move against a job given up (admitFront with weigh; see
		// lastAdmitShare).
		last := int(lastAdmitShare * float64(budget+reserved))
		best, _ = ev.admitFront(best, last, 0, last, true)
	}
	return best
}

// rng is a random generator of the search's, stream telling the searches
// apart: seeded by the number of jobs and Options.SearchSeed, so that an
// answer stays a function of the problem (seed 0, the default, gives the
// generators of the builds before the option).
func (ev *evaluator) rng(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(len(ev.in.jobs))^(ev.in.p.Options.SearchSeed*searchSeedMix), stream+ev.kicks))
}

// searchSeedMix spreads Options.SearchSeed over the generators' seed bits
// (the 64-bit golden ratio), so that seeds 1, 2, ... do not give the
// generators of other numbers of jobs.
const searchSeedMix = 0x9e3779b97f4a7c15

// beatenBy is the order o, scored s, if it beats best, named as best's
// scheme with suffix (once: a stage run again does not repeat it); best
// otherwise.
func (best scoredOrder) beatenBy(o []int, s score, suffix string) scoredOrder {
	if !s.less(best.s) {
		return best
	}
	return scoredOrder{ordering{strings.TrimSuffix(best.o.scheme, suffix) + suffix, o}, s}
}

// atOnce runs run(e, x) for x = 0 to k-1 at once: x = 0 on ev, the others
// on evaluators of their own (one after the other when ev.serial), and
// counts their evaluations on ev. Each run must depend only on x and on
// what it is given, so that the results are what running them in turn
// gives.
func (ev *evaluator) atOnce(k int, run func(e *evaluator, x int)) {
	others := make([]*evaluator, k)
	var wg sync.WaitGroup
	for x := 1; x < k; x++ {
		others[x] = newEvaluator(ev.in)
		others[x].serial = ev.serial
		if ev.serial {
			run(others[x], x)
			continue
		}
		wg.Go(func() { run(others[x], x) })
	}
	if k > 0 {
		run(ev, 0)
	}
	wg.Wait()
	for _, o := range others[1:] {
		ev.evaluations += o.evaluations
	}
}

// changedSpan returns the first and the last position where a and b (of
// the same length) differ; p >= q when they differ in at most one place.
func changedSpan(a, b []int) (p, q int) {
	n := len(a)
	p, q = 0, n-1
	for p < n && a[p] == b[p] {
		p++
	}
	for q > p && a[q] == b[q] {
		q--
	}
	return p, q
}
