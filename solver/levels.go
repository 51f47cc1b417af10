package solver

// The level search of SLA cost (item 3 of docs/solver-at-scale.md): each
// job aims at one of its reachable steps or at none, the order follows the
// targets, and the search changes targets: descents with guessed moves and
// exchanges, walks with kicks, repairs and ruins.

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// guessLevel is levelDescent's guess at job k's best target: of its
// targets (any earlier reachable step, or one step later), the one whose
// move in order (to k's place as build puts it) guessMoves scores best,
// if that beats the incumbent; ok false if none does. pos is each job's
// position in order.
func (ev *evaluator) guessLevel(lv *levels, order, pos []int, k int, gs *guessSpace) (best int, ok bool) {
	was := lv.level[k]
	i := pos[k]
	targets, levels := gs.targets[:0], gs.levels[:0]
	for l := lv.first[k]; l <= min(lv.none[k], was+1); l++ {
		if l == was {
			continue
		}
		targets = append(targets, lv.placeOf(order, k, i, l))
		levels = append(levels, l)
	}
	gs.targets, gs.levels = targets, levels
	to, ok := ev.bestGuess(ev.guessMoves(order, i, targets, judgedAlone, gs))
	if !ok {
		return 0, false
	}
	return levels[slices.Index(targets, to)], true
}

// placeOf is where job k, at position i of order (sorted by build), goes
// with target l: the move to before that position is rebuild's.
func (lv *levels) placeOf(order []int, k, i, l int) (to int) {
	was := lv.level[k]
	lv.level[k] = l
	if i > 0 && lv.cmp(k, order[i-1]) < 0 {
		to = lv.before(order[:i], k)
	} else {
		to = i + 1 + lv.before(order[i+1:], k)
	}
	lv.level[k] = was
	return to
}

// guessExchange is levelDescent's guess at the best partner o for job k's
// target a step earlier, o's a step later, among the first exchangeGuesses
// partners the exchanges consider, by the two moves' guesses (guessMoves)
// summed; ok false if no pair beats the incumbent. pos is each job's
// position in order.
func (ev *evaluator) guessExchange(lv *levels, order, pos []int, k int, gs *guessSpace) (best int, ok bool) {
	level, none := lv.level, lv.none
	one := func(j, l int) (v, s float64, moved bool) {
		i := pos[j]
		gs.targets = append(gs.targets[:0], lv.placeOf(order, j, i, l))
		g := ev.guessMoves(order, i, gs.targets, 0, gs)
		if len(g) == 0 {
			return 0, 0, false
		}
		return g[0].v, g[0].s, true
	}
	kv, ks, moved := one(k, level[k]-1)
	if !moved {
		return 0, false
	}
	gain := lv.cost(k, level[k]) - lv.cost(k, level[k]-1)
	level[k]--
	dk := lv.dueOf(k)
	level[k]++
	epsV, epsS := improveTol*math.Abs(ev.base.value), improveTol*math.Abs(ev.base.second)
	var topV, topS float64
	partners := 0
	for _, o := range lv.byWork {
		if o == k || level[o] >= none[o] {
			continue
		}
		if lv.dueOf(o) > dk || lv.cost(o, level[o]+1)-lv.cost(o, level[o]) >= gain {
			continue
		}
		if partners++; partners > exchangeGuesses {
			break
		}
		ov, os, moved := one(o, level[o]+1)
		if !moved {
			continue
		}
		v, s := kv+ov, ks+os
		if !(v < -epsV || v <= epsV && s < -epsS) {
			continue
		}
		if !ok || v < topV-epsV || v <= topV+epsV && s < topS {
			best, topV, topS, ok = o, v, s, true
		}
	}
	return best, ok
}

// descentSpace is levelDescent's reusable workspace (one per evaluator:
// the walks that run at once have evaluators of their own).
type descentSpace struct {
	look, lookX []bool
	ks, seq     []int
	pos         []int
	moved       []int
	gain        []float64
	gs          guessSpace
}

// levelSearch is split search for SLA cost, where a job has several steps
// to aim at, not one deadline: each job has a target (one of its reachable
// steps, or none: given up), and the order is the targeted jobs by their
// target's deadline (shifted by shares of their work and of their fastest
// duration, levelJit and levelFast, unless ev.byDeadline), then the
// given-up ones in back order. A move changes
// one job's target, or raises one job's target by a step while another's
// falls by one (the exchange swapSearch makes for single deadlines). It
// starts from the steps start meets and runs ev.walks walks at once, each
// a descent from there (trying the jobs in an order of its own: see
// levelDescent) iterated while budget is left: two to four random big
// jobs' targets a step earlier or later (levelWalk), a new descent that
// looks only near what the kick moved, kept when no worse (or within
// levelAcceptShare of the best: levelAcceptJobs). It returns the best
// order found, its score and the evaluations spent.
//
// Why a descent per walk rather than one descent both walks start from:
// the first descent decides the basin, and the two orders of trying the
// jobs reach different ones, each the better on some instances. Measured
// at the default effort against the committed references (refreshed from
// this build), SLA cost, base case / second setting: J = 50 1.016 / 1.023
// -> 1.010 / 1.023, J = 100 1.021 / 1.038 -> 1.018 / 1.029, J = 200 1.075
// / 1.074 -> 1.056 / 1.051 (worst instance 1.094 / 1.143 -> 1.080 /
// 1.073); on the unseen seeds 7 to 9 (J = 100 and 200, references at effort
// 20) the summed excess over the best known went from 0.121 to 0.058.
// Over both sets, against the references as they were before the last
// refresh, one descent in the one order or the other did 0.263 and 0.302,
// a descent per walk 0.229, the build before 0.355
// (docs/solver-at-scale-log.md).
func (ev *evaluator) levelSearch(start []int, back []int, budget int) ([]int, score, int) {
	lv := ev.newLevels(start, back)
	// The walks, at once (see walks), each a descent from the start's
	// targets and an iterated walk from there with the budget left; what
	// they spend counts once, as time does.
	type result struct {
		o    []int
		s    score
		used int
	}
	res := make([]result, ev.walks)
	ev.atOnce(ev.walks, func(e *evaluator, x int) {
		// Each walk changes targets in a copy of its own.
		wl := *lv
		wl.level = slices.Clone(lv.level)
		// The second walk's descents try the jobs in another order, and
		// make exchanges after a kick too: the walks then differ in
		// their first local optimum and in neighbourhood as well as in
		// kicks. With one walk (dueSearches' two searches), the second
		// search's is the second walk's order.
		wl.kickExchanges = x == 1
		wl.gainToFirst = x == 1 || ev.noSplit
		o, s, used := e.levelDescent(&wl, slices.Clone(start), budget, nil)
		if used < budget {
			var more int
			o, s, more = e.levelWalk(&wl, o, s, budget-used, e.rng(0x1e7e1+uint64(x)))
			used += more
		}
		res[x] = result{o, s, used}
	})
	best, bestS, spent := res[0].o, res[0].s, 0
	for _, r := range res {
		spent = max(spent, r.used)
		if r.s.less(bestS) {
			best, bestS = r.o, r.s
		}
	}
	return best, bestS, spent
}

// levelRepair is admitRepair for SLA cost, on targets (levelSearch's
// levels, those of from's order): each job whose target can go earlier,
// the most to gain from a step first, gets an earlier target, and the jobs
// up to the first miss with the least to lose per unit of work move a step
// later until no targeted job misses, unless what is lost would be worth
// the gain (repairTarget). A job tries, until one pays: a step earlier;
// below budgetBoundJobs the same with the least to lose
// (levelRepairRules); two steps or more from its first reachable step,
// that step at once; then the steps between, the later first. The order of
// the new targets is kept when it scores better than the targets' order
// before, and passes repeat while one pays. It returns the best order
// found (from when nothing beats it) and the evaluations spent: two
// schedules for the targets, one per try and per job moved back; it tries
// no further job once it has spent budget.
//
// Why: levelDescent's exchanges move one job back a step for one that
// goes a step forward; a step forward often needs the room of several.
// Run after the level search (dueSearch), measured at the default effort,
// SLA cost, unseen seeds 10 to 13, eight seeds of the walks' kicks,
// against references searched again from its own answers, base case /
// second setting: J = 50 1.0043 / 1.0070 -> 1.0025 / 1.0057 (worst
// instance 1.103 -> 1.072), J = 100 1.0125 / 1.0176 -> 1.0097 / 1.0129,
// J = 200 1.0295 / 1.0383 -> 1.0198 / 1.0210 (docs/solver-at-scale-log.md,
// item 3).
//
// Where a step earlier does not pay, a job two steps or more from its
// first reachable step tries that step at once: against references
// searched again from the build before that, summed excess of the unseen
// cells at J = 50 and 100 (eight seeds of the kicks) 0.0318 -> 0.0275, at
// J = 200 (four seeds) 0.0386 -> 0.0292, lower with every seed. Then the
// steps between (a job with three steps from its first: the second):
// against references searched again from that build, summed excess of the
// six unseen cells 0.0624 -> 0.0586, lower with each of the eight seeds.
func (ev *evaluator) levelRepair(from scoredOrder, back []int, budget int) (scoredOrder, int) {
	n := len(ev.in.jobs)
	lv := ev.newLevels(from.o.order, back)
	order := slices.Clone(from.o.order)
	lv.build(order)
	cur, spent := ev.score(order), 2
	best := from
	cand, saved, ks := make([]int, n), make([]int, n), make([]int, 0, n)
	var tries []repairTry
	// Below budgetBoundJobs a repair that does not pay is tried again
	// under repairTarget's second rule (levelRepairRules).
	rules := 1
	if n < budgetBoundJobs {
		rules = levelRepairRules
	}
	for improved := true; improved && spent < budget; {
		improved = false
		ks = ks[:0]
		for k := range n {
			if lv.level[k] > lv.first[k] {
				ks = append(ks, k)
			}
		}
		slices.SortStableFunc(ks, func(a, b int) int { return cmp.Compare(lv.gainEarlier(b), lv.gainEarlier(a)) })
		for _, k := range ks {
			if spent >= budget {
				break
			}
			copy(saved, lv.level)
			// The tries, until one pays (see above).
			tries = append(tries[:0], repairTry{saved[k] - 1, 0})
			if rules > 1 {
				tries = append(tries, repairTry{saved[k] - 1, 1})
			}
			if saved[k]-lv.first[k] >= 2 {
				tries = append(tries, repairTry{lv.first[k], 0})
			}
			for to := saved[k] - 2; to > lv.first[k]; to-- {
				tries = append(tries, repairTry{to, 0})
			}
			var s score
			met := false
			for x, t := range tries {
				if x > 0 && (met && s.less(cur) || spent >= budget) {
					break
				}
				copy(lv.level, saved)
				copy(cand, order)
				var used int
				s, met, used = ev.repairTarget(lv, cand, k, t.to, t.rule, budget-spent)
				spent += used
			}
			if !met || !s.less(cur) {
				copy(lv.level, saved)
				continue
			}
			cur, improved = s, true
			copy(order, cand)
			if s.less(best.s) {
				best = scoredOrder{ordering{strings.TrimSuffix(best.o.scheme, "+repair") + "+repair", slices.Clone(cand)}, s}
			}
		}
	}
	return best, spent
}

// repairTry is one of levelRepair's tries for a job: target to, under
// repairTarget's rule.
type repairTry struct{ to, rule int }

// gainEarlier is what job k gains with its target a step earlier.
func (lv *levels) gainEarlier(k int) float64 {
	return lv.cost(k, lv.level[k]) - lv.cost(k, lv.level[k]-1)
}

// lossLater is what job k loses with its target a step later.
func (lv *levels) lossLater(k int) float64 {
	return lv.cost(k, lv.level[k]+1) - lv.cost(k, lv.level[k])
}

// repairTarget gives job k the earlier target to (one of its reachable
// steps) in lv, and cand, the order for lv's targets, is rebuilt for it;
// then, while a targeted job misses its target's deadline, the job with the
// least to lose by a step later (lossLater), per unit of work under rule 0
// and as it is under rule 1, of those up to the first miss, gets the step
// later, unless what is lost would be worth what k gains or more than
// levelRepairDrops jobs would have to. It returns the score of cand for the
// targets it ends with, whether no targeted job misses its target there,
// and the evaluations spent (one a schedule; it moves no further job once
// it has spent budget).
func (ev *evaluator) repairTarget(lv *levels, cand []int, k, to, rule, budget int) (s score, met bool, spent int) {
	in := ev.in
	g, lost := lv.cost(k, lv.level[k])-lv.cost(k, to), 0.0
	lv.level[k] = to
	lv.rebuild(cand, k)
	for moved := 0; ; moved++ {
		s = ev.score(cand)
		spent++
		miss := slices.IndexFunc(cand, func(j int) bool {
			return lv.level[j] < lv.none[j] && ev.completions[j] > in.pj[j].SLA[lv.level[j]].Deadline
		})
		if miss < 0 {
			return s, true, spent
		}
		if moved == levelRepairDrops || spent >= budget {
			return s, false, spent
		}
		later, laterV := -1, 0.0
		for _, j := range cand[:miss+1] {
			if j == k || lv.level[j] >= lv.none[j] {
				continue
			}
			if v := repairCost(lv.lossLater(j), in.work[j], rule); later < 0 || v < laterV {
				later, laterV = j, v
			}
		}
		if later < 0 || lost+lv.lossLater(later) >= g {
			return s, false, spent
		}
		lost += lv.lossLater(later)
		lv.level[later]++
		lv.rebuild(cand, later)
	}
}

// levelRepairDrops is how many jobs levelRepair moves a step later at most
// for one that moves a step earlier; in effect unbounded (what is lost
// stops it first). Measured as levelRepair's comment says, four seeds of
// the kicks, summed excess of the four cells at J = 50 and 100: 4 did
// 0.0294, 8 0.0264, 16 and 32 0.0256; the least to lose rather than the
// least per unit of work, 0.0327.
const levelRepairDrops = 16

// levelRepairRules is how many of repairTarget's rules levelRepair tries,
// below budgetBoundJobs jobs, for a job whose repair under the first does
// not pay (as admitRepair does). Measured at the default effort, SLA cost,
// unseen seeds 10 to 13 against references searched again from
// levelRepair's answers, eight seeds of the walks' kicks, summed excess of
// the four cells at J = 50 and 100: 0.0288 with the first rule alone,
// 0.0267 with both (lower with every seed). At J = 200 both did worse
// (four seeds 0.0376 -> 0.0401): the repair's evaluations are short there.
const levelRepairRules = 2

// levelRepairEvaluations is what dueSearch sets aside from the level
// search's budget for levelRepair (at most a fifth of the budget); what it
// does not spend goes to the stages after it. Unbounded it spends 35
// evaluations on average at J = 50, 120 at J = 100 and 400 (up to 770) at
// J = 200. At J = 50 and 100 the answers were the same within 0.0001 of
// the summed excess with 100 to 600; at J = 200 (the fifth of the budget
// is 556 there), unseen seeds 10 to 13, eight seeds of the kicks, summed
// excess of the two cells 0.0443 with 200, 0.0408 with 600; four seeds:
// 0.0416, 0.0394 with 278, 0.0376 with 556, 0.0405 with 928 (a third of
// the budget, taken from the level search).
const levelRepairEvaluations = 600

// newLevels is levelSearch's state for the order start (one schedule,
// counted): each job's target is the first step it reaches there, of
// those it can reach at all; back is the order of the given-up jobs.
func (ev *evaluator) newLevels(start, back []int) *levels {
	in := ev.in
	n := len(start)
	lv := &levels{in: in, backRank: make([]int, n), first: make([]int, n), none: make([]int, n), level: make([]int, n),
		byWork: mostWorkFirst(identity(n), in.work), off: make([]int, n)}
	jit, fast := levelJit, levelFast
	if ev.byDeadline {
		jit, fast = 0, 0
	}
	for k := range n {
		lv.off[k] = len(lv.due)
		shift := jit*in.work[k]/float64(in.slots) - fast*in.work[k]/float64(in.max[k])
		for _, st := range in.pj[k].SLA {
			lv.due = append(lv.due, st.Deadline+shift)
		}
		lv.due = append(lv.due, math.Inf(1))
	}
	for x, k := range back {
		lv.backRank[k] = x
	}
	ev.score(start)
	for k := range n {
		steps := in.pj[k].SLA
		lv.none[k] = len(steps)
		lv.first[k] = len(steps)
		for s, st := range steps {
			if in.reachable(k, st.Deadline) {
				lv.first[k] = s
				break
			}
		}
		lv.level[k] = lv.none[k]
		for s := lv.first[k]; s < len(steps); s++ {
			if ev.completions[k] <= steps[s].Deadline {
				lv.level[k] = s
				break
			}
		}
	}
	return lv
}

// levelJit places a targeted job in the level search's order by its
// target's deadline plus levelJit times its work over the cluster's slots
// rather than by the deadline alone: a big job goes behind small jobs due
// a little after it, as the tardy-jobs keys' jit order has it (dueSearch)
// and as the best known orders do (a big job takes most of the slots once
// its turn comes, and finishes just in time behind them). Measured at the
// default effort, SLA cost, eight seeds of the walks' kicks, average ratio
// to the best known on the unseen seeds 10 to 13 (references from
// BestKnown at 100,000 evaluations), base case / second setting: J = 100
// 1.0062 / 1.0108 -> 1.0016 / 1.0066, J = 50 1.0020 / 1.0058 -> 1.0030 /
// 1.0063 (summed excess of the four cells
// 0.0249 -> 0.0175; against references searched again from this build's
// answers, 59 of 120 lower, J = 100 1.0151 / 1.0210 -> 1.0105 / 1.0167,
// J = 50 1.0081 / 1.0066 -> 1.0091 / 1.0071, summed excess 0.0508 ->
// 0.0434); committed references J = 100 1.0134 / 1.0179 ->
// 1.0056 / 1.0165, J = 50 1.0060 / 1.0031 -> 1.0014 / 1.0042, J = 20 the
// same within 0.0006. 0.25 did 0.0147 but took one J = 100 instance to
// 1.110; 0.35 0.0171, 0.7 0.0221, 1 (the tardy-jobs key's) worse than
// none.
//
// From budgetBoundJobs jobs it was left out at first (at J = 200 it did
// not help then: 0.5, unseen seeds 10 to 13, 1.0200 / 1.0248 -> 1.0197 /
// 1.0268). Since the two halves (searchHalves) and the walk's kicks from
// the big jobs it does, at every size, in every search but one:
// searchHalves' second half keeps one search by the deadlines alone
// (evaluator.byDeadline), so that its two searches from one answer differ
// in order as well as in kicks. Measured at the default effort, SLA cost,
// summed excess over the best known (docs/solver-at-scale-log.md, session
// 46), eight seeds of the kicks (in brackets with other streams of the
// kicks), before -> every search shifted -> all but that one:
//   - 22 cells at J = 200 (seeds 1, 10 to 13 and 20 to 25, both
//     settings): 0.2264 (0.2432) -> 0.1851 (0.2023) -> 0.1731 (0.1883),
//     cells past 1% 13 -> 7 -> 6;
//   - seeds 26 to 29 and 30 to 33 at J = 200, not used to choose it:
//     0.0765 -> 0.0730 -> 0.0736 and 0.1193 -> 0.1140 -> 0.1086;
//   - J = 100 (22 cells, 8 seeds), where the shift was in already, with
//     that one search by the deadlines: 0.1218 (0.1242) -> 0.1167
//     (0.1216), seeds 28 and 29 0.0141 -> 0.0138; J = 50 and 20 (22 cells
//     each, 4 seeds) 0.0538 -> 0.0437 and 0.0541 -> 0.0417.
//
// At J = 200 the shares are flat: 0.3 to 0.7 for levelJit and 0 to 0.3
// for levelFast did 0.1854 to 0.1882 (every search shifted), 1.5 times
// both 0.2033. Without the split descent's search or with the split
// descent in both searches of the first half, the two searches are alike
// and it did 0.36.
const levelJit = 0.5

// levelFast takes levelFast times a job's fastest duration (its work over
// its maximum) off its place in the level search's order, beside
// levelJit, as split search's split_edd_slack key takes all of it
// (deadline less the fastest duration). A job whose maximum is the whole
// cluster keeps levelJit - levelFast of its work / S as its shift; one
// with a smaller maximum (one slot per task: its fastest duration is a
// task's time) keeps most of levelJit and goes earlier by a share of a
// task's time. Measured beside levelJit at 0.5, eight seeds of the kicks,
// SLA cost on the unseen seeds 10 to 13 against references searched again
// from the levelJit build's answers: summed excess of the four cells at J =
// 50 and 100 0.0434 -> 0.0376, all of it in the base case at J = 50 (1.0091 ->
// 1.0039; J = 100 the same within 0.0004); 0.2 did 0.0403, 0.5 0.0394, 0.1
// and 0.05 0.0416 and 0.0426, and adding instead of taking off (0.1, 0.25)
// 0.0484 and 0.0481.
const levelFast = 0.3

// levelWalk is levelSearch's iterated walk from the targets in lv and
// their order best, scored bestS: kick two to four targets a step (of the
// jobs with the most work: levelKickShare), descend from there (from
// budgetBoundJobs jobs, in some steps a ruin instead: see ruin; below it,
// in some a repair of one target: see repairKickTenths), move when no
// worse or, from levelAcceptJobs jobs, within levelAcceptShare of the
// best, until budget evaluations are spent. It returns the best order it
// reaches, its score and the evaluations spent.
func (ev *evaluator) levelWalk(lv *levels, best []int, bestS score, budget int, rng *rand.Rand) ([]int, score, int) {
	n := len(best)
	spent := 0
	walk, walkS, walkOrder := slices.Clone(lv.level), bestS, slices.Clone(best)
	kicked, look := make([]int, n), make([]bool, n)
	lv.homeSeqOK = false
	var kicks [4]int
	kickJobs := max(1, int(levelKickShare*float64(n)))
	var rs ruinSpace
	// step is one step of the walk from its targets: from budgetBoundJobs
	// jobs sometimes a ruin, below it sometimes a repair of one target,
	// otherwise a kick and a descent.
	step := func() ([]int, score, int) {
		if n >= budgetBoundJobs && rng.IntN(10) < ruinKickTenths {
			if r, ok := lv.bigTarget(rng); ok {
				return ev.ruin(lv, walkOrder, r, budget-spent, &rs)
			}
		}
		// Below it sometimes a repair of one target (repairKickTenths).
		if n < budgetBoundJobs && rng.IntN(10) < repairKickTenths {
			if k, ok := lv.repairPick(rng); ok {
				c := slices.Clone(walkOrder)
				s, _, used := ev.repairTarget(lv, c, k, lv.level[k]-1, 0, budget-spent)
				return c, s, used
			}
		}
		ks := kicks[:0]
		for range 2 + rng.IntN(3) {
			// Of the kickJobs jobs with the most work (see
			// levelKickShare).
			k := lv.byWork[rng.IntN(kickJobs)]
			if rng.IntN(2) == 0 && lv.level[k] > lv.first[k] {
				lv.level[k]--
			} else if lv.level[k] < lv.none[k] {
				lv.level[k]++
			}
			if !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
		// The descent looks at the jobs near the positions where the
		// kicked order differs from the walk's (built by rebuild: only
		// the kicked jobs move).
		copy(kicked, walkOrder)
		lv.rebuild(kicked, ks...)
		clear(look)
		for x := range kicked {
			if kicked[x] != walkOrder[x] {
				markJobs(look, kicked, x, x, levelReach)
			}
		}
		return ev.levelDescent(lv, kicked, budget-spent, look)
	}
	for spent < budget {
		copy(lv.level, walk)
		lv.home, lv.homeS = walk, walkS
		o, s, used := step()
		lv.home = nil
		spent += used
		if cmpTol(s.value, walkS.value) <= 0 || n >= levelAcceptJobs && s.value <= bestS.value*(1+levelAcceptShare) {
			lv.homeSeqOK = lv.homeSeqOK && slices.Equal(walk, lv.level)
			copy(walk, lv.level)
			copy(walkOrder, o)
			walkS = s
		}
		if s.less(bestS) {
			best, bestS = o, s
		}
	}
	return best, bestS, spent
}

// From levelAcceptJobs jobs levelWalk moves to a step's answer also when
// it is worse than the walk's, if it is within levelAcceptShare of the best
// value the walk has found (threshold accepting, bounded by the best so
// that the walk does not drift away).
//
// Why: with a move only when no worse, the walk stays in the first basin
// whose kicks all lead back up; within half a percent of the best it
// crosses to the basins next to it. Measured beside levelKickShare, eight
// seeds of the kicks, summed excess over the best known
// (docs/solver-at-scale-log.md, session 45): 22 cells at J = 200 0.2536 ->
// 0.2264 (cells past 1% 14 -> 13), 22 cells at J = 100 0.1423 -> 0.1218
// (1 -> 0); seeds 26 to 29 at J = 200, not used to choose it, 0.0905 ->
// 0.0765, seeds 28 and 29 at J = 100 0.0202 -> 0.0141. In a scratch build
// at J = 200, 0.2502 -> 0.2291 with this bound, 0.2307 with the walk's own
// value plus 0.5% of the best, 0.2318 and 0.2341 with 0.3% and 0.8%; at
// J = 50 it did worse there (22 cells, four seeds: 0.0538 -> 0.0673; seeds
// 22 to 25, 28 and 29 the same).
const (
	levelAcceptJobs  = 100
	levelAcceptShare = 0.005
)

// levelKickShare is the share of the jobs, the most work first, that
// levelWalk's kicks draw their two to four targets from.
//
// Why: most jobs are small (80% in the base case, half in the second
// setting), and a small job meets its first step whatever the big jobs do;
// kicked a step later, the descent after the kick puts it back, and the
// step was spent for nothing. The best known orders differ from FLEX's
// answers in the big jobs' targets mostly (seed 1 at J = 200: on the second
// setting's instances 1 and 4, 37 of the 41 jobs whose targets differ have
// over 3% of the cluster's work, the other four about 1%). Measured at the
// default effort, SLA cost, summed excess over the best known
// (docs/solver-at-scale-log.md, session 45), eight seeds of the kicks: 22
// cells at J = 200 (seeds 1, 10 to 13 and 20 to 25, both settings) 0.2875
// -> 0.2536, cells past 1% 17 -> 14; 22 cells at J = 100 0.1591 -> 0.1423
// (3 -> 1); seeds 26 to 29 at J = 200, not used to choose it, 0.1078 ->
// 0.0905; four seeds: 22 cells at J = 50 0.0690 -> 0.0538 (seeds 22 to 25,
// 28 and 29 0.0297 -> 0.0330), seeds 28 and 29 at J = 100 0.0351 ->
// 0.0196; J = 20 the same within the seeds' spread. A share of 0.35 or
// 0.65 did less, and so did half the kicks from the big jobs and half from
// all (a scratch build, J = 200: 0.2543, 0.2683 and 0.2565, against 0.2502
// at a half).
const levelKickShare = 0.5

// repairKickTenths is how many in ten of levelWalk's steps are, below
// budgetBoundJobs jobs, a repair of one target (repairTarget: a job's
// target a step earlier, the cheapest jobs before the first miss a step
// later) instead of a kick and its descent; the job is the one with the
// most to gain of repairPicks drawn at random. The result may score worse
// than the walk: it is a kick. Measured at the default effort, SLA cost,
// unseen seeds 10 to 13 against references searched again from
// levelRepair's answers, eight seeds of the walks' kicks, summed excess of
// the four cells at J = 50 and 100: 0.0310 without, 0.0288 with 2 (lower
// with 7 of the 8 seeds); a draft with 4 did 0.0288 too, with 6 no better
// than none on four seeds. At J = 200, beside the ruins (see
// ruinKickTenths), 2 did worse (four seeds 0.0376 -> 0.0439).
const repairKickTenths = 2

// repairPicks is how many jobs repairPick draws.
const repairPicks = 5

// repairPick is, of repairPicks jobs drawn at random, the one whose target
// a step earlier gains the most (the first drawn among equals); ok false
// if none of them has a step earlier to take.
func (lv *levels) repairPick(rng *rand.Rand) (k int, ok bool) {
	k = -1
	for range repairPicks {
		j := rng.IntN(len(lv.level))
		if lv.level[j] > lv.first[j] && (k < 0 || lv.gainEarlier(j) > lv.gainEarlier(k)) {
			k = j
		}
	}
	return k, k >= 0
}

// Ruins (levelWalk, from budgetBoundJobs jobs): ruinKickTenths in ten of
// the walk's steps are a ruin instead of a kick and its descent; a ruin
// gives one of the ruinJobs jobs with the most work, at random, a target a
// step later, and tries the targets of the ruinRaises jobs with the most to
// gain per second of their fastest duration a step earlier.
const (
	ruinKickTenths = 4
	ruinJobs       = 40
	ruinRaises     = 20
)

// bigTarget is one of the ruinJobs jobs with the most work that has a target
// (is not given up), drawn at random; ok false if there is none.
func (lv *levels) bigTarget(rng *rand.Rand) (k int, ok bool) {
	var big [ruinJobs]int
	m := 0
	for _, k := range lv.byWork {
		if m == ruinJobs {
			break
		}
		if lv.level[k] < lv.none[k] {
			big[m] = k
			m++
		}
	}
	if m == 0 {
		return 0, false
	}
	return big[rng.IntN(m)], true
}

// ruinSpace is ruin's reusable workspace.
type ruinSpace struct {
	order []int
	gains []ruinGain
}

// ruinGain is a job ruin may give an earlier target, and what it gains per
// second of its fastest duration.
type ruinGain struct {
	k    int
	gain float64
}

// ruin gives job r a target a step later and then tries, one by one, the
// targets a step earlier of the ruinRaises jobs with the most to gain per
// second of their fastest duration (work / max), each kept when it scores
// better than the order so far; it returns the result's order (built by lv,
// whose targets it leaves as the result's), its exact score and the
// evaluations spent. The result may score worse than order: it is a kick.
//
// Why: on SLA cost at J = 200 the best known orders differ from FLEX's in
// many-for-one exchanges of targets that the level search's moves do not
// make (its exchanges are one for one). On the committed base case, instance
// 0, the best known order has ten jobs meeting an earlier step than FLEX's
// answer, most of them small, and three a later one, two of them among the
// biggest; from FLEX's answer, ruins of its 20 biggest jobs in turn (first
// improvement) took it from 1.047 to 1.016 of the reference, but in most of
// a search's budget. As a kick in the walks, in four of ten steps (with a
// ruin at every step the second setting went to 1.099: the random kicks are
// still needed), measured at the default effort (docs/solver-at-scale-log.md,
// item 3): J = 200, committed references, base case 1.040 / 1.056 -> 1.030 /
// 1.042, second setting 1.060 / 1.101 -> 1.058 / 1.084; unseen seeds 10 to
// 13, base case 1.031 -> 1.026, second setting 1.044 -> 1.043; over four
// seeds of the walks' kicks, the summed excess of the two unseen cells 0.077
// -> 0.069, lower with every seed. At J = 100 it was mixed, and it is left
// out there.
func (ev *evaluator) ruin(lv *levels, order []int, r, budget int, rs *ruinSpace) ([]int, score, int) {
	in := ev.in
	rs.order = append(rs.order[:0], order...)
	c := rs.order
	lv.level[r]++
	lv.rebuild(c, r)
	inc := ev.newIncumbent(c, nil)
	inc.full++
	// The ruinRaises jobs with the most to gain, the most first (ties by
	// job), kept sorted as they are found: a walk makes hundreds of ruins,
	// and sorting every candidate cost more than the few kept.
	gains := rs.gains[:0]
	for k := range len(order) {
		if k == r || lv.level[k] <= lv.first[k] {
			continue
		}
		gain := lv.cost(k, lv.level[k]) - lv.cost(k, lv.level[k]-1)
		g := ruinGain{k, gain * float64(in.max[k]) / in.work[k]}
		if len(gains) == ruinRaises && g.gain <= gains[ruinRaises-1].gain {
			continue
		}
		// Before the first that gains less: after those that gain as
		// much, which have lower indices.
		at, _ := slices.BinarySearchFunc(gains, g.gain, func(e ruinGain, v float64) int {
			if e.gain >= v {
				return -1
			}
			return 1
		})
		if len(gains) == ruinRaises {
			gains = gains[:ruinRaises-1]
		}
		gains = slices.Insert(gains, at, g)
	}
	rs.gains = gains
	for _, g := range gains {
		if inc.spent() >= budget {
			break
		}
		k := g.k
		lv.level[k]--
		if _, _, ok := lv.tryTargets(inc, c, k); !ok {
			lv.level[k]++
		}
	}
	return inc.result()
}

// tryTargets rebuilds cand, the incumbent's order, for the targets of jobs
// ks just changed in lv, and makes it the incumbent if it scores better
// (incumbent.try); if not, cand is the incumbent's order again. It returns
// the span of positions that changed and whether the move was kept.
func (lv *levels) tryTargets(inc *incumbent, cand []int, ks ...int) (p, q int, ok bool) {
	lv.rebuild(cand, ks...)
	if p, q = changedSpan(cand, inc.order); p < q && inc.try(cand, p, q) {
		return p, q, true
	}
	copy(cand, inc.order)
	return p, q, false
}

// levels is levelSearch's state: each job's target step and what bounds it.
type levels struct {
	in *instance
	// backRank is each job's place in the back order; first its first
	// reachable step; none the target that means given up; level its
	// target.
	backRank, first, none, level []int
	// byWork is every job, the most work first: the order in which
	// levelDescent's exchanges try partners (made once per levelSearch,
	// not at every descent).
	byWork []int
	// due[off[k]+l] is job k's place in the order with target l: the
	// step's deadline (plus levelJit times the job's work over the
	// cluster's slots, less levelFast times its fastest duration: see
	// levelJit and levelFast; not with evaluator.byDeadline), +Inf for none
	// (given up; then by back order). A table rather than the SLA steps
	// read at each comparison: a level search compares jobs millions of
	// times (dueOf, cmp).
	due []float64
	off []int
	// home, when not nil, is the targets of the walk a descent after a
	// kick started from (levelWalk), and homeS their order's score: a
	// descent whose moves take the targets back there ends at once,
	// since from there it would only confirm the walk's local optimum
	// again. At J = 100 half of the walk's steps were such (the kick
	// undone), each spending some 14 evaluations, most of them on that
	// confirmation; ending there, a walk made 35% more steps with the
	// same budget (docs/solver-at-scale-log.md, item 3).
	home  []int
	homeS score
	// homeSeq is levelDescent's order of the jobs for the home targets
	// (seqOf), valid while homeSeqOK.
	homeSeq   []int
	homeSeqOK bool
	// How a walk's descents search (levelSearch gives its two walks
	// different ones): gainToFirst tries first the jobs with the most to
	// gain from their first reachable step, rather than from the step
	// before their target; kickExchanges makes exchanges in the descents
	// after a kick too.
	gainToFirst, kickExchanges bool
}

// gainOf is what job k gains in levelDescent's eyes with target l: from
// the step before, or with gainToFirst from its first reachable step; 0
// at its first.
func (lv *levels) gainOf(k, l int) float64 {
	switch {
	case lv.gainToFirst:
		return lv.cost(k, l) - lv.cost(k, lv.first[k])
	case l > lv.first[k]:
		return lv.cost(k, l) - lv.cost(k, l-1)
	}
	return 0
}

// seqOf is levelDescent's order of the jobs for the targets in lv.level:
// the most to gain first (gainOf), ties by job, in ds.seq. After a kick
// (lv.home set) it is the home targets' order with the jobs whose target
// differs moved, rather than a sort: the order for the home targets is
// sorted once per walk step that moves home (lv.homeSeq), and most steps
// do not.
func (lv *levels) seqOf(ds *descentSpace) []int {
	n := len(lv.level)
	seq := slices.Grow(ds.seq[:0], n)[:n]
	gain := slices.Grow(ds.gain[:0], n)[:n]
	ds.seq, ds.gain = seq, gain
	byGain := func(a, b int) int {
		if c := cmp.Compare(gain[b], gain[a]); c != 0 {
			return c
		}
		return a - b
	}
	if lv.home == nil {
		for k := range n {
			seq[k] = k
			gain[k] = lv.gainOf(k, lv.level[k])
		}
		slices.SortFunc(seq, byGain)
		return seq
	}
	if !lv.homeSeqOK {
		lv.homeSeq = slices.Grow(lv.homeSeq[:0], n)[:n]
		for k := range n {
			lv.homeSeq[k] = k
			gain[k] = lv.gainOf(k, lv.home[k])
		}
		slices.SortFunc(lv.homeSeq, byGain)
		lv.homeSeqOK = true
	}
	moved := ds.moved[:0]
	for k := range n {
		gain[k] = lv.gainOf(k, lv.level[k])
		if lv.level[k] != lv.home[k] {
			moved = append(moved, k)
		}
	}
	ds.moved = moved
	seq = append(seq[:0], lv.homeSeq...)
	if len(moved) > 0 {
		seq = slices.DeleteFunc(seq, func(k int) bool { return lv.level[k] != lv.home[k] })
		for _, k := range moved {
			at, _ := slices.BinarySearchFunc(seq, k, byGain)
			seq = slices.Insert(seq, at, k)
		}
	}
	return seq
}

// dueOf is job k's place in the order: its target's deadline, +Inf when
// given up (the given-up jobs then in back order: cmp).
func (lv *levels) dueOf(k int) float64 {
	return lv.due[lv.off[k]+lv.level[k]]
}

// cost is job k's penalty when it meets target l (none: misses all).
func (lv *levels) cost(k, l int) float64 {
	if l == 0 {
		return 0
	}
	return lv.in.pj[k].SLA[l-1].Penalty
}

// build sorts order by the targets.
func (lv *levels) build(order []int) {
	slices.SortFunc(order, lv.cmp)
}

// cmp is build's order: a total one (ties by job), so the order of given
// targets is unique: by dueOf, the given-up jobs in back order, ties by
// job.
func (lv *levels) cmp(a, b int) int {
	da, db := lv.dueOf(a), lv.dueOf(b)
	switch {
	case da < db:
		return -1
	case da > db:
		return 1
	case math.IsInf(da, 1):
		return lv.backRank[a] - lv.backRank[b]
	}
	return a - b
}

// rebuild is build for an order that was built before the targets of jobs
// ks changed: it takes them out and puts each back where build would, in
// O(J) rather than a sort (a level search tries thousands of changes, and
// the sorts were an eighth of its time at J = 100 to 200).
func (lv *levels) rebuild(order []int, ks ...int) {
	if len(ks) == 1 {
		// One job (most of the changes a descent tries): it moves
		// between its place and its new one, the jobs between shift by
		// one, and nothing else is read or copied: 0.983 times SLA
		// cost's instructions at J = 200 (0.989 at J = 100) against
		// taking it out of the whole order and putting it back, the
		// same answers.
		k := ks[0]
		i := slices.Index(order, k)
		to := lv.before(order[:i], k)
		if to == i {
			to += lv.before(order[i+1:], k)
		}
		if to < i {
			copy(order[to+1:i+1], order[to:i])
		} else {
			copy(order[i:to], order[i+1:to+1])
		}
		order[to] = k
		return
	}
	rest := slices.DeleteFunc(order, func(j int) bool { return slices.Contains(ks, j) })
	for _, k := range ks {
		rest = slices.Insert(rest, lv.before(rest, k), k)
	}
}

// before is how many jobs of s, which is sorted by build's order and does
// not hold job k, come before k in that order (cmp): where build puts k
// among them. A binary search with k's place read once, rather than
// slices.BinarySearchFunc with cmp, which reads both jobs' at every step:
// placeOf and rebuild were an eighth of a level search's time at J = 100.
func (lv *levels) before(s []int, k int) int {
	dk := lv.dueOf(k)
	given := math.IsInf(dk, 1)
	lo, hi := 0, len(s)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		a := s[mid]
		// cmp(a, k) < 0; the given-up jobs in back order.
		if da := lv.dueOf(a); da < dk || da == dk && (given && lv.backRank[a] < lv.backRank[k] || !given && a < k) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// exchangeGuesses is how many partners levelDescent's exchanges guess for
// each job (guessExchange), of the jobs that may take a later target (due
// before the job's new one, losing less than it gains), the most work
// first; the best-guessed one is tried. Before the guesses every partner
// was estimated, the first five of each job's before the rest (at J = 200
// the exchanges took 40 to 70% of a first descent that spends the whole
// budget). With the guesses, SLA cost's summed excess over the best known
// (14 cells: committed references J = 20 to 200 both settings, unseen
// seeds 7 to 9 at J = 100 and 200) was -0.030 with 8 partners and -0.031
// with all of them, in a third less time (docs/solver-at-scale-log.md).
const exchangeGuesses = 8

// levelReach is how far (in positions) from a change levelSearch looks
// again: with don't-look bits, as window search has, a descent after a kick
// re-examines only the jobs near what moved, instead of every job. Measured
// on the committed references and the unseen seeds 7 to 9 (J = 100) at the
// default effort, SLA cost, average ratio: 3 did better at J = 200 and worse
// at J = 50, 8 and 12 alike; 8 it is.
const levelReach = 8

// markJobs sets the look bits of the jobs at positions lo-reach to
// hi+reach of order.
func markJobs(look []bool, order []int, lo, hi, reach int) {
	for x := max(0, lo-reach); x < min(len(order), hi+reach+1); x++ {
		look[order[x]] = true
	}
}

// levelDescent is levelSearch's descent from lv's targets (updated in
// place): single target changes, then exchanges, first improvement, until
// a pass finds nothing or budget evaluations are spent. cand is a
// permutation to work in. Each job tries only its best-guessed target
// (guessLevel) and its best-guessed exchange (guessExchange): on SLA cost
// the summed excess over the best known (14 cells: committed references
// J = 20 to 200 both settings, unseen seeds 7 to 9 at J = 100 and 200)
// went from 0.238 to 0.086 at about the same time (guesses counted in the
// budget, guessTermsPerEvent), and to -0.030 with the guesses uncounted,
// in three times the time (docs/solver-at-scale-log.md).
//
// look, when not nil, says which jobs to look at first (the descent after
// a kick); those descents make no exchanges unless lv.kickExchanges (the
// second walk of levelSearch). Don't-look bits keep every
// descent to the jobs near the last changes.
//
// A job's target moves to any earlier step, or one step later, not more:
// on the five base-case instances at J = 200, targets two or three steps
// later were 11,487 of the moves tried, cost 39% of the budget, and one of
// them was kept. Exchanges cost two thirds of an iterated descent at
// J = 100 and were one kept move in 570 tried, against one in 14 for
// single changes; the kicks make up for them.
func (ev *evaluator) levelDescent(lv *levels, cand []int, budget int, look []bool) ([]int, score, int) {
	n := len(cand)
	level, first := lv.level, lv.first
	lv.build(cand)
	inc := ev.newIncumbent(cand, nil)
	inc.full++
	exchanges := look == nil || lv.kickExchanges
	// The descent's slices are the evaluator's, reused: a walk makes
	// hundreds of descents (ev.descent).
	ds := &ev.descent
	if look == nil {
		ds.look = slices.Grow(ds.look[:0], n)[:n]
		look = ds.look
		for k := range look {
			look[k] = true
		}
	}
	ds.lookX = append(ds.lookX[:0], look...)
	// pos is each job's position in inc.order, kept as moves are: the
	// guesses read it for every job they try.
	pos := slices.Grow(ds.pos[:0], n)[:n]
	ds.pos = pos
	for x, k := range inc.order {
		pos[k] = x
	}
	lookX := ds.lookX
	ks := ds.ks[:0]
	gs := &ds.gs
	// seq is the order in which the jobs' targets are tried: the most to
	// gain first (from the step before the target, or with
	// lv.gainToFirst from the first reachable step), rather than by
	// index. On three base-case instances at J = 200 the six first
	// descents (two searches each) spent 1,090 to 2,230 evaluations by
	// index, two of them stopped by the budget; by gain 900 to 1,770,
	// one stopped, and the answer was lower on all three.
	seq := lv.seqOf(ds)
	// home is set once a move takes the targets back to lv.home's (the
	// kick undone): the descent ends there (see levels.home).
	home := false
	try := func(ks ...int) bool {
		p, q, ok := lv.tryTargets(inc, cand, ks...)
		if ok {
			for x := p; x <= q; x++ {
				pos[inc.order[x]] = x
			}
			markJobs(look, inc.order, p, q, levelReach)
			markJobs(lookX, inc.order, p, q, levelReach)
			home = lv.home != nil && slices.Equal(level, lv.home)
		}
		return ok
	}
	for improved := true; improved && !home && inc.spent() < budget; {
		improved = false
		for _, k := range seq {
			if home || inc.spent() >= budget {
				break
			}
			if !look[k] {
				continue
			}
			look[k] = false
			// Only the best-guessed target (guessLevel) is tried.
			was := level[k]
			if l, ok := ev.guessLevel(lv, inc.order, pos, k, gs); ok {
				level[k] = l
				if try(k) {
					improved = true
					continue
				}
				level[k] = was
			}
		}
		if improved || !exchanges {
			continue
		}
		// Exchanges: one job's target a step earlier, another's a step
		// later, with the best-guessed partner only (guessExchange).
		ks = ks[:0]
		for k := range n {
			if level[k] > first[k] && lookX[k] {
				ks = append(ks, k)
			}
		}
		ds.ks = ks
		for _, k := range ks {
			if home || inc.spent() >= budget {
				break
			}
			lookX[k] = false
			if o, ok := ev.guessExchange(lv, inc.order, pos, k, gs); ok {
				level[k]--
				level[o]++
				if try(k, o) {
					improved = true
					break
				}
				level[o]--
				level[k]++
			}
		}
	}
	if home {
		// The order of lv.home's targets, built as inc.order is, and its
		// exact score: no schedule needed to confirm an estimate.
		return inc.order, lv.homeS, inc.spent()
	}
	return inc.result()
}
