package solver

// Path relinking between the two answers of each of searchHalves' halves
// on SLA cost (docs/solver-at-scale.md, "What the search does", item 8):
// the targets of one answer are moved to the other's one job at a time,
// and the best point strictly between them starts a search of the second
// half (the first half's answers) or is the answer if it beats them all
// (the second half's).

import (
	"math"
	"slices"
)

// relinkShare caps what relinkAnswers may spend, as a share of the
// searches' budget. At J = 200 the two first-half answers differ in the
// targets of 16 jobs on average (6 at J = 100), and a path costs about 100
// evaluations there (20 at J = 100), 3% of the budget; the cap keeps long
// paths (large J, answers far apart) from eating the second half.
const relinkShare = 0.1

// relinkAnswers relinks the two answers res both ways at once, on two
// evaluators (relink, with back the instance's backOrder), each taking no
// step once it has spent budget evaluations. It returns the better of the
// two paths' best points (the first path's among equals), ok false if
// neither path has a point between its ends, and the larger spending, as
// the time goes.
//
// Between the second half's answers (the end path) its evaluations come on
// top of the budget: about 1% more instructions at J = 100 and 200
// together (scripts/instructions.sh), where paid for out of the second
// half it bought nothing. Measured at the default effort, SLA cost, eight
// seeds of the kicks, summed excess over the best known
// (docs/solver-at-scale-log.md, session 48): 22 cells at J = 200 0.0589 ->
// 0.0469; not used to choose it, seeds 30 to 35 at J = 200 0.1169 ->
// 0.1110 and 26 to 29 0.0309 -> 0.0263, seeds 20 to 23 against
// references searched afresh 0.0758 -> 0.0698; J = 100 0.0874 -> 0.0844;
// J = 50 and 20 the same. 1.1 times the budget instead bought about as
// much (seeds 30 to 35: 0.1099) for about 10% more time.
func (ev *evaluator) relinkAnswers(res [2]scoredOrder, back []int, budget int) (best scoredOrder, spent int, ok bool) {
	var out [2]scoredOrder
	var found [2]bool
	var used [2]int
	ev.atOnce(2, func(e *evaluator, x int) {
		out[x], used[x], found[x] = e.relink(res[x], res[1-x], back, budget)
	})
	for x := range out {
		if found[x] && (!ok || out[x].s.less(best.s)) {
			best, ok = out[x], true
		}
	}
	return best, max(used[0], used[1]), ok
}

// relink walks from a's targets (levelSearch's levels, with back as the
// back order: the SLA step each job meets) to b's, one job at a time: at
// each step every job whose target still differs is moved to b's target
// on its own, each such order scored by an estimate (scoreEstimate,
// against the order the path stands on), and the best is taken whether or
// not it beats the step before. It returns the best order strictly
// between the two ends, exactly scored, and the evaluations spent (two
// schedules for the ends' targets, one per step recorded, the estimates by
// their share of a schedule, one to score the answer); ok false if the
// answers' targets differ in fewer than two jobs (no point between) or
// budget ran out before the first step.
//
// Why: the first half's two searches end in basins of their own, and the
// points between them mix what each got right: a local optimum's
// neighbours all score worse, but a walk that must go on crosses to
// orders neither search reached (path relinking, Glover's scatter search;
// a walk that only took improving steps found one in 2 of 10 instances at
// J = 200 and moved nothing). The best point is often worse than the
// better answer: searchHalves then starts the second half's second search
// from it rather than from that answer, so the two searches of the second
// half start in different places. Measured at the default effort, SLA
// cost, eight seeds of the kicks, summed excess over the best known
// (docs/solver-at-scale-log.md, session 47): 22 cells at J = 200 (seeds 1,
// 10 to 13 and 20 to 25, both settings) 0.1270 -> 0.0589, cells past 1%
// 1 -> 0; not used to choose it, seeds 26 to 29 at J = 200 0.0600 ->
// 0.0309 and 30 to 35 0.1539 -> 0.1169 (every cell lower); 22 cells at
// J = 100 0.1045 -> 0.0874; J = 50 and 20 the same; the same time. The
// second search started from the worse answer instead, with no path, did
// worse than before (0.1385): the gain is the point between.
func (ev *evaluator) relink(a, b scoredOrder, back []int, budget int) (scoredOrder, int, bool) {
	n := len(ev.in.jobs)
	to := ev.newLevels(b.o.order, back).level
	lv := ev.newLevels(a.o.order, back)
	spent, events := 2, 0
	var diff []int
	for k := range n {
		if lv.level[k] != to[k] {
			diff = append(diff, k)
		}
	}
	cur := slices.Clone(a.o.order)
	lv.build(cur)
	cand := make([]int, n)
	best, bestS := []int(nil), score{math.Inf(1), math.Inf(1)}
	// The last step would reach b's targets: the loop stops before it.
	for len(diff) > 1 && spent < budget {
		ev.setBase(cur)
		spent++
		pick, pickS := -1, score{}
		var pickO []int
		for x, k := range diff {
			was := lv.level[k]
			lv.level[k] = to[k]
			copy(cand, cur)
			lv.rebuild(cand, k)
			lv.level[k] = was
			s := ev.base
			if p, q := changedSpan(cand, cur); p < q {
				e0 := ev.packer.Events()
				s = ev.scoreEstimate(cand, p, q)
				events += max(1, ev.packer.Events()-e0)
			}
			if pick < 0 || s.less(pickS) {
				pick, pickS = x, s
				pickO = append(pickO[:0], cand...)
			}
		}
		spent += events / n
		events %= n
		k := diff[pick]
		lv.level[k] = to[k]
		diff = slices.Delete(diff, pick, pick+1)
		cur, pickO = pickO, cur
		if pickS.less(bestS) {
			best, bestS = slices.Clone(cur), pickS
		}
	}
	if best == nil {
		return scoredOrder{}, spent, false
	}
	// The estimates' score, made exact.
	spent++
	return scoredOrder{ordering{a.o.scheme + "+relink", best}, ev.score(best)}, spent, true
}
