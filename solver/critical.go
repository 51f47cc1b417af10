package solver

// Critical search: the search past J = 12 on the maxima, which moves only
// what can lower the maximum (docs/solver-at-scale.md, "What the search
// does").

import (
	"math"
	"slices"
)

// criticalSearch is local search for a maximum past maxExhaustiveSearchJobs:
// only the job that attains the maximum (the most penalised; ties to the
// earliest) matters, so each pass tries it 1, 2, 4, ... positions earlier
// and at the front (moveEarlier), then each job ahead of it moved just
// behind it, then each of the criticalAheadJobs jobs just ahead of it
// moved earlier as the critical job is: about J schedules a pass instead
// of the J^2 of every insertion, scored from the incumbent's prefix
// (mps.Packer.Resume). First improvement of the score (the maximum, then
// the tie-breaker that sums every job's penalty, so a pass also makes
// progress when the maximum is tied; the jobs ahead moved earlier only on
// the maximum), until a pass finds nothing or the budget is spent.
// start's score is *s (nil: taken from the run that records it, as
// windowSearch does). Besides the answer, its
// score and the evaluations spent, it returns the position of the job that
// attains the answer's maximum (criticalPosition's), or -1 when the budget
// ended a pass that had moved a job (the position is then not known).
//
// Each pass finds the maximum from the run that records the incumbent for
// the moves' prefix reuse: the completions it writes are the incumbent's.
// It scheduled the incumbent once more before that, counted as the
// recording is; without it the answers are the same, and the deadline
// maxima took 0.90 to 0.97 times as long at J = 100 to 1,000, the others
// within 3% (BenchmarkSolve, the same PGO profile; docs/solver-at-scale-
// log.md, session 52).
func (ev *evaluator) criticalSearch(start []int, s *score, budget int) ([]int, score, int, int) {
	n := len(start)
	inc := ev.newIncumbent(start, s)
	cand := make([]int, n)
	c := -1
	improved := true
	for improved && inc.spent() < budget {
		improved = false
		inc.record()
		inc.full++
		c = ev.criticalOf(inc.order)
		if c > 0 {
			improved = moveEarlier(inc, cand, c, budget, false)
		}
		for i := c - 1; !improved && i >= 0 && inc.spent() < budget; i-- {
			moveTo(cand, inc.order, i, c+1)
			if inc.try(cand, i, c) {
				improved = true
			}
		}
		for i := c - 1; !improved && i >= max(1, c-criticalAheadJobs) && inc.spent() < budget; i-- {
			improved = moveEarlier(inc, cand, i, budget, true)
		}
	}
	if improved {
		c = -1
	}
	o, sc, used := inc.result()
	return o, sc, used, c
}

// moveEarlier tries the job at position i of the incumbent 1, 2, 4, ...
// positions earlier and at the front, until a move improves (kept, true)
// or the budget is spent; with lower, only a lower maximum keeps a move,
// not a lower tie-breaker (incumbent.tryIf).
//
// criticalSearch moves the critical job so, rather than to every earlier
// position: a pass costs about log J schedules instead of J there, and the
// budget that frees goes to more passes and more of iterateCritical's
// kicks. Measured with criticalAheadJobs' moves in, at the default effort,
// four seeds of the kicks, summed excess over the best known of the four
// deadline maxima (max_tardiness, max_lateness, max_weighted_tardiness,
// max_weighted_lateness; the cells of criticalAheadJobs,
// docs/solver-at-scale-log.md, session 55):
//   - J = 200, 42 cells: 0.0845 -> 0.0548, 0.0852 -> 0.0559, 0.0693 ->
//     0.0419, 0.0759 -> 0.0474 (none past 1% either way); on seeds 48 to
//     51 alone 0.0174 -> 0.0123, 0.0178 -> 0.0127, 0.0108 -> 0.0054,
//     0.0117 -> 0.0066;
//   - J = 100, 34 cells: 0.0052 -> 0.0010, 0.0031 -> 0.0010, 0.0029 ->
//     0.0014, 0.0061 -> 0.0029;
//   - J = 20 and 50: the same; the other maxima at J = 100 and 200 (seeds
//     1 and 48 to 51) the same or lower (J = 200 max_response_time 0.0016
//     -> 0.0008, max_weighted_response_time 0.0051 -> 0.0031).
//
// Trying fewer of the jobs ahead of the critical one just behind it did
// not pay as a whole: only those 1, 2, 4, ... positions ahead, or only
// the nearest eight and the first, did better at J = 200 (the 34 cells
// without seeds 48 to 51, max_tardiness 0.0425 -> 0.0342 and 0.0290) but
// worse at J = 100 on the weighted maxima (max_weighted_lateness 0.0029 ->
// 0.0079 and 0.0076, an instance at 1.03 and 1.045); not made.
//
// The jobs ahead of the critical one (criticalAheadJobs) move with lower:
// kept on the tie-breaker too, those moves walked the plateaus and lost
// the kicks' budget, and seed 21's J = 200 instance 3
// (max_weighted_lateness, locked by sim's TestFlexOnUnseenSeeds) went from
// 0.1386 to 0.1621; at J = 100 the summed excess over the best known
// doubled.
func moveEarlier(inc *incumbent, cand []int, i, budget int, lower bool) bool {
	for d := 1; inc.spent() < budget; d *= 2 {
		k := max(0, i-d)
		moveTo(cand, inc.order, i, k)
		if inc.tryIf(cand, k, i, lower) {
			return true
		}
		if k == 0 {
			break
		}
	}
	return false
}

// criticalAheadJobs is how many of the jobs just ahead of the critical one
// criticalSearch moves earlier (moveEarlier, keeping a move only when the
// maximum falls). Moving a job that holds slots just before the critical
// one earlier lets it finish sooner and hand its slots down the order,
// where moving it just behind the critical job (the search's other move)
// can make it critical itself: on seed 49's J = 200 base case, instance 5
// (a seed the search was not tuned on), max_tardiness read 0.7533 at the
// default effort and 0.7323 at effort 8 against the best known 0.7093,
// which two such moves reach. Measured at the default effort, four seeds
// of the kicks, summed excess over the best known (references at effort
// 10 on seed 1 and 20 on the others; docs/solver-at-scale-log.md, session
// 55, item 1), with the critical job then still tried at every earlier
// position:
//   - J = 200, 42 cells (seeds 1, 10 to 13, 20 to 25, 36, 37 and 44 to
//     51, both settings): max_tardiness 0.1630 -> 0.0845, max_lateness
//     0.1658 -> 0.0852, max_weighted_tardiness 0.1361 -> 0.0693,
//     max_weighted_lateness 0.1417 -> 0.0759, the cells past 1% 1, 1, 0
//     and 1 -> none, the worst instance 1.060 -> 1.030 (on seeds 48 to 51
//     alone 0.0327 -> 0.0174, 0.0330 -> 0.0178, 0.0217 -> 0.0108 and
//     0.0239 -> 0.0117);
//   - J = 100, 34 cells (the same seeds but 48 to 51): 0.0072 -> 0.0052,
//     0.0062 -> 0.0031, 0.0035 -> 0.0029, 0.0057 -> 0.0061;
//   - J = 20 and 50 (seeds 1, 10, 44 and 45): the same;
//   - the other maxima at J = 200 (seeds 1 and 48 to 51): the same or a
//     little better (max_weighted_response_time 0.0101 -> 0.0051).
//
// Ten jobs did about as well (the 34 cells at J = 200 without seeds 48 to
// 51: 0.0651, 0.0663, 0.0525, 0.0587 against six's 0.0671, 0.0674, 0.0585,
// 0.0642), with worst instances of 1.03 to 1.04 against 1.02 to 1.03. The
// time is the budget's: BenchmarkSolve 0.95 to 0.99 times as long at J =
// 100 and 200, J = 1,000 the same.
const criticalAheadJobs = 6

// criticalPosition scores order and returns the position of the job that
// attains the maximum (the most penalised; ties to the earliest).
func (ev *evaluator) criticalPosition(order []int) int {
	ev.score(order)
	return ev.criticalOf(order)
}

// criticalOf is criticalPosition for the order ev.completions holds the
// completions of (the last schedule run): no schedule of its own.
func (ev *evaluator) criticalOf(order []int) int {
	c, worst := 0, math.Inf(-1)
	for x, k := range order {
		if v := ev.in.fn[k].At(ev.completions[k]); v > worst {
			c, worst = x, v
		}
	}
	return c
}

// iterateCritical spends what is left of budget (spent of it gone) on
// iterated critical search from best: a double-bridge kick of the walk's
// order within a window of criticalKickSpan positions that holds the job
// attaining the maximum, a critical descent from there, kept when no worse. The
// critical descent stops where no single move of the critical job, or of a
// job ahead of it, lowers the maximum; trading two segments around it is
// the move it lacks. On the committed references at J = 200 (base case,
// before they were refreshed from its answers) max_weighted_tardiness went
// from 1.013 to 0.967 of the best known and max_weighted_lateness from
// 1.014 to 0.975 at twice criticalBudget in all (criticalIterated has the
// budget). The kicks use a generator seeded by the instance size, so the
// result is still a function of the input.
func (ev *evaluator) iterateCritical(best []int, bestS score, spent, budget int, stream uint64) ([]int, score) {
	n := len(best)
	span := min(n-1, criticalKickSpan)
	if n < 4 {
		return best, bestS
	}
	rng := ev.rng(stream)
	walk, walkS := best, bestS
	// walkC is the walk's critical position when the descent that
	// reached it reported one: no schedule to find it again.
	walkC := -1
	kick := make([]int, n)
	for spent < budget {
		c := walkC
		if c < 0 {
			c = ev.criticalPosition(walk)
		}
		a := max(0, min(n-span-1, c-span+rng.IntN(span)))
		cuts := []int{a + 1 + rng.IntN(span), a + 1 + rng.IntN(span)}
		slices.Sort(cuts)
		doubleBridge(kick, walk, a, cuts[0], cuts[1])
		o, s, used, oc := ev.criticalSearch(kick, nil, budget-spent-2)
		// Two more: the critical position and the kick's recording,
		// still counted when the position came from the last descent,
		// so that the budget buys the kicks it bought before.
		spent += used + 2
		if cmpTol(s.value, walkS.value) <= 0 {
			walk, walkS, walkC = o, s, oc
		}
		if s.less(bestS) {
			best, bestS = o, s
		}
	}
	return best, bestS
}

// iterateCriticals is iterateCritical on two evaluators at once, in two
// halves of what is left of budget: two chains from best with kicks of
// their own, then two from the better of their answers (the first's among
// equals) with kicks of their own again (inHalves); it returns the best
// answer, the earliest among equals.
//
// Why two chains: one chain held one core of two, 92% of a maximum's solve
// at J = 200; a second in the same wall time ends in another basin. On the
// deadline maxima at J = 200, 22 cells (seeds 1, 10 to 13 and 20 to 25,
// both settings), the summed excess over the best known went 0.0928 to
// 0.1025 -> 0.0638 to 0.0783 a metric, cells past 1% 3 -> 1, none worse;
// at J = 100 (seeds 20 to 25) 0.0054 to 0.0078 -> 0.0012 to 0.0054; a
// second chain from another start did worse than a second stream of kicks
// from the same one. Why halves: the better basin is worth both cores'
// second half; the same 22 cells 0.0547 to 0.0743 a metric (cells past 1%
// 1 -> 0), seeds 26 to 29 (no choice made on them) 0.0148 to 0.0252
// (max_weighted_lateness 0.0153 -> 0.0164, the rest lower; seed 27's
// max_tardiness and max_lateness from 1.0102 and 1.0110 to under 1%), and
// J = 50 and 100 the same or lower. Time the same at J = 100 and 200
// (docs/solver-at-scale-log.md, session 44).
func (ev *evaluator) iterateCriticals(best []int, bestS score, spent, budget int) ([]int, score) {
	half := spent + (budget-spent)/2
	start := scoredOrder{ordering{order: best}, bestS}
	r := ev.inHalves([2]scoredOrder{start, start}, nil, func(e *evaluator, x int, from scoredOrder, second bool) scoredOrder {
		from0, to, stream := spent, half, criticalStream+uint64(x)
		if second {
			from0, to, stream = half, budget, stream+2
		}
		o, s := e.iterateCritical(from.o.order, from.s, from0, to, stream)
		return scoredOrder{ordering{order: o}, s}
	})
	return r.o.order, r.s
}

// criticalStream is the random stream of iterateCriticals' first chain;
// the others' are the next three.
const criticalStream = 0xc717

// criticalKickSpan is how many positions a kick of iterated critical
// search spans. It was 24, as iterate's (8 window-search reaches); once a
// pass of the critical search cost about log J schedules to move the
// critical job (moveEarlier), 16 did better. Measured at the default
// effort, four seeds of the kicks, summed excess over the best known of
// the four deadline maxima (max_tardiness, max_lateness,
// max_weighted_tardiness, max_weighted_lateness; docs/solver-at-scale-
// log.md, session 55, item 9): J = 200, 42 cells (seeds 1, 10 to 13, 20
// to 25, 36, 37 and 44 to 51, both settings), 0.0548 -> 0.0441, 0.0560 ->
// 0.0461, 0.0424 -> 0.0311, 0.0474 -> 0.0356 (seeds 48 to 51 alone 0.0123
// -> 0.0098, 0.0127 -> 0.0101, 0.0054 -> 0.0045, 0.0066 -> 0.0055); J =
// 100, 34 cells, 0.0010 -> 0.0009, 0.0010 -> 0.0009, 0.0014 -> 0.0013,
// 0.0029 -> 0.0039. 12 did less well at J = 200 (0.0372 on max_tardiness
// over the 34 cells without seeds 48 to 51, against 16's 0.0343), 40
// worse at both sizes.
const criticalKickSpan = 16
