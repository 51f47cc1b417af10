package solver

// Split search and the exchanges of tardy jobs (items 1 and 2 of
// docs/solver-at-scale.md): orders of one shape, a front set in due order
// and the rest in Smith order, searched by flipping jobs between the sets,
// by one-for-one, two-for-one and one-for-two exchanges under due keys, and
// by admissions of late jobs (to the front, with pushes, with repairs that
// push the cheapest ones out; their chains just in time are in chains.go).

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
