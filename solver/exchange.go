package solver

// Split search and the exchanges of tardy jobs (items 1 and 2 of
// docs/solver-at-scale.md): orders of one shape, a front set in due order
// and the rest in Smith order, searched by flipping jobs between the sets,
// by one-for-one, two-for-one and one-for-two exchanges under due keys, and
// by repairs that admit a late job and push the cheapest ones out.

import (
	"cmp"
	"slices"
	"strings"
)

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
	cand := make([]int, n)
	build := func() { buildSplit(cand, front, due, back) }
	build()
	inc := ev.newIncumbent(cand, nil)
	inc.full++
	for improved := true; improved && inc.spent() < budget; {
		improved = false
		for _, k := range due {
			if inc.spent() >= budget {
				break
			}
			front[k] = !front[k]
			build()
			// A flip moves one job between the sets: an insertion, which
			// changes the positions between its old and new place only.
			if p, q := changedSpan(cand, inc.order); inc.try(cand, p, q) {
				improved = true
				continue
			}
			front[k] = !front[k]
		}
	}
	return inc.result()
}

// admitPushed tries the late jobs of from's on-time set into it, the most
// stake first: for each, the set with it, in deadline order with the front
// jobs due after it pushed (pushLate: each to the latest place where it
// stays on time, the most work first), is kept when it scores better. It
// returns the best order found, or from, and the evaluations spent (about
// J log2 J per job tried; none once it has spent budget).
//
// Why: a job let in delays the front jobs due after it, and the big ones
// among them hold the slots the small ones behind them need; with the big
// ones pushed back, the small ones stay on time. On the committed base case
// at J = 50, instance 6 (weighted tardy jobs), the best known order is FLEX's
// on-time set with one job more (stake 0.06) and the jobs after it pushed
// (0.4128 against FLEX's 0.4724, 14% above it); no exchange gets there,
// since in deadline order the set has a job late (1.375).
func (ev *evaluator) admitPushed(from scoredOrder, back []int, budget int) (scoredOrder, int) {
	in := ev.in
	n := len(in.jobs)
	deadline := in.reachableDue
	best, spent := from, 1
	front := ev.onTimeSet(from.o.order)
	late := in.lateByStake(nil, front)
	byDue := sortedBy(n, deadline)
	with, after, cand := make([]bool, n), make([]bool, n), make([]int, n)
	for _, l := range late {
		if spent >= budget {
			break
		}
		copy(with, front)
		with[l] = true
		for k := range after {
			after[k] = with[k] && deadline(k) > deadline(l)
		}
		// pushLate scores the split order of what it returns.
		due, s, used := ev.pushLate(with, after, byDue, back, n, budget-spent)
		spent += used
		if s.less(best.s) {
			buildSplit(cand, with, due, back)
			best = scoredOrder{ordering{strings.TrimSuffix(best.o.scheme, "+admit") + "+admit", slices.Clone(cand)}, s}
			copy(front, with)
		}
	}
	return best, spent
}

// lateByStake appends to dst the jobs outside front that can still make
// their deadline and have something at stake, the most stake first (ties
// in index order), and returns it: the jobs admitPushed and admitRepair
// try in.
func (in *instance) lateByStake(dst []int, front []bool) []int {
	for k := range front {
		if !front[k] && in.reachable(k, in.reachableDue(k)) && in.stake(k) > 0 {
			dst = append(dst, k)
		}
	}
	slices.SortStableFunc(dst, func(a, b int) int { return cmp.Compare(in.stake(b), in.stake(a)) })
	return dst
}

// admitFront moves each job late in best's order to the front of it, where
// it completes soonest, the earliest deadline first, and where it is then
// on time, runs a window search of window evaluations from there (the jobs
// it delays make room); the first result that beats best becomes best,
// and the late jobs of the new best not yet tried are tried next. When no
// late job pays, the on-time jobs (dropBackJobs of them, the least weight
// per unit of work first) are dropped to the back the same way, each
// followed by the window search, which can then let late jobs in. With a
// window of 0 only the moves to the front are scored, and no job is
// dropped (alone, a drop only loses).
// It returns the best order found, or best, and the evaluations spent (one
// schedule per job moved, and the window searches'; it moves no further
// job once it has spent budget).
//
// Why: the exchanges work on the split shape (on-time jobs by a key, the
// rest after), whose front is always in key order; the window searches
// move one job at a time. Neither lets a small job due first in at the
// very front while a big job due soon after goes from second to just in
// time. On seed 1's second setting at J = 200, instance 1 (weighted tardy
// jobs), the reference search's order (8.1098) has job 136 (due 0.353, 20
// slot-seconds) first and job 195 (due 0.387, 175 slot-seconds; on time at
// 0.300 in FLEX's order) fifth, on time at 0.385; every other job tardy
// in one is tardy in the other. FLEX's answer was a local optimum of every
// insertion; job 136 moved to the front, and window search from there for
// 15 evaluations, reaches that order's value (8.2847 -> 8.1098), and with
// the late jobs tried by deadline admitFront goes on to 8.0256, below
// every search before it (the references were refreshed). Measured at
// the default effort, weighted tardy jobs, against the committed
// references (seed 1) and the unseen seeds 10 to 13 (references at effort
// 20), before -> after: seed 1 J = 50 base case 1.0041 -> 1.0000 (worst
// 1.041 -> 1.000), J = 100 1.0060 -> 1.0039, J = 200 1.0010 -> 1.0000,
// J = 200 second setting 1.0104 -> 1.0040 (1.0065 against the references
// refreshed from its answers); unseen J = 100 base case
// 1.0027 -> 1.0012 (worst 1.061 -> 1.025), J = 200 second setting 1.0018
// -> 1.0000; every other cell, and tardy jobs in every cell, the same.
// With the late jobs in the order's order rather than by deadline, J =
// 200's second setting read 1.0060 (with an eighth of the budget), with a
// quarter of the budget an unseen instance at J = 200 went to 1.105, and
// window searches of 8 or 25 evaluations did worse than 15
// (docs/solver-at-scale-log.md, session 41).
//
// Why the drops: on seed 1's base case at J = 100, instance 3, FLEX's
// order had job 0 (weight 0.006, due 1.647) first and on time, where the
// best known gives it up and has jobs 42 and 79 (weights 0.101 and 0.022)
// on time instead (3.1249 against 3.0084): one out for two in, which the
// admissions do not make and the exchanges had not found. Dropping 10
// on-time jobs (30 did the same) took the base case at J = 100 from
// 1.0039 to 1.0007 (worst 1.039 -> 1.007); every other cell of weighted
// tardy jobs and tardy jobs was the same, but the unseen base case at
// J = 50 (references at effort 10), 1.0006 -> 1.0007.
//
// Where a late job's move to the front does not pay, and it was on time
// there, it is admitted just in time instead (justInTime.admit); no
// admission starts once they have spent jitBudget evaluations. (A job late
// even first cannot be admitted: on seed 23's base case at J = 100, chains
// tried for such jobs spent the budget that a later job's chain needed,
// weighted tardy jobs 1.0101 / 1.045 -> 1.0056 / 1.039.)
//
// With weigh (dueSearch's last admissions, lastAdmitShare), each
// admission's chain runs weighedChainSteps steps at every size moving the
// job it makes late earlier, weighs that move against a job given up
// (justInTime.weighDrop), and where it must give a job up, gives up the
// one whose order scores best without it (justInTime.bestDrop); where an
// admission's chain does not pay, a second starts from the job's place by
// deadline (justInTime.admit's atDeadline).
func (ev *evaluator) admitFront(best scoredOrder, budget, window, jitBudget int, weigh bool) (scoredOrder, int) {
	in := ev.in
	n := len(in.jobs)
	cand := make([]int, n)
	tried, dropped := make([]bool, n), make([]bool, n)
	var late, onTime []int
	spent := 0
	// tag names the stage in the answer's scheme.
	tag := "+front"
	if weigh {
		tag = "+weighed"
	}
	// lateFirst is whether the job move last moved was late even first.
	lateFirst := false
	// move moves job k to position to (0 the front, n the back) and, unless
	// it must be on time there and is not, runs the window search from
	// there; it reports whether that beat best (best is then its answer).
	move := func(k, to int, mustBeOnTime bool) bool {
		moveTo(cand, best.o.order, slices.Index(best.o.order, k), to)
		s := ev.score(cand)
		spent++
		lateFirst = ev.completions[k] > in.pj[k].Deadline
		if mustBeOnTime && lateFirst {
			return false
		}
		o := cand
		if window > 0 {
			var used int
			o, s, used = ev.windowSearch(cand, &s, min(window, budget-spent), searchWindow, searchWindow, maxJump, nil)
			spent += used
		}
		if !s.less(best.s) {
			return false
		}
		best = best.beatenBy(slices.Clone(o), s, tag)
		return true
	}
	// The chains move the job they make late earlier on tardy jobs, and on
	// weighted tardy jobs from budgetBoundJobs (see justInTime.admit).
	unweighted := in.unweightedTardy()
	jit := justInTime{ev: ev, onTime: make([]bool, n), late: make([]bool, n), keep: make([]bool, n), out: make([]bool, n),
		cand: make([]int, n), scratch: make([]int, n), chain: make([]int, n),
		reposition: n >= budgetBoundJobs || unweighted, steps: jitChainSteps}
	if weigh {
		jit.weigh, jit.steps, jit.reposition = true, weighedChainSteps, true
		jit.alt, jit.altAt = make([]int, n), make([]float64, n)
	}
	jitSpent := 0
	// admit admits late job k just in time (none once jitBudget is spent);
	// it reports whether that beat best (best is then its answer).
	admit := func(k int) bool {
		if jitSpent >= jitBudget || spent >= budget {
			return false
		}
		o, s, used := jit.admit(best, k, budget-spent, false)
		spent += used
		jitSpent += used
		if (o == nil || !s.less(best.s)) && weigh && spent < budget {
			// The last admissions: the chain from k's place by
			// deadline (justInTime.admit with atDeadline).
			o2, s2, used := jit.admit(best, k, budget-spent, true)
			spent += used
			jitSpent += used
			if o2 != nil && s2.less(best.s) {
				o, s = o2, s2
			}
		}
		if o == nil || !s.less(best.s) {
			return false
		}
		best = best.beatenBy(o, s, tag)
		return true
	}
	for spent < budget {
		// The late jobs of best not tried yet, but the first (already at
		// the front), the earliest deadline first; and its on-time jobs
		// not yet dropped, but the last, the least weight per unit of
		// work first.
		ev.score(best.o.order)
		spent++
		late, onTime = late[:0], onTime[:0]
		for x, k := range best.o.order {
			jit.onTime[k] = ev.completions[k] <= in.pj[k].Deadline
			switch {
			case ev.completions[k] > in.pj[k].Deadline:
				if x > 0 && !tried[k] {
					late = append(late, k)
				}
			case x < n-1 && !dropped[k]:
				onTime = append(onTime, k)
			}
		}
		slices.SortStableFunc(late, func(a, b int) int { return cmp.Compare(in.pj[a].Deadline, in.pj[b].Deadline) })
		slices.SortStableFunc(onTime, func(a, b int) int {
			return cmp.Compare(in.pj[a].Weight/in.work[a], in.pj[b].Weight/in.work[b])
		})
		improved := false
		for _, k := range late {
			if spent >= budget {
				break
			}
			tried[k] = true
			if improved = move(k, 0, true) || !lateFirst && admit(k); improved {
				break
			}
		}
		// Failing every admission, a job given up makes room (dropped to
		// the back, the window search letting late jobs in).
		for x := 0; !improved && window > 0 && x < min(len(onTime), dropBackJobs) && spent < budget; x++ {
			dropped[onTime[x]] = true
			improved = move(onTime[x], n, false)
		}
		if !improved {
			break
		}
	}
	return best, spent
}

// justInTime is admitFront's admission of a late job just in time, with
// the workspace it reuses from one admission to the next.
type justInTime struct {
	ev *evaluator
	// onTime is whether each job is on time in the order admit starts
	// from (admitFront fills it in as it scores that order); late whether
	// it is late in the schedule last scored; keep whether it must be on
	// time in the chain (on time where it starts, or admitted by it); out
	// whether the chain gave it up or tried to admit it.
	onTime, late, keep, out []bool
	cand, scratch, chain    []int
	// reposition says whether the first job the chain makes late is first
	// moved earlier, to where it is on time again, before a job is given
	// up (see admit).
	reposition bool
	// steps is how many steps a chain takes (jitChainSteps, or
	// weighedChainSteps with weigh).
	steps int
	// weigh says whether a job moved earlier is weighed against a job
	// given up, the better of the two kept, and a job given up is the
	// one that scores best (see admitFront); alt and altAt keep an
	// order and its completions while another is scored.
	weigh bool
	alt   []int
	altAt []float64
}

// admit is an ejection chain from best, Moore-Hodgson's rule (FLEX 3.2
// names it for tardy jobs) in order space: late job k goes to the latest
// position where it is on time (found by bisection); then, for up to
// j.steps steps (jitChainSteps, or weighedChainSteps with weigh):
//   - while a job that must stay on time is late, that job is moved
//     earlier, to the latest position where it is on time again (once per
//     job, where reposition says so), or else a job up to it (it among
//     them, k not) is given up, moved to the back: one late where the
//     chain started if any (nothing lost; the biggest), else the one with
//     the least stake per unit of work;
//   - once none is, the late job with the earliest deadline of those that
//     can be on time at all (instance.reachable) comes in at the latest
//     position where it is on time, in the room the jobs given up left.
//
// The best order of the chain, after a window search of
// admitFrontEvaluations from it, is the answer, nil when k is late even
// first. It spends at most budget evaluations and returns how many it
// spent. j.onTime must hold which jobs are on time in best.
//
// Why: admitFront's move to the front, the exchanges (on the split shape,
// the front in key order) and the window searches (one job at a time) do
// not make the trades the best known orders make of several jobs at once,
// each at its own place in the order FLEX has refined. On seed 20's second
// setting at J = 100, instance 1 (not a seed the search was tuned on), the
// best known order has 5 tardy jobs where FLEX had 6: three jobs in (one
// small and due soon, third; two big ones, each just in time) and two big
// on-time jobs out, each of those trades worth nothing or less alone; on
// weighted tardy jobs, there, two in for one out. The chain makes those
// trades; on the unseen seed 21's base case at J = 100, instance 2, too
// (tardy jobs 6 -> 5). Measured at the default effort (docs/solver-at-scale-log.md,
// session 42), tardy jobs and weighted tardy jobs, average / worst:
// seed 20 J = 100 second setting 1.0400 / 1.200 and 1.0390 / 1.154 ->
// 1.0000 / 1.000 and 1.0023 / 1.024; seed 21 J = 100 base case, tardy
// jobs 1.0400 / 1.200 -> 1.0200 / 1.200, and second setting, weighted
// tardy jobs 1.0115 / 1.043 -> 1.0069 / 1.020 (references at effort 20);
// every other cell of seeds 20 and 21 at J = 50 and 100, of the unseen
// seeds 10 to 13 at J = 50 to 200 and of seed 1 at J = 20 to 200 the same
// within 0.0001, but weighted tardy jobs on seed 1's base case, J = 100
// 1.0007 -> 1.0026 and J = 200 1.0000 -> 1.0010. Time: 3 to 11% more at
// J = 100 and 200 (with the mends below, A/B: J = 200 about 37 and 39
// ms), up to 5% at J = 1,000.
//
// Why jobs already late are given up first: on seed 23's base case at
// J = 200, instance 0, FLEX's order had job 38 (due 0.586) late 54th,
// holding slots it could not use in time, and job 3 (498 slot-seconds,
// due 2.470) late; the best known order has 38 at the back and 3 on time,
// 35th (9 tardy jobs -> 8; that cell 1.0250 / 1.125 -> 1.0000 / 1.000).
// The two changes together, over the cells above and seeds 22 and 23 at
// J = 100 and 200: those two cells and seed 21's J = 200 base case
// (weighted tardy jobs 1.0022 -> 1.0003) better, every other the same.
//
// Why only jobs that can be on time come in: a job late even first of the
// order (its earliest completion, alone at its maximum, past its deadline)
// was the next late job by deadline all the same, and each such job took
// a step of the chain and a bisection of probes, all late. On seed 1's
// base case at J = 100, instance 4 (tardy jobs), jobs 5 and 86 (due 0.056
// and 0.238, earliest 0.30) took two of the five steps of every admission.
// Measured at the default effort (docs/solver-at-scale-log.md, session
// 50), summed excess over the best known, four seeds of the kicks:
// weighted tardy jobs at J = 100, 22 cells 0.0652 -> 0.0541, seeds 36 and
// 37 0.0077 -> 0.0036; at J = 200, seeds 26 to 29 0.0379 -> 0.0351; every
// other set of tardy jobs and weighted tardy jobs at J = 100 and 200 the
// same.
//
// Why the job made late is moved earlier first: on seed 21's base case at
// J = 100, instance 6, job 54 is on time one place earlier than in FLEX's
// order, but job 66 behind it then misses; the best known order has both
// on time (6 tardy jobs -> 5; that cell 1.0200 / 1.200 -> 1.0000 / 1.000).
// Over the cells above: on tardy jobs that cell better and seed 21's J =
// 200 base case 1.0000 -> 0.9596 (below the reference), the others the
// same; on weighted tardy jobs at J = 200 every cell the same or lower
// (seed 20's base case 1.0006 -> 0.9881, seed 23's 1.0000 -> 0.9888, the
// unseen second setting 1.0000 -> 0.9982, seed 1's base case 1.0010 ->
// 1.0000), but at J = 100 seed 21's second setting 1.0069 -> 1.0115 and
// seed 23's base case 1.0056 -> 1.0092: so for weighted tardy jobs only
// from budgetBoundJobs.
//
// With atDeadline the chain starts with k before the first job on time in
// best that is due after it, rather than at the latest place where it is
// on time (no chain when that job is not ahead of k). Why: a big job just
// in time holds the slots the jobs due soon after it need, and the chain
// then gives up or moves one of them at each step. The last admissions
// try this place where the latest one does not pay. On seed 43's base
// case at J = 100, instance 5, it has 4 tardy jobs, the best known, where
// every search of FLEX's before it had 5 (at efforts 1 to 4).
func (j *justInTime) admit(best scoredOrder, k, budget int, atDeadline bool) ([]int, score, int) {
	ev := j.ev
	in := ev.in
	n := len(best.o.order)
	// The schedules built in full, and the events of the probes for the
	// latest position where a job is on time (latestOnTime), which start
	// from best's recording where they stop early.
	full, events := 0, 0
	if ev.partialProbes() {
		full++
		ev.evaluations++
		ev.setBase(best.o.order)
	}
	spent := func() int { return full + (events+n-1)/n }
	scored := func(o []int) score {
		full++
		return ev.score(o)
	}
	// latest moves job x in o to the latest position where it is on time,
	// into j.cand, and scores it there; false when x is late even first
	// or the budget is spent.
	latest := func(o []int, x int) (score, bool) {
		at, used := ev.latestOnTime(j.cand, o, x, budget-spent())
		events += used
		if at < 0 || spent() >= budget {
			return score{}, false
		}
		moveTo(j.cand, o, slices.Index(o, x), at)
		return scored(j.cand), true
	}
	// earlier moves job x of the chain's order to the latest position
	// where it is on time, marking it out; where it cannot be, the order
	// stays as it was (scored again).
	earlier := func(x int) (score, bool) {
		j.out[x] = true
		copy(j.scratch, j.cand)
		s, ok := latest(j.scratch, x)
		if !ok {
			copy(j.cand, j.scratch)
			scored(j.cand)
		}
		return s, ok
	}
	copy(j.keep, j.onTime)
	clear(j.out)
	var s score
	var ok bool
	if atDeadline {
		i := slices.Index(best.o.order, k)
		to := slices.IndexFunc(best.o.order, func(x int) bool {
			return x != k && j.onTime[x] && in.pj[x].Deadline > in.pj[k].Deadline
		})
		if to < 0 || to >= i {
			return nil, score{}, spent()
		}
		moveTo(j.cand, best.o.order, i, to)
		s, ok = scored(j.cand), true
	} else {
		s, ok = latest(best.o.order, k)
	}
	if !ok {
		return nil, score{}, spent()
	}
	j.keep[k], j.out[k] = true, true
	copy(j.chain, j.cand)
	chainS := s
	for range j.steps {
		if spent() >= budget {
			break
		}
		for _, x := range j.cand {
			j.late[x] = ev.completions[x] > in.pj[x].Deadline
		}
		first := slices.IndexFunc(j.cand, func(x int) bool { return j.late[x] && j.keep[x] })
		if first < 0 {
			// Room: the next late job, the earliest deadline first, of
			// those that can be on time at all.
			next := -1
			for _, x := range j.cand {
				if j.late[x] && !j.out[x] && in.reachable(x, in.pj[x].Deadline) &&
					(next < 0 || in.pj[x].Deadline < in.pj[next].Deadline) {
					next = x
				}
			}
			if next < 0 {
				break
			}
			if s, ok = earlier(next); !ok {
				// Late even first after all (MPS's rounding), or the
				// budget spent: the chain goes on from where it was.
				continue
			}
			j.keep[next] = true
		} else {
			// The first job made late moved earlier, to where it is on
			// time again, once; where it cannot be, a job given up.
			// With weigh, both, and the better kept (the move among
			// equals).
			moved := false
			if x := j.cand[first]; j.reposition && x != k && !j.out[x] {
				if j.weigh {
					copy(j.alt, j.cand)
				}
				s, moved = earlier(x)
				if moved && j.weigh && spent() < budget {
					s = j.weighDrop(x, first, k, s, scored)
				}
			}
			if !moved && j.weigh {
				drop, t := j.bestDrop(first, k, func() bool { return spent() < budget }, scored)
				if drop < 0 {
					break
				}
				j.keep[drop], j.out[drop] = false, true
				s = t
			} else if !moved {
				drop := j.drop(first, k)
				if drop < 0 {
					break
				}
				j.keep[drop], j.out[drop] = false, true
				copy(j.scratch, j.cand)
				moveTo(j.cand, j.scratch, slices.Index(j.scratch, drop), n)
				s = scored(j.cand)
			}
		}
		if s.less(chainS) {
			copy(j.chain, j.cand)
			chainS = s
		}
	}
	o, s := slices.Clone(j.chain), chainS
	if left := budget - spent(); left > 0 {
		var used int
		o, s, used = ev.windowSearch(o, &chainS, min(admitFrontEvaluations, left), searchWindow, searchWindow, maxJump, nil)
		full += used
	}
	return o, s, spent()
}

// drop is the job the chain gives up when the job at position first of
// j.cand must be on time and is not: of the jobs up to it, k (the job the
// chain admits) and the jobs it gave up aside, one late where the chain
// started if any (nothing lost; the biggest), else the one with the least
// stake per unit of work; -1 if there is none.
func (j *justInTime) drop(first, k int) int {
	in := j.ev.in
	loss := func(x int) float64 {
		if !j.keep[x] {
			return -in.work[x]
		}
		return in.stake(x) / in.work[x]
	}
	drop := -1
	for _, x := range j.cand[:first+1] {
		if x == k || j.out[x] && !j.keep[x] {
			continue
		}
		if drop < 0 || loss(x) < loss(drop) {
			drop = x
		}
	}
	return drop
}

// bestDrop is the job given up where a chain of the last admissions
// (justInTime.weigh) must give one up, the job at position first of j.cand
// being late: of the jobs drop would choose from, the one whose order
// without it scores best (the first among equals), each scored while more
// returns true; -1 if none was. j.cand and ev.completions are then that
// order's, and its score is returned.
//
// Why the score rather than drop's rule: the rule looks at the job given
// up alone, the score at what its room does for the jobs behind it. Beside
// the moves to earlier places that the last admissions make at every size
// (on weighted tardy jobs the chains before them do from budgetBoundJobs
// only), weighted tardy jobs at J = 100 went from 0.1133 to 0.0314 summed
// excess over 50 cells (docs/solver-at-scale-log.md, session 53).
func (j *justInTime) bestDrop(first, k int, more func() bool, scored func([]int) score) (int, score) {
	ev := j.ev
	n := len(j.cand)
	copy(j.scratch, j.cand)
	best, bestS := -1, score{}
	for _, x := range j.scratch[:first+1] {
		if x == k || j.out[x] && !j.keep[x] {
			continue
		}
		if !more() {
			break
		}
		moveTo(j.cand, j.scratch, slices.Index(j.scratch, x), n)
		if t := scored(j.cand); best < 0 || t.less(bestS) {
			best, bestS = x, t
			copy(j.alt, j.cand)
			copy(j.altAt, ev.completions)
		}
	}
	if best < 0 {
		copy(j.cand, j.scratch)
		return -1, score{}
	}
	copy(j.cand, j.alt)
	copy(ev.completions, j.altAt)
	return best, bestS
}

// weighDrop is the weighing of a chain's step (justInTime.weigh): j.cand
// holds job x, the first job the chain made late, moved earlier (scored
// s, its completions in ev.completions) and j.alt the order before that
// move, where x is late at position first. It scores j.alt with the job
// drop picks there given up instead and keeps that if it scores better:
// j.cand, ev.completions and the marks are then its, and its score is
// returned; otherwise they stay the move's and s is returned.
//
// Why: the chain moves each job it makes late earlier while it can, and
// every such move pushes the jobs between back; giving up a cheap job
// instead can leave room for all of them. On the unseen seed 45's base
// case at J = 200, instance 5 (weighted tardy jobs, 1.550 at the default
// effort, 1.289 at effort 2), the chain that admits job 167 moves jobs
// 96, 54 and 62 earlier in turn, each making the next late; giving up job
// 13 (weight 0.099) at the third step has all three on time: the best
// known value.
func (j *justInTime) weighDrop(x, first, k int, s score, scored func([]int) score) score {
	ev := j.ev
	n := len(j.cand)
	j.cand, j.alt = j.alt, j.cand // j.cand: the order before the move
	copy(j.altAt, ev.completions)
	drop := j.drop(first, k)
	if drop >= 0 {
		copy(j.scratch, j.cand)
		moveTo(j.cand, j.scratch, slices.Index(j.scratch, drop), n)
		if t := scored(j.cand); t.less(s) {
			j.out[x] = false
			j.keep[drop], j.out[drop] = false, true
			return t
		}
	}
	j.cand, j.alt = j.alt, j.cand
	copy(ev.completions, j.altAt)
	return s
}

// latestOnTime is the latest position before its own in o where job x is
// on time once moved there, -1 when it is late even first, found by
// bisection (a job moved earlier finishes no later, up to MPS's
// rounding), with dst as the workspace; and the events it is charged,
// which the caller counts as estimates are counted. It probes no more once
// it has been charged budget schedules' worth (the position then is the
// latest found on time so far). Each probe runs only until x completes or
// its deadline passes (mps.Packer.CompletionBy), from the evaluator's
// recording where the orders share a prefix, and leaves ev.completions
// partly written; it is charged the events it ran where partialProbes
// says so, a whole schedule's J otherwise (the budget spent as when each
// probe was a full schedule, so the answers are those of that search).
func (ev *evaluator) latestOnTime(dst, o []int, x, budget int) (at, events int) {
	n := len(o)
	due := ev.in.pj[x].Deadline
	if !ev.in.reachable(x, due) {
		// Late even first: no probe needed to say so.
		return -1, 0
	}
	partial := ev.partialProbes()
	cur := slices.Index(o, x)
	lo, hi := -1, cur
	for hi-lo > 1 && events < budget*n {
		mid := (lo + hi) / 2
		moveTo(dst, o, cur, mid)
		e0 := ev.packer.Events()
		ev.evaluations++
		c := ev.packer.CompletionBy(dst, x, due, ev.completions)
		if partial {
			events += max(1, ev.packer.Events()-e0)
		} else {
			events += n
		}
		if c <= due {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, events
}

// partialProbes is whether latestOnTime's probes are charged the events
// they run rather than a whole schedule each, from budgetBoundJobs.
//
// Why: admitFront's admissions, about 50 evaluations each at J = 200,
// tried 8 to 10 late jobs within their budget when the one that pays was
// the 12th (tardy jobs, seed 36's base case, instance 4: 13 tardy jobs
// against 12), and most of an admission's schedules were these probes,
// full runs for one job's completion. A probe moves a late job to where it
// is on time, near the front: it ran 1 to 60 of the 200 events there, and
// an admission cost about 28 evaluations. Measured at the default effort
// on tardy jobs and weighted tardy jobs at J = 200 (docs/solver-at-scale-
// log.md, session 50), every set of cells the same or better; at J = 100
// some cells better and some worse (seed 23's base case, weighted tardy
// jobs, 1.0056 -> 1.0092: an admission that pays sooner leads elsewhere),
// so below budgetBoundJobs each probe is charged as a full run, as it was
// (it still stops early: the same answers in less time).
func (ev *evaluator) partialProbes() bool { return len(ev.in.jobs) >= budgetBoundJobs }

// jitChainSteps is how many jobs justInTime.admit gives up or admits after
// the first: with 3, seed 20's weighted tardy jobs instance above stays at
// 2.309 (the best known 2.001), with 5 it goes to 1.976; 7 lost its tardy
// jobs instance again (6) and took seed 21's base case at J = 100 to
// 1.0143 on weighted tardy jobs.
const jitChainSteps = 5

// weighedChainSteps is how many steps the chains of dueSearch's last
// admissions take (justInTime.weigh). With jitChainSteps the weighing
// left seed 45's instance (see weighDrop) where it was: the step that
// gives up job 13 is the sixth. 8 did as 6 on every cell of lastAdmitShare's
// measurements but one (weighted tardy jobs, J = 200, summed excess
// 0.0545 -> 0.0543 at a tenth of the budget), 5 worse (0.0763).
const weighedChainSteps = 6

// lastAdmitShare is the share of dueSearch's budget (with what it set
// aside for admitFront) that its last admissions may spend, on top of it:
// after the Moore-Hodgson pass, on sums of tardy jobs, admitFront once
// more from the answer (with weigh), its chains six steps long
// (weighedChainSteps), moving the jobs they make late earlier at every
// size, weighing each such move against a job given up (weighDrop), giving
// up the job whose order scores best without it (bestDrop), and, where the
// chain from the latest place a late job is on time does not pay, running
// from its place by deadline too (justInTime.admit's atDeadline). An
// admission is kept only if it scores better, so no answer gets worse.
// The pass ends by itself once no late job's admission pays: at J = 100
// and 200 (seeds 10 to 13, 20 and 21, both settings) it spent a median of
// 16 to 26% of the budget, 37 to 59% at the 90th percentile; a few
// instances reach the share, which also bounds it where the budget falls
// as 1/J^2 (past dueTaperJobs).
//
// Why: the admissions before it run while the search still moves the
// order, with the budget the stages share; their chains move each job
// they make late earlier rather than give up a cheap job (see weighDrop),
// and on weighted tardy jobs below budgetBoundJobs give up rather than
// move (session 42 found moving worse there, inside the search).
//
// Measured at the default effort, the kicks' default seed, summed excess
// over the best known (references at effort 20; seed 1 the committed
// ones), in three steps (docs/solver-at-scale-log.md, session 53, items 2
// to 4); J = 50, 100 and 200 read 36, 50 and 30 cells of weighted
// tardy jobs and as many of tardy jobs (seeds 1, 10 to 13, 20 to 25 and,
// by size, 38 to 41 and 44 to 46; 26, 27 and 36 to 47; 44 to 47, both
// settings):
//
//	                          weighted tardy jobs        tardy jobs
//	                          J = 50   100     200      100     200
//	the build before          0.0267   0.1277  0.0889   0.0625  0.0393
//	weighing, 0.4             0.0253   0.1133  0.0381   0.0375  0.0316
//	+ earlier moves, bestDrop 0.0197   0.0314  0.0381   0.0375  0.0316
//	+ atDeadline, 0.6         0.0197   0.0280  0.0351   0.0125  0.0316
//
// (tardy jobs at J = 50: 0 throughout). Seed 45's base case at J = 200
// read 1.0202 / 1.202 before, seed 43's at J = 100 1.0250 / 1.250 on tardy
// jobs; both 1.0000 since. Not used to choose anything, seeds 48 to 51 (the
// same sizes and settings, references from this build's answers): weighted
// tardy jobs at J = 100 0.0226 -> 0.0085, at J = 200 0.0287 -> 0.0195;
// tardy jobs at J = 200 0.0470 -> 0.0268; J = 50 and tardy jobs at J = 100
// the same or 0. At each step the whole budget did as the share within
// 0.0002; 0.4 with atDeadline read 0.0387 and 0.0443 on weighted tardy
// jobs at J = 100 and 200. Time, BenchmarkSolve's medians of three
// rounds, each step against the one before, the builds in turn: 1.00 to
// 1.08, 0.99 to 1.04 and 0.99 to 1.07 times (1.13, 0.99 and 1.07 at J =
// 1,000).
const lastAdmitShare = 0.6

// admitFrontShare is the share of the search's budget at scale that
// dueSearch sets aside for admitFront on tardy jobs (what it does not spend
// goes to the walks after it), and admitFrontEvaluations its window
// search after each move (see admitFront).
const (
	admitFrontShare       = 1.0 / 16
	admitFrontEvaluations = 15
)

// dropBackJobs is how many on-time jobs admitFront drops to the back, one
// at a time, when no late job it admits pays (see admitFront).
const dropBackJobs = 10

// admitEvaluations is admitPushed's budget, beside the last exchanges (below
// budgetBoundJobs): about as much as those spend at J = 50, so that the
// walks after them keep theirs (counted as time goes: the larger of the
// two). Uncapped, it fixed the committed J = 50 instance it is for but
// took from the walks the evaluations an unseen one needed (seed 10,
// J = 50, instance 6: 1.063 -> 1.150).
const admitEvaluations = 150

// admitRepair brings late jobs into from's on-time set and repairs it, the
// weighted form of Moore-Hodgson's rule (FLEX 3.2 names Moore-Hodgson for
// tardy jobs) with MPS as the judge: each late job that can still make its
// deadline, the most stake first, comes in at its place in the best order
// so far by deadline plus work / S (the tardy keys' jit order; against the
// deadline's place, the summed excess of the six unseen cells went from
// 0.0097 to 0.0065 on weighted tardy jobs and from 0.0076 to 0.0054 on
// tardy jobs); then, while a front job is late, the cheapest front job
// (repairCost) of those up to the first late one leaves, unless what
// leaves would be worth as much as what came in or more than repairDrops
// jobs would have to. The repaired set, in that order and the given-up
// jobs in back order, is kept when it scores better; when it does not,
// the repair is tried again under repairCost's second rule. Passes repeat
// while one pays. It returns the best order found, or from, and the
// evaluations spent (one full schedule per job tried and per job given
// up; it takes no further job once it has spent budget).
//
// Why: swapSearch's exchanges give up at most two front jobs for one, and
// the best known orders give up more. On the unseen seed 12, J = 200,
// instance 2 (weighted tardy jobs), FLEX at effort 16 finds 1.680 where
// the default effort stopped at 1.989: job 171 (weight 0.49) on time,
// three jobs of weight 0.04 to 0.08 late in its place. A repair costs a
// few dozen schedules a solve (about 8 late jobs tried, J = 100 and 200).
// On tardy jobs unweighted it only admits: one job given up is worth one
// that comes in.
func (ev *evaluator) admitRepair(from scoredOrder, back []int, budget int) (scoredOrder, int) {
	in := ev.in
	n := len(in.jobs)
	best, spent := from, 0
	front := ev.onTimeSet(from.o.order)
	spent++
	with, cand, due, late := make([]bool, n), make([]int, n), make([]int, 0, n), make([]int, 0, n)
	for improved := true; improved && spent < budget; {
		improved = false
		late = in.lateByStake(late[:0], front)
		for _, l := range late {
			if spent >= budget {
				break
			}
			if front[l] {
				continue
			}
			// The best order with l before the first front job due
			// after it in the keys' jit order (jitDue).
			due = due[:0]
			placed := false
			for _, k := range best.o.order {
				if k == l {
					continue
				}
				if !placed && front[k] && in.jitDue(k) > in.jitDue(l) {
					due = append(due, l)
					placed = true
				}
				due = append(due, k)
			}
			if !placed {
				due = append(due, l)
			}
			for rule := range repairRules {
				if front[l] {
					break // the first rule's repair paid
				}
				copy(with, front)
				with[l] = true
				given := 0.0
				for drops := 0; drops <= repairDrops && spent < budget; drops++ {
					buildSplit(cand, with, due, back)
					s := ev.score(cand)
					spent++
					first := -1
					for x, k := range cand {
						if !with[k] {
							break
						}
						if in.fn[k].At(ev.completions[k]) > 0 {
							first = x
							break
						}
					}
					if first < 0 {
						if s.less(best.s) {
							best = scoredOrder{ordering{strings.TrimSuffix(best.o.scheme, "+repair") + "+repair", slices.Clone(cand)}, s}
							copy(front, with)
							improved = true
						}
						break
					}
					drop, dropV := -1, 0.0
					for _, k := range cand[:first+1] {
						if v := repairCost(in.stake(k), in.work[k], rule); k != l && (drop < 0 || v < dropV) {
							drop, dropV = k, v
						}
					}
					if drop < 0 || given+in.stake(drop) >= in.stake(l) {
						break
					}
					with[drop] = false
					given += in.stake(drop)
				}
			}
		}
	}
	return best, spent
}

// repairCost is what giving up a job costs under a repair's rule (0 or 1),
// from what the job stands to lose (loss) and its work; the cheapest
// leaves, or, on SLA targets (repairTarget), moves a step later. Rule 0 is
// the loss per unit of work
// (Moore-Hodgson's rule, which gives up the longest job, weighted); where
// a repair by it does not pay, rule 1 is the stake alone. Measured at the
// default effort, weighted tardy jobs on the unseen seeds 10 to 13 (J =
// 50, 100, 200, both settings) against references searched again from
// this build's answers, summed excess of the six cells: the first alone
// 0.0146 (J = 200 base case 1.0051, one instance at 1.184), the second
// alone 0.0163 (1.0058, worst 1.085), both 0.0097 (1.0006, worst 1.051);
// seeds 7 to 9, J = 100 and 200, lower with both in 2 cells of 6 and the
// same in the others.
func repairCost(loss, work float64, rule int) float64 {
	if rule == 0 {
		return loss / work
	}
	return loss
}

// repairRules is how many rules repairCost has.
const repairRules = 2

// repairDrops is how many front jobs admitRepair gives up at most for one
// that comes in. Measured at the default effort, weighted tardy jobs on the
// unseen seeds 10 to 13 (J = 50, 100, 200, both settings), summed excess
// over references searched again from this build's answers: with one
// repair after the keys and the deadline's place, 2 did 0.0250, 4 and 8
// 0.0200; as the repairs are now (two rules, the jit place), 4 did 0.0065,
// 8 and 16 0.0049 (J = 200 second setting 1.0001 -> 0.9996, committed
// 1.007 -> 1.002), and on seeds 7 to 9 seed 9 at J = 100 went from 1.0014
// to 0.930 (one instance 0.644 of its reference), seed 8 at J = 200 from
// 0.9941 to 0.9994.
const repairDrops = 8

// repairEvaluations bounds each admitRepair's spending, beside the stage's
// budget: it runs where that budget is often spent (at J = 200 window
// search beside the exchanges takes what the keys leave), and spends a
// few dozen schedules. Past dueTaperJobs, where the whole budget falls as
// 1/J^2, a repair gets at most what a key's exchanges get.
const repairEvaluations = 100

// pushLate returns due with the top front jobs with the most work (of
// those in sel; nil: every front job) each moved to the latest place where
// the split order (buildSplit) still finishes it on time, when that scores
// no worse, the score of the split order of the due it returns, and the
// evaluations it spent (full schedules: about top x
// log2 J; it takes no further job once it has spent limit). A job's
// completion only comes later as it moves back, so a binary search finds
// the place.
//
// Why: in the best known orders the big jobs finish just before their
// deadlines, behind small jobs due later that would go late behind them
// (see the keys in dueSearch). The keys' order, deadline plus work / S,
// puts them about there in one sort; this puts them there exactly, for the
// set at hand, and the exchanges after it bring in what the room made
// fits. On the unseen seed 12, J = 50, instance 8 (weighted tardy jobs),
// the best known order's on-time set in deadline order scores 1.508; with
// its 5 biggest jobs pushed it is the best known order itself (0.553), and
// the exchanges from FLEX's own set get there after the push (0.702 before).
func (ev *evaluator) pushLate(front, sel []bool, due, back []int, top, limit int) ([]int, score, int) {
	in := ev.in
	n := len(due)
	due = slices.Clone(due)
	cand, moved := make([]int, n), make([]int, 0, n)
	spent := 0
	scoreOf := func(d []int) score {
		buildSplit(cand, front, d, back)
		spent++
		return ev.score(cand)
	}
	cur := scoreOf(due)
	// try scores due with job k moved from i to pos (into moved) and
	// reports whether k is on time there.
	try := func(k, i, pos int) (bool, score) {
		moved = append(moved[:0], due...)
		moved = slices.Insert(slices.Delete(moved, i, i+1), pos, k)
		s := scoreOf(moved)
		return in.fn[k].At(ev.completions[k]) <= 0, s
	}
	tried := 0
	for _, k := range mostWorkFirst(identity(n), in.work) {
		if tried == top || spent >= limit {
			break
		}
		if !front[k] || sel != nil && !sel[k] {
			continue
		}
		tried++
		i := slices.Index(due, k)
		lo, hi := i, n-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if onTime, _ := try(k, i, mid); onTime {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		if lo == i {
			continue
		}
		if _, s := try(k, i, lo); !cur.less(s) {
			copy(due, moved)
			cur = s
		}
	}
	return due, cur, spent
}

// pushLateJobs is how many jobs pushLate moves, below budgetBoundJobs (from
// there the budget has no room for it, and it did worse at J = 200).
// Measured at the default effort, weighted tardy jobs, unseen seeds 10 to
// 13: summed excess over six cells -0.021 -> -0.026 with 5 (J = 50 base
// 1.009 / 1.269 -> 1.002 / 1.063, J = 100 second 1.001 -> 1.002), -0.025
// with 20; committed references and tardy jobs the same
// (docs/solver-at-scale-log.md).
const pushLateJobs = 5

// dueKey is a due order of split search: a scheme name and the key the
// front set is sorted by.
type dueKey struct {
	scheme string
	due    func(k int) float64
	// front is the set the search starts from; nil: the best order's
	// on-time set.
	front []bool
}

// exchangeKeys is dueSearch's first stage on sums of tardy jobs: for each
// key, split search from the on-time set, then exchanges (swapSearch) from
// where it ends. The keys do not depend on each other, so they run at
// once, each after the first on an evaluator of its own, and their results
// are taken in key order: the answer and the budget spent are what running
// them one after the other gives (TestExchangeKeysInParallel), in less
// time on two cores (at J = 100 the whole solve takes about a fifth less).
// It returns the best order and the evaluations spent, best and spent
// included: both keys' up to budgetBoundJobs jobs, the larger from there.
//
// Why the larger from budgetBoundJobs: counting both, at J = 200 the two
// searches spent the whole budget on two cores and the stages after them
// (exchanges from the best set, window search) never ran. Counting the
// larger, as the time goes, gives those stages half of it, in 1.42 times
// the time (28 -> 39 ms, bar 60): tardy jobs at J = 200 1.025 -> 1.000 of
// the best known, weighted 1.048 -> 1.016, unseen seeds 7 to 9 1.018 /
// 1.041 / 1.018 -> 0.998 / 1.019 / 1.004 (docs/solver-at-scale-log.md). At
// J = 100, where the bar is 20 ms, the solve would take about 1.4 times
// its 15 to 17 ms.
//
// On tardy jobs unweighted, below budgetBoundJobs, the keys share one
// key's budget instead (each gets 1 / len(keys) of it): there an exchange
// of one job for another changes no count, only the slack the order
// leaves (the tie-breaker), and the keys' searches spent the whole budget
// on it, so that window search and the admissions after them (which find
// the count one lower) never ran. Measured at the default effort against
// references searched again from this build's answers, J = 100: unseen
// seeds 10 to 13, base case, 1.0104 -> 1.0000 of the best known (worst
// 1.167 -> 1.000: three instances had one tardy job more than the best
// known, 7 against 6, 9 against 8), second setting 1.0050 either way;
// seeds 14 to 19, 1.0024 -> 1.0000 (worst 1.143 -> 1.000) and 1.0058 ->
// 1.0091 (one instance 10 -> 11 tardy jobs); seeds 7 to 9 and the
// committed references (J = 20 to 100) the same. On weighted tardy jobs
// the exchanges pay in weight: a half or a third of the budget per key
// took seed 9 from 1.003 to 1.030 (one instance 1.015 -> 1.149)
// (docs/solver-at-scale-log.md).
func (ev *evaluator) exchangeKeys(keys []dueKey, onTime []bool, back []int, best scoredOrder, spent, budget int) (scoredOrder, int) {
	type result struct {
		split, swap   []int
		splitS, swapS score
		used          int
		repaired      bool
	}
	res := make([]result, len(keys))
	keyBudget := budget
	if len(onTime) < budgetBoundJobs && ev.in.unweightedTardy() {
		keyBudget = budget / len(keys)
	}
	run := func(e *evaluator, x int) {
		front := slices.Clone(onTime)
		if keys[x].front != nil {
			front = slices.Clone(keys[x].front)
		}
		due := sortedBy(len(onTime), keys[x].due)
		r := &res[x]
		var used int
		r.split, r.splitS, r.used = e.splitSearch(front, due, back, keyBudget/(2*splitShare))
		r.swap, r.swapS, used = e.swapSearch(front, due, back, keyBudget/(2*swapShare))
		r.used += used
		// Each key's exchanges end with a repair (admitRepair) of their set.
		repaired, used := e.admitRepair(scoredOrder{ordering{"", r.swap}, r.swapS}, back, min(repairEvaluations, keyBudget/(2*swapShare)))
		r.swap, r.swapS, r.repaired = repaired.o.order, repaired.s, repaired.s.less(r.swapS)
		r.used += used
	}
	ev.atOnce(len(keys), run)
	// From budgetBoundJobs jobs the keys' searches count once, as their
	// time does (see above).
	once, most := len(ev.in.jobs) >= budgetBoundJobs, 0
	for x, key := range keys {
		r := &res[x]
		if r.splitS.less(best.s) {
			best = scoredOrder{ordering{key.scheme, r.split}, r.splitS}
		}
		if r.swapS.less(best.s) {
			scheme := key.scheme + "+swap"
			if r.repaired {
				scheme += "+repair"
			}
			best = scoredOrder{ordering{scheme, r.swap}, r.swapS}
		}
		if once {
			most = max(most, r.used)
		} else {
			spent += r.used
		}
	}
	return best, spent + most
}

// jitExchanges runs the exchanges (swapSearch) from the on-time set of
// from under the jit key (instance.jitDue), within budget, and returns
// their order if it lowers the objective itself, from otherwise, with the
// evaluations spent. On the tie-breaker alone it is not taken: dueSearch
// runs it beside the exchanges under the deadline key (exchangesBeside),
// and an order that only ties their count sent the stages after them
// elsewhere. Taken on the tie-breaker too, the 22 cells at J = 200 of
// docs/solver-at-scale-log.md (session 44) read the same, but on seed
// 27's base case (a seed no choice was made on) one instance went from
// the best known 8 tardy jobs to 9.
func (ev *evaluator) jitExchanges(from scoredOrder, back []int, budget int) (scoredOrder, int) {
	n := len(from.o.order)
	o, s, used := ev.swapSearch(ev.onTimeSet(from.o.order), sortedBy(n, ev.in.jitDue), back, budget)
	if cmpTol(s.value, from.s.value) < 0 {
		return scoredOrder{ordering{from.o.scheme + "+jitswap", o}, s}, used
	}
	return from, used
}

// splitShare and splitILSShare: each of the two split searches may spend
// 1/(2 splitShare) of the budget on its descent and 1/(2 splitILSShare) on
// iterating it (on sums of tardy jobs, 1/(2 swapShare) on exchanges
// instead; on SLA cost the iterated level search has the rest); window
// search has the rest.
const (
	splitShare    = 2
	splitILSShare = 3
	swapShare     = 2
)

// swapSearch is split search (same shape of order: a front set in due
// order, then the others in back order) with compound moves, for sums of
// tardy jobs: a late job comes into the front while one front job goes out;
// failing any, a late job comes in while two front jobs due before it and
// worth less together go out; failing any, a late job comes in while a
// big front job (screenBigFront), due at any time, and a cheap one due
// before it go out; failing any, two late jobs come in for one front job
// due before either and worth less than the two. Single flips, all split search has,
// cannot make such an exchange when the incoming job fits only once another
// leaves: each half alone is worse. On the FLEX 4.1 base case at J = 100
// (instance 9 of the committed reference set) split search stops at a
// weighted tardy jobs of 1.280 where one exchange, in a job of weight 0.34
// for one of 0.13, gives 1.071. A pass costs about late x J schedules for
// the one-for-one exchanges; the stake bounds keep the others to a few
// times that. Each pass first screens the likeliest one-for-one exchanges
// (screenFront). front is updated in place.
func (ev *evaluator) swapSearch(front []bool, due, back []int, budget int) ([]int, score, int) {
	in := ev.in
	n := len(due)
	cand := make([]int, n)
	build := func() { buildSplit(cand, front, due, back) }
	// A job late even alone at its maximum from now is never worth
	// bringing in, nor keeping in: it would hold the front's slots for
	// nothing.
	hopeless := make([]bool, n)
	for k := range hopeless {
		hopeless[k] = in.fn[k].At(in.earliest(k)) > 0
		front[k] = front[k] && !hopeless[k]
	}
	build()
	inc := ev.newIncumbent(cand, nil)
	inc.full++
	try := func() bool {
		build()
		p, q := changedSpan(cand, inc.order)
		return p < q && inc.try(cand, p, q)
	}
	// giveUp tries the front without job o: kept if it pays, undone if
	// not.
	giveUp := func(o int) bool {
		front[o] = false
		if try() {
			return true
		}
		front[o] = true
		return false
	}
	// Front jobs by stake, least first: the cheapest to give up are tried
	// first, and the loops stop once a stake passes the bound.
	byStake := sortedBy(n, in.stake)
	dueAt := make([]float64, n)
	for _, k := range due {
		dueAt[k] = in.reachableDue(k)
	}
	late := make([]int, 0, n)
	byWork := mostWorkFirst(byStake, in.work)
	cands, bigs := make([]int, 0, n), make([]int, 0, n)
	screened := map[[2]int]bool{}
	for improved := true; improved && inc.spent() < budget; {
		improved = false
		// Recording the incumbent again gives each job's penalty in it
		// (basePen) and a fresh recording for the moves' estimates.
		inc.record()
		inc.full++
		late = late[:0]
		for _, k := range byStake {
			if ev.basePen[k] > 0 && !hopeless[k] {
				late = append(late, k)
			}
		}
		// The most valuable late jobs first.
		slices.Reverse(late)
		// Screening: each late job in turn against the screenFront front
		// jobs due no later than it with the most work, before the full
		// loops, which give the first late jobs every front job.
		clear(screened)
	screen:
		for _, l := range late {
			wasFront := front[l]
			front[l] = true
			for _, o := range screenCandidates(byWork, front, dueAt, dueAt[l], screenFront, cands, l) {
				if inc.spent() >= budget {
					break
				}
				screened[[2]int{l, o}] = true
				if giveUp(o) {
					improved = true
					break screen
				}
			}
			front[l] = wasFront
		}
		// Past budgetBoundJobs the full loops below never reach their last
		// stage, two late jobs in for one: screen those trades too, each
		// pair of late jobs against the few front jobs with the most work
		// due no later than the later of the two.
		if !improved && n >= budgetBoundJobs {
		screenPairs:
			for a, l := range late {
				for _, l2 := range late[a+1:] {
					wa, wb := front[l], front[l2]
					front[l], front[l2] = true, true
					due := max(dueAt[l], dueAt[l2])
					for _, o := range screenCandidates(byWork, front, dueAt, due, screenPairFront, cands, l, l2) {
						if inc.spent() >= budget {
							front[l], front[l2] = wa, wb
							break screenPairs
						}
						if in.stake(o) >= in.stake(l)+in.stake(l2) {
							continue
						}
						if giveUp(o) {
							improved = true
							break screenPairs
						}
					}
					front[l], front[l2] = wa, wb
				}
			}
		}
		// Exchanges of one for one, then of one for two jobs due before it.
		for pairs := 0; pairs < 2 && !improved; pairs++ {
		moves:
			for _, l := range late {
				wasFront := front[l]
				front[l] = true
				for x, o := range byStake {
					if inc.spent() >= budget || pairs == 1 && in.stake(o) >= in.stake(l) {
						break
					}
					if o == l || !front[o] || (pairs == 1 && dueAt[o] > dueAt[l]) || pairs == 0 && screened[[2]int{l, o}] {
						continue
					}
					front[o] = false
					if pairs == 0 {
						if try() {
							improved = true
							break moves
						}
					} else {
						for _, o2 := range byStake[x+1:] {
							if inc.spent() >= budget || in.stake(o)+in.stake(o2) >= in.stake(l) {
								break
							}
							if o2 == l || !front[o2] || dueAt[o2] > dueAt[l] {
								continue
							}
							if giveUp(o2) {
								improved = true
								break moves
							}
						}
					}
					front[o] = true
				}
				front[l] = wasFront
			}
		}
		// One late job in for two front jobs out: one of the few with the
		// most work, due at any time, and one of the least stake due no
		// later than the late job.
		if !improved {
		screenBig:
			for _, l := range late {
				wasFront := front[l]
				front[l] = true
				bigs = bigs[:0]
				for _, o2 := range byWork {
					if len(bigs) == screenBigFront {
						break
					}
					if front[o2] && o2 != l && in.stake(o2) < in.stake(l) {
						bigs = append(bigs, o2)
					}
				}
				for _, o2 := range bigs {
					front[o2] = false
					for _, o := range screenCandidates(byStake, front, dueAt, dueAt[l], screenFront, cands, l, o2) {
						if inc.spent() >= budget || in.stake(o)+in.stake(o2) >= in.stake(l) {
							break
						}
						if giveUp(o) {
							improved = true
							break screenBig
						}
					}
					front[o2] = true
					if inc.spent() >= budget {
						front[l] = wasFront
						break screenBig
					}
				}
				front[l] = wasFront
			}
		}
		// Two given-up jobs in for one front job due no later than either.
		if !improved {
		pairsIn:
			for a, l := range late {
				for _, l2 := range late[a+1:] {
					wa, wb := front[l], front[l2]
					front[l], front[l2] = true, true
					for _, o := range byStake {
						if inc.spent() >= budget || in.stake(o) >= in.stake(l)+in.stake(l2) {
							break
						}
						if o == l || o == l2 || !front[o] || dueAt[o] > max(dueAt[l], dueAt[l2]) {
							continue
						}
						if giveUp(o) {
							improved = true
							break pairsIn
						}
					}
					front[l], front[l2] = wa, wb
				}
			}
		}
	}
	return inc.result()
}

// screenBigFront is how many front jobs swapSearch's one-for-two trades with
// a big job try: the front jobs with the most work that stake less than the
// late job, due at any time, each beside the screenFront front jobs of the
// least stake due no later than it. The big job is the one that holds the
// slots: on the committed base case at J = 100, instance 8, late job 2 fits
// once a cheap job due before it leaves, but then job 33 (349 units of
// work, due after it) takes every slot at its turn and 13 front jobs after
// it go late; with both out, the split order is the best known (weighted
// tardy jobs 0.815 -> 0.734). The one-for-two trades before only give up
// jobs due before the late one. Measured at the default effort: committed
// references J = 100 base case 1.016 / 1.111 -> 1.005 / 1.024 (average /
// worst), every other cell the same; unseen seeds 10 to 13, summed excess
// of six cells 0.047 -> 0.041; tardy jobs the same. 5 moved one committed
// instance into another basin (1.000 -> 1.151); docs/solver-at-scale-log.md.
// Since the keys put big jobs just in time (dueSearch) it adds little:
// without it, the unseen seeds' summed excess is -0.0257 against -0.0263,
// the committed cells the same.
const screenBigFront = 3

// screenFront is how many front jobs swapSearch's screening tries to give
// up for each late job before its full loops. At J = 200 a one-for-one
// exchange moves a job between the front and the back and its estimate
// runs about 150 events, so the budget ends before the first pass of the
// full loops does: they give the first two or three late jobs every front
// job and never reach the others. The screening gives every late job its
// likeliest partners first, the front jobs due no later than it with the
// most work (Moore-Hodgson's choice: giving up the longest job ahead makes
// the most room). Measured at the default effort on the committed
// references (J = 20 to 200, both settings) and the unseen seeds (7 to 9
// at J = 100 and 200), tardy jobs and weighted tardy jobs, excess over the
// best known summed over the 28 cells: 0.595 without, 0.517 / 0.478 /
// 0.438 / 0.434 / 0.428 / 0.446 with 1 / 2 / 5 / 8 / 12 / 20 partners,
// 0.483 with every front job due before (docs/solver-at-scale-log.md).
const screenFront = 8

// screenPairFront is how many front jobs swapSearch's screening of
// two-for-one trades (past budgetBoundJobs) tries to give up for each pair
// of late jobs: the front jobs due no later than the later of the two, the
// most work first. At J = 200, summed excess over the best known of tardy
// jobs and weighted tardy jobs on 14 cells (base case and second setting,
// unseen seeds 7 to 9), 0.434 -> 0.322: tardy jobs in the base case
// 1.045 -> 1.025, seeds 8 and 9 1.074 / 1.070 -> 1.056 / 1.014; weighted
// 1.070 -> 1.049, seeds 8 and 9 1.045 / 1.037 -> 1.043 / 1.028; seed 7
// weighted 1.014 -> 1.028 (docs/solver-at-scale-log.md).
const screenPairFront = 3

// mostWorkFirst is order sorted by work, the most first, ties kept in
// order's order: the order in which screenCandidates offers jobs.
func mostWorkFirst(order []int, work []float64) []int {
	o := slices.Clone(order)
	slices.SortStableFunc(o, func(a, b int) int { return cmp.Compare(work[b], work[a]) })
	return o
}

// screenCandidates writes into buf and returns the first k jobs of byWork
// (mostWorkFirst's order) that are in front, due no later than due (by
// dueAt) and not among except.
func screenCandidates(byWork []int, front []bool, dueAt []float64, due float64, k int, buf []int, except ...int) []int {
	buf = buf[:0]
	for _, o := range byWork {
		if len(buf) == k {
			break
		}
		if front[o] && dueAt[o] <= due && !slices.Contains(except, o) {
			buf = append(buf, o)
		}
	}
	return buf
}

// onTimeSet reports which jobs order schedules with no penalty.
func (ev *evaluator) onTimeSet(order []int) []bool {
	ev.score(order)
	on := make([]bool, len(order))
	for k := range on {
		on[k] = ev.in.fn[k].At(ev.completions[k]) <= 0
	}
	return on
}

// buildSplit writes into cand the jobs of front in due order, then the
// others in back order: the shape of split search's orders.
func buildSplit(cand []int, front []bool, due, back []int) {
	x := 0
	for _, k := range due {
		if front[k] {
			cand[x] = k
			x++
		}
	}
	for _, k := range back {
		if !front[k] {
			cand[x] = k
			x++
		}
	}
}
