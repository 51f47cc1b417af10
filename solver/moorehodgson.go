package solver

import "slices"

// mooreHodgsonPass is the last stage of dueSearch on sums of tardy jobs:
// Moore-Hodgson's rule (FLEX 3.2 names it for tardy jobs; instance.
// mooreHodgson is its single-machine form) with MPS as the judge, from
// best's on-time set. In order of each key in turn, every job not in the
// set that can be on time (instance.reachable) joins it, the set in key
// order and the other jobs after it in back order (split search's shape,
// buildSplit); while a job of the set is late, the set gives up the job
// with the least stake per unit of work (repairCost's first rule, the
// rule admitRepair's repairs start with) among those up to the first late
// one, which may be the one that joined. Giving up the longest job costs
// one job (on tardy jobs unweighted the count never rises) and leaves the
// most room to the jobs considered after it. Each key starts again from
// the on-time set of the best order so far; the best order found is the
// answer if it beats best, best otherwise. One schedule per job that joins
// or leaves, and one for the on-time set and one for the answer under each
// key, on top of the search's budget: about 20 a solve at J = 100 and 26
// at J = 200 on the FLEX 4.1 base case, a few tenths of a millisecond. It
// stops joining jobs once it has spent budget schedules (dueSearch gives
// it mooreHodgsonShare of its own): the late jobs grow with J, and each
// schedule costs about J log J.
//
// Why: the searches before it give up jobs one or two at a time
// (swapSearch's trades, the admissions' chains) and judge each step by its
// score, where Moore-Hodgson gives up the longest job even when that
// changes nothing yet. On the unseen seed 13's second setting at J = 100,
// instance 3, FLEX ended at 11 tardy jobs at efforts 1 and 1.3 times the
// budget where the pass finds the best known 10. Measured at the default
// effort, the kicks' default seed, summed excess over the best known of
// 26 cells at J = 100 (seeds 1, 10 to 13, 20 to 25, 42 and 43, both
// settings; references at effort 20): tardy jobs 0.0450 -> 0.0250 (cells
// past 1% 2 -> 1), weighted tardy jobs 0.0767 -> 0.0650 (1 -> 0); no cell
// worse. The keys alone did less on weighted tardy jobs (0.0687 with the
// deadline, 0.0693 with the jit order); a second round of both found
// nothing more, and the pass before the walks rather than last did the
// same within noise (docs/solver-at-scale-log.md, session 51).
func (ev *evaluator) mooreHodgsonPass(best scoredOrder, budget int, keys ...func(k int) float64) scoredOrder {
	in := ev.in
	n := len(in.jobs)
	back := in.backOrder()
	order := make([]int, n)
	spent := 0
	for _, key := range keys {
		if spent+2 > budget {
			break
		}
		byKey := sortedBy(n, key)
		front := ev.onTimeSet(best.o.order)
		spent += 2 // the on-time set's schedule and the last
		for _, k := range byKey {
			if spent >= budget {
				break
			}
			if front[k] || !in.reachable(k, in.pj[k].Deadline) {
				continue
			}
			front[k] = true
			// Each round gives up one job: at most n rounds.
			for range n {
				spent++
				buildSplit(order, front, byKey, back)
				ev.score(order)
				first := slices.IndexFunc(order, func(j int) bool { return !front[j] || in.fn[j].At(ev.completions[j]) > 0 })
				if first < 0 || !front[order[first]] {
					break
				}
				// Moore-Hodgson's choice, weighted: the least stake
				// per unit of work (repairCost's first rule), the most
				// work among equals (jobs of no stake: the longest).
				drop, dropV := -1, 0.0
				for _, j := range order[:first+1] {
					v := repairCost(in.stake(j), in.work[j], 0)
					if drop < 0 || v < dropV || v == dropV && in.work[j] > in.work[drop] {
						drop, dropV = j, v
					}
				}
				front[drop] = false
			}
		}
		buildSplit(order, front, byKey, back)
		if s := ev.score(order); s.less(best.s) {
			best = best.beatenBy(slices.Clone(order), s, "+mh")
		}
	}
	return best
}

// mooreHodgsonShare is the share of dueSearch's budget that
// mooreHodgsonPass may spend on top of it: never reached at J = 100 and
// 200 (about 20 and 26 schedules of some 3,250), it bounds the pass where
// the budget falls as 1/J^2 (past dueTaperJobs): at J = 1,000 (the
// BenchmarkSolve case) the whole pass took 1.15 times the instructions of
// the solve without it, a tenth of the budget 1.025 times on tardy jobs
// and 1.022 on weighted tardy jobs (scripts/instructions.sh).
const mooreHodgsonShare = 0.1
