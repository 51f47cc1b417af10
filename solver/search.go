package solver

import (
	"cmp"
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

// setBase makes order the evaluator's incumbent: later scoreFrom calls
// reuse its MPS run up to the first position they change, and
// scoreEstimate its per-job penalties (only on sums: a maximum has no
// per-job delta). The run is recorded from the first position where order
// differs from the last one recorded (mps.Packer.Rerecord): a search
// records its incumbent again after a few moves, and a kicked order
// shares a prefix with the walk's.
func (ev *evaluator) setBase(order []int) {
	if k := ev.packer.RecordedPrefix(order); k > 0 {
		ev.packer.Rerecord(order, k, ev.completions)
	} else {
		ev.packer.Record(order, ev.completions)
	}
	if ev.in.agg != penalty.Sum {
		return
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
	// The score as scoreCompletions sums it, from the same terms.
	v, second := 0.0, 0.0
	for k, c := range ev.completions {
		if reuse && c == ev.baseAt[k] {
			v += ev.basePen[k]
			if ev.plateau {
				second += ev.baseRamp[k]
			}
			continue
		}
		ev.baseAt[k] = c
		ev.basePen[k] = ev.in.fn[k].At(c)
		v += ev.basePen[k]
		if ev.plateau {
			pull := ev.pull(k, c)
			ev.baseRamp[k] = ev.rampWith(c, pull)
			ev.baseHot[k] = pull > 0 || ev.basePen[k] > 0
			if ev.dues != nil {
				ev.baseAround[k] = ev.aroundOf(k, c)
			}
			second += ev.baseRamp[k]
		}
	}
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

// scoreEstimate is scoreFrom for an order that also equals the incumbent
// after position m, estimated by mps.Packer.Estimate: it stops scheduling
// where the two schedules meet again. Cheap, and exact to about 1e-9 of
// the objective (see estimateTol).
//
// Only the jobs the estimate scheduled itself are scored; the others keep
// their penalties in the incumbent: the score is the incumbent's plus the
// difference (on sums, which is where the search at scale runs).
func (ev *evaluator) scoreEstimate(order []int, k, m int) score {
	ev.evaluations++
	touched := ev.packer.Estimate(order, k, m, ev.completions)
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
// On sums a move is scored by an estimate (scoreEstimate) and kept on it
// when it beats the incumbent by more than estimateTol: the incumbent's
// score is then an estimate's until it is next recorded (record, result).
// A maximum is scored in full from the recorded prefix (scoreFrom).
func (in *incumbent) try(cand []int, p, q int) bool {
	if p-in.valid > recordGap {
		in.record()
	}
	if in.ev.in.agg == penalty.Sum {
		e0 := in.ev.packer.Events()
		t := in.ev.scoreEstimate(cand, min(p, in.valid), max(q, in.changed))
		in.estimated += max(1, in.ev.packer.Events()-e0)
		if !t.lessBy(in.s, estimateTol) {
			return false
		}
		in.s, in.exact = t, false
	} else {
		in.full++
		t := in.ev.scoreFrom(cand, min(p, in.valid))
		if !t.less(in.s) {
			return false
		}
		in.s = t
	}
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

// windowSearch is first-improvement insertion local search in which each job
// moves to the positions within window either way, and to a few farther
// ones at geometrically growing distances (jumps, windowTargets: below
// jump, which is maxJump but in one of dueSearches' searches); it runs
// until a pass finds nothing or budget evaluations are spent. look says
// which positions to try first (nil: all); reach is how far from an
// accepted move positions are looked at again. On the search at scale (sums of deadline penalties
// with a margin) each position tries only its best-guessed move
// (guessBest), of those mayGain allows.
//
// Four things keep it cheap. Don't-look bits (Bentley's, for the TSP): a
// pass tries the moves of position i only if a position within reach of i
// changed since i was last tried, so the passes that confirm a local
// optimum cost little, and a kick (iterated search) re-examines only the
// positions near its cuts. The guesses: one estimate per position rather
// than one per move. Prefix reuse: a move from position p on is scheduled
// from the incumbent's state before p (mps.Packer.Resume, Rerecord). And
// screening: a move is estimated by scheduling only until its schedule
// meets the incumbent's again (mps.Packer.Estimate), about the moved span
// instead of the rest of the order. start's score is *s, or, with s nil,
// taken from the run that records it (newIncumbent).
func (ev *evaluator) windowSearch(start []int, s *score, budget, window, reach, jump int, look []bool) ([]int, score, int) {
	n := len(start)
	inc := ev.newIncumbent(start, s)
	cand := make([]int, n)
	whole := look == nil
	if look == nil {
		look = make([]bool, n)
		for i := range look {
			look[i] = true
		}
	}
	targets := make([]int, 0, 2*window+32)
	// Moves that cannot pay are skipped on the search at scale (mayGain),
	// in every descent (see mayGain for when that was measured).
	prune := ev.margin > 0 && ev.in.agg == penalty.Sum && ev.plateau
	seq := identity(n)
	var gs guessSpace
	for improved := true; improved && inc.spent() < budget; {
		improved = false
		if whole && prune {
			// A descent over the whole order tries first the positions
			// of the most penalised jobs (in the incumbent's last
			// recording), as levelDescent does its jobs: at J = 200 it
			// is most of the search and the budget ends it. Measured
			// at the default effort, summed excess over the best known
			// of the 24 tardiness cells (J = 50 to 200 both settings,
			// unseen seeds 7 to 9 at J = 100 and 200): 0.275 -> 0.248,
			// and 0.278 -> 0.267 with other kicks (the walks' seeds),
			// a gain about the size of that spread. At J = 200, where
			// no kick runs, 5 of the 10 cells better and 4 worse:
			// weighted_tardiness 1.035 -> 1.022 (second setting 1.029
			// -> 1.019), avg_tardiness 1.021 -> 1.032. In one of
			// dueSearches' two searches only, 0.265 or 0.248. Tardy
			// jobs and SLA cost came out the same in every cell.
			pen, order := ev.basePen, inc.order
			for i := range seq {
				seq[i] = i
			}
			slices.SortStableFunc(seq, func(a, b int) int { return cmp.Compare(pen[order[b]], pen[order[a]]) })
		}
		for _, i := range seq {
			if inc.spent() >= budget {
				break
			}
			if !look[i] {
				continue
			}
			look[i] = false
			if prune {
				// Only the best-guessed move (guessBest).
				if k, ok := ev.guessBest(inc.order, i, window, jump, &gs); ok {
					moveTo(cand, inc.order, i, k)
					if p, q := min(i, k), max(i, k); inc.try(cand, p, q) {
						improved = true
						markAround(look, p, q, reach)
					}
				}
				continue
			}
			targets = windowTargets(targets[:0], i, n, window, jump)
			for _, k := range targets {
				if k < 0 || k > n || inc.spent() >= budget {
					continue
				}
				moveTo(cand, inc.order, i, k)
				if p, q := min(i, k), max(i, k); inc.try(cand, p, q) {
					improved = true
					markAround(look, p, q, reach)
					break
				}
			}
		}
	}
	return inc.result()
}

// mayGain reports whether moving the job at position i of order to before
// position k can pay on a sum of deadline penalties, judged from the
// incumbent's last recording (baseHot): a job moved earlier only if it is
// late there, or within the margin of its deadline (evaluator.early); a job
// moved later only if one of the jobs it lets by is. A job on time gains
// nothing from finishing earlier, and the jobs it passes only lose, and
// the other way round. That is not exact (a job finishing earlier also
// frees its slots earlier for the jobs behind, and the recording lags the
// incumbent by up to recordGap positions): on three instances each at J =
// 100 and 200, 1 to 15% of the moves skipped would have lowered the
// objective. But it skips 30 to 55% of window search's moves at J = 100
// and 13 to 30% at J = 200, and the budget they took goes to further
// descents and kicks (docs/solver-at-scale-log.md has the measurements).
//
// Window search skips them in every descent. In the descent over the whole
// order it did so at first only from budgetBoundJobs jobs: below, that
// descent converges anyway, and skipping sent 2 of 10 base-case instances
// at J = 100 to worse basins. With two searches from two starts on
// tardiness (dueSearches) a worse basin in one is hedged by the other,
// and skipping everywhere did better: avg_tardiness at J = 100 1.013 ->
// 1.004, weighted tardy jobs in the second setting at J = 50 1.024 ->
// 1.000, 5 of 70 sum cells better and 2 worse (within 1%).
func (ev *evaluator) mayGain(order []int, i, k int) bool {
	if k < i {
		return ev.baseHot[order[i]]
	}
	for _, j := range order[i+1 : k] {
		if ev.baseHot[j] {
			return true
		}
	}
	return false
}

// guessBest is window search's guess at the best move of the job at
// position i of order (to before position i-d or i+d+1, d = 1 to window,
// and at the jumps, as windowTargets lists them): the target whose move
// scores best on a single machine of S slots (guessMoves), if that beats
// the incumbent; ok false if none does. The moves mayGain rules out are
// not guessed.
//
// Why: the estimate of a move (scoreEstimate) schedules the moved span
// and beyond, about twenty events at J = 100; the guess costs one penalty
// per position passed, and on the jobs neither late nor near it (most of
// them) not even that. Estimating only the best-guessed move of each job,
// against estimating every move in order, took the summed excess over the
// best known of the 28 tardiness cells (committed references, J = 20 to
// 200, both settings, and the unseen seeds 7 to 9 at J = 100 and 200)
// from 0.252 to 0.040 at the same budget; the guesses' correlation with the
// estimates was 0.93 (J = 100, avg_tardiness; docs/solver-at-scale-log.md).
func (ev *evaluator) guessBest(order []int, i, window, jump int, gs *guessSpace) (best int, ok bool) {
	gs.targets = windowTargets(gs.targets[:0], i, len(order), window, jump)
	return ev.bestGuess(ev.guessMoves(order, i, gs.targets, skipCold, gs))
}

// windowTargets appends to dst window search's targets for the job at
// position i of n (it moves to before each): i-d and i+d+1 for d = 1 to
// window, then the jumps, d = 2 window, 4 window, ... below jump and n.
// Targets out of [0, n] are the caller's to skip.
func windowTargets(dst []int, i, n, window, jump int) []int {
	for d := 1; d <= window; d++ {
		dst = append(dst, i-d, i+d+1)
	}
	for d := 2 * window; d < min(n, jump); d *= 2 {
		dst = append(dst, i-d, i+d+1)
	}
	return dst
}

// bestGuess is the first of the best of guesses, if it beats the
// incumbent by more than improveTol (as score.less has it).
func (ev *evaluator) bestGuess(guesses []guessed) (best int, ok bool) {
	epsV, epsS := improveTol*math.Abs(ev.base.value), improveTol*math.Abs(ev.base.second)
	var top guessed
	for _, g := range guesses {
		if !(g.v < -epsV || g.v <= epsV && g.s < -epsS) {
			continue
		}
		if !ok || g.v < top.v-epsV || g.v <= top.v+epsV && g.s < top.s {
			top, ok = g, true
		}
	}
	return top.k, ok
}

// guessed is a move's guessed change in score: the job moves to before
// position k.
type guessed struct {
	k    int
	v, s float64
}

// guessOpts says which of targets guessMoves may leave out.
type guessOpts uint8

const (
	// skipCold leaves out the moves mayGain rules out.
	skipCold guessOpts = 1 << iota
	// judgedAlone says the caller judges each move by its own guess
	// (bestGuess), not summed with another's (guessExchange): the moves
	// forward whose guess cannot beat the incumbent are left out, and
	// the sweep stops before them.
	judgedAlone
)

// guessMoves guesses the change in score of moving the job at position i
// of order to before each of targets (those out of [0, len(order)], or i
// or i+1, are skipped), on a single machine of S slots: the job finishes
// the work of the jobs it passes, over S, earlier (later), and each of
// them its own work over S later (earlier), from their completions in the
// incumbent's last recording (setBase). opts may leave some moves out (see
// guessOpts). One sweep each way serves every target; the guesses count
// towards the searches' budgets (evaluator.guessed), as far as the sweeps
// went. The slice returned is gs's.
func (ev *evaluator) guessMoves(order []int, i int, targets []int, opts guessOpts, gs *guessSpace) []guessed {
	in := ev.in
	n := len(order)
	a := order[i]
	out := gs.out[:0]
	prune := opts&skipCold != 0
	// The targets guessed: in range, a move, and with prune one mayGain
	// allows; the sweeps go as far as the farthest each way.
	keep := slices.Grow(gs.keep[:0], len(targets))[:len(targets)]
	gs.keep = keep
	maxL, maxR := 0, 0
	for x, k := range targets {
		keep[x] = k >= 0 && k <= n && k != i && k != i+1 && (!prune || ev.mayGain(order, i, k))
		switch {
		case !keep[x]:
		case k < i:
			maxL = max(maxL, i-k)
		default:
			maxR = max(maxR, k-i-1)
		}
	}
	if maxL == 0 && maxR == 0 {
		gs.out = out
		return out
	}
	sl := float64(in.slots)
	pa := in.work[a] / sl
	// judgedAlone: the left sweep stops where the passed jobs' delays
	// already cost more than a can gain at all, its penalty less its
	// floor. No penalty falls as its job completes later, so no move
	// farther forward can pay either (bestGuess would reject it). Level
	// moves forward go to their targets' places, often far, and the
	// guesses were two thirds of a level walk's budget at J = 100; with
	// the sweeps cut, a walk makes a fifth more steps with the same
	// budget (docs/solver-at-scale-log.md, item 7). Window search's moves
	// stay within 32 positions: there it bought tardiness little (0.0209
	// -> 0.0198 summed excess on the unseen cells) for 6% more
	// instructions at J = 200, which is at its time bar.
	bound := math.Inf(1)
	if opts&judgedAlone != 0 {
		bound = ev.basePen[a] - ev.dues[a].floor + improveTol*math.Abs(ev.base.value)
	}
	// left[d], d = 1 to maxL: the jobs at i-1 to i-d, each later by pa;
	// right[d], d = 1 to maxR: the jobs at i+1 to i+d, each earlier.
	need := maxL + maxR + 2
	if cap(gs.cum) < need {
		gs.cum = make([]guessCum, need)
	}
	left := gs.cum[:maxL+1]
	right := gs.cum[maxL+1 : need]
	// Running sums in locals: read back from the slices, each step
	// waited on the last one's stores.
	var v, sc, shift float64
	for d := 1; d <= maxL; d++ {
		b := order[i-d]
		if r := &ev.baseAround[b]; pa < r.right {
			v += r.vr * pa
			sc += r.sr * pa
		} else {
			dv, ds := ev.delta(b, ev.baseAt[b]+pa)
			v += dv
			sc += ds
		}
		shift += in.work[b]
		left[d] = guessCum{v, sc, shift}
		if v > bound {
			maxL = d - 1
			break
		}
	}
	ev.guessed += maxL + maxR + len(targets)
	v, sc, shift = 0, 0, 0
	for d := 1; d <= maxR; d++ {
		b := order[i+d]
		if r := &ev.baseAround[b]; pa < r.left {
			v -= r.vl * pa
			sc -= r.sl * pa
		} else {
			dv, ds := ev.delta(b, ev.baseAt[b]-pa)
			v += dv
			sc += ds
		}
		shift += in.work[b]
		right[d] = guessCum{v, sc, shift}
	}
	for t, k := range targets {
		var x guessCum
		var c float64
		switch {
		case !keep[t] || k < i-maxL:
			continue
		case k < i:
			x = left[i-k]
			c = ev.baseAt[a] - x.shift/sl
		default:
			x = right[k-i-1]
			c = ev.baseAt[a] + x.shift/sl
		}
		dv, ds := ev.delta(a, c)
		out = append(out, guessed{k, x.v + dv, x.s + ds})
	}
	gs.out = out
	return out
}

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

// guessSpace is the guesses' workspace.
type guessSpace struct {
	targets, levels []int
	keep            []bool
	cum             []guessCum
	out             []guessed
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

// guessCum is a running sum of guessed changes (penalty, tie-breaker) and
// of the work passed.
type guessCum struct{ v, s, shift float64 }

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
//     the second-best candidate, at slaTwoSearchesShare of the budget,
//     and tardiness's from the second-best candidate rather than from
//     SRPT (dueSearches);
//   - the level search's order stays by the targets' deadlines, without
//     levelJit's and levelFast's shifts.
//
// (Window search skipped the moves mayGain rules out in its descent over
// the whole order only from here too, until tardiness ran two searches
// from two starts; see mayGain.)
const budgetBoundJobs = 150

// slaDescentShare is the share of the budget that the level search leaves,
// on SLA cost below budgetBoundJobs jobs, to a descent over the whole
// insertion neighbourhood after it (dueSearch).
const slaDescentShare = 0.1

// maxJump bounds window search's jumps: it tries distances 2 window, 4
// window, ... below maxJump (6, 12 and 24 positions), but in the descent of
// dueSearches' second search on tardiness (see there). A move's estimate runs
// until the moved job's schedule meets the incumbent's again, so its cost
// grows with the distance, and the farther jumps almost never pay: on the
// five base-case instances at J = 200 (weighted tardiness), moves of 32
// positions or more were 6,877 of 61,000 tried and 25% of the events
// estimated, and 10 of them were kept (of 3,900). Capped, the budget they
// took goes to more passes and kicks: against the committed references the
// sums of tardiness went from 1.018 to 1.004 (weighted, J = 100) and from
// 1.029 to 1.021 and 1.057 to 1.053 (J = 200), with the other metrics the
// same but one (docs/solver-at-scale-log.md).
const maxJump = 32

// markAround sets the look bits of positions lo-reach-1 to hi+reach+1.
func markAround(look []bool, lo, hi, reach int) {
	for x := max(0, lo-reach-1); x < min(len(look), hi+reach+2); x++ {
		look[x] = true
	}
}

// lateSwapShare is the share of the budget that lateSwaps may spend on
// tardiness, after the first window search (what it leaves goes to the
// walks); lateSwapJobs bounds the late jobs it pairs (the pairs are made
// and sorted outside the budget, J^2 at worst): on the committed instances
// at J = 200 at most 82 jobs are late. Since a pass goes on after a swap
// that pays (lateSwaps), on the unseen seeds 10 to 13 at J = 200 the
// summed excess over the best known of the four tardiness cells was
// 0.0236 at 0.1, 0.0222 at 0.2, 0.0216 at 0.3 and 0.0213 at 0.5, where
// the swaps mostly converge; 0.05 was the share when a pass started again
// after each swap (docs/solver-at-scale-log.md, item 4).
const (
	lateSwapShare = 0.3
	lateSwapJobs  = 128
)

// lateSwaps is first-improvement search over swaps of two late jobs out of
// Smith's order (what the job stands to lose per unit of time late, over its
// work: the job due later in the order has the higher ratio), the pairs
// with the largest difference of ratio first, each scored as one move of
// the incumbent from the first of the two positions to the second. It stops
// when no pair pays or budget evaluations are spent, and returns the order,
// its score and the evaluations spent. start's score is *s.
//
// Why: on a single machine, of two late jobs next to each other the one with
// the higher ratio goes first (Smith's rule), and swapping two late jobs of
// about the same work far apart leaves the jobs between them about where they
// were. Window search's moves are insertions within 32 positions, and a swap
// of jobs 40 positions apart is two insertions, each of which may lose on its
// own. On the unseen seed 10, J = 200, instance 8 (weighted tardiness), two
// jobs of 513 and 477 units, due at 3.7 and 2.8, were 43 positions apart in
// the wrong order: swapping them, and what that led to, took FLEX's answer
// from 1.051 to 1.005 of the best known. Measured at the default effort
// (docs/solver-at-scale-log.md, item 4): unseen seeds 10 to 13, weighted
// tardiness, J = 200 base case 1.0105 / 1.051 -> 1.0068 / 1.022; the summed
// excess of the four cells at J = 100 and 200 0.022 -> 0.017 (three seeds of
// the walks' kicks: 0.021 / 0.020 / 0.022 -> 0.018 / 0.018 / 0.017);
// avg_tardiness 0.023 / 0.022 -> 0.021 / 0.018 (two seeds), its committed
// J = 100 base case 1.005 -> 1.000. No committed cell worse by more than the
// seeds' spread.
func (ev *evaluator) lateSwaps(start []int, s *score, budget int) ([]int, score, int) {
	in := ev.in
	inc := ev.newIncumbent(start, s)
	ratio := func(k int) float64 { return in.stake(k) / in.work[k] }
	type pair struct {
		a, b int
		d    float64
	}
	var late []int
	var pairs []pair
	cand := make([]int, len(start))
	for improved := true; improved && inc.spent() < budget; {
		improved = false
		// The late jobs are those of the incumbent's recording (its
		// penalties, basePen).
		inc.confirm()
		pen := ev.basePen
		late = late[:0]
		for x, k := range inc.order {
			if pen[k] > 0 {
				late = append(late, x)
			}
		}
		if len(late) > lateSwapJobs {
			// The lateSwapJobs most penalised, in order.
			penaltyAt := func(x int) float64 { return pen[inc.order[x]] }
			slices.SortFunc(late, func(a, b int) int {
				if c := cmp.Compare(penaltyAt(b), penaltyAt(a)); c != 0 {
					return c
				}
				return a - b
			})
			late = late[:lateSwapJobs]
			slices.Sort(late)
		}
		pairs = pairs[:0]
		for i, a := range late {
			for _, b := range late[i+1:] {
				if d := ratio(inc.order[b]) - ratio(inc.order[a]); d > 0 {
					pairs = append(pairs, pair{a, b, d})
				}
			}
		}
		slices.SortFunc(pairs, func(x, y pair) int {
			if c := cmp.Compare(y.d, x.d); c != 0 {
				return c
			}
			return x.a - y.a
		})
		// One pass tries every pair once, going on after a swap that
		// pays: a swap leaves every other job where it was, so the pairs
		// still name two positions of the order, and a pair whose jobs
		// a swap has put in Smith's order is passed over. (A pass that
		// started again from the top after each swap spent most of its
		// budget on the pairs it had just rejected.)
		for _, p := range pairs {
			if inc.spent() >= budget {
				break
			}
			if ratio(inc.order[p.b]) <= ratio(inc.order[p.a]) {
				continue
			}
			copy(cand, inc.order)
			cand[p.a], cand[p.b] = cand[p.b], cand[p.a]
			if inc.try(cand, p.a, p.b) {
				improved = true
			}
		}
	}
	return inc.result()
}

// iterate spends the budget on iterated local search from best: a double-
// bridge kick of the walk's order (three cuts within span reaches of each
// other, the middle segments swapped), then window search from the kicked
// order with only the positions near the cuts to look at; the walk moves
// to the new local optimum when it is no worse. rng draws the kicks;
// seeded from the instance, it keeps the result a function of the input.
func (ev *evaluator) iterate(best scoredOrder, budget, window, reach, span int, rng *rand.Rand) scoredOrder {
	n := len(best.o.order)
	if n < 8 {
		return best
	}
	walk := best
	kick := make([]int, n)
	look := make([]bool, n)
	spent := 0
	for spent < budget {
		// Short segments: a kick that moves half the order undoes the
		// descent's work.
		w := min(n-1, span*reach)
		a := rng.IntN(n - w)
		cuts := []int{a + 1 + rng.IntN(w), a + 1 + rng.IntN(w)}
		slices.Sort(cuts)
		b, c := cuts[0], cuts[1]
		doubleBridge(kick, walk.o.order, a, b, c)
		clear(look)
		markAround(look, a, c, reach)
		o, s, used := ev.windowSearch(kick, nil, budget-spent-1, window, reach, maxJump, look)
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

// doubleBridge writes into dst the order src with its segments [a, b) and
// [b, c) swapped: the kick of the iterated searches.
func doubleBridge(dst, src []int, a, b, c int) {
	x := copy(dst, src[:a])
	x += copy(dst[x:], src[b:c])
	x += copy(dst[x:], src[a:b])
	copy(dst[x:], src[c:])
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

// dueSearches is dueSearch from best with the given budget or, where a
// second core buys more as a second search than as a second walk (see
// walks), two searches at once, each with one walk and the whole budget,
// and the better answer, the first's among equals. The second search starts
// elsewhere, so that it ends in another basin:
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
//     1.143 -> 1.085; the budget there is then cut to slaTwoSearchesShare
//     to meet the time bar, at about the quality of one search). The
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
	var res [2]scoredOrder
	ev.atOnce(2, func(e *evaluator, x int) {
		e.walks = 1
		e.noSplit = ev.slaOnly && x == 1
		e.farJumps = ev.tardinessOnly && x == 1
		res[x] = e.dueSearch(starts[x], budget)
	})
	if res[1].s.less(res[0].s) {
		return res[1]
	}
	return res[0]
}

// dueSearch is the search at scale for sums of deadline penalties: split
// searches from the best order's on-time set under two due keys (deadline,
// and deadline less the fastest duration), iterated on mixtures of
// metrics; on tardy jobs under keys and from starts of their own (big jobs
// just in time, the fluid model's set: see below), each followed by
// exchanges, the keys at once; on SLA cost one key, followed by the
// iterated level search and, below budgetBoundJobs, a full descent;
// skipped on tardiness alone; then window search from the best result;
// then iterated window search with what is left of the budget. It returns
// the best order found, or best itself when nothing beats it.
func (ev *evaluator) dueSearch(best scoredOrder, budget int) scoredOrder {
	in := ev.in
	n := len(in.jobs)
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	deadline := in.reachableDue
	// The back order is Smith's rule, cap-aware, with what a job stands
	// to lose as its weight.
	stake := in.stake
	back := sortedBy(n, func(k int) float64 {
		if st := stake(k); st > 0 {
			return fastest(k) / st
		}
		return math.Inf(1)
	})
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
		if left := budget - spent; left > 0 {
			exchangesBeside(left, func(e *evaluator, from scoredOrder) (scoredOrder, int) {
				o, s, u := e.windowSearch(from.o.order, &from.s, left, searchWindow, searchWindow, maxJump, nil)
				return from.beatenBy(o, s, "+window"), u
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
		rng := rand.New(rand.NewPCG(uint64(n), 0x5e7))
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
		jump := maxJump
		if ev.farJumps {
			jump = n
		}
		if wide {
			o, s, used := ev.windowSearch(best.o.order, &best.s, left, n, n, n, nil)
			spent += used
			best = best.beatenBy(o, s, "+descent")
			left = budget - spent
		}
		o, s, used := ev.windowSearch(best.o.order, &best.s, left, searchWindow, searchWindow, jump, nil)
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
	if left := budget - spent; left > 0 {
		best = ev.iterateWalks(best, left)
	}
	return best
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

// beatenBy is the order o, scored s, if it beats best, named as best's
// scheme with suffix (once: a stage run again does not repeat it); best
// otherwise.
func (best scoredOrder) beatenBy(o []int, s score, suffix string) scoredOrder {
	if !s.less(best.s) {
		return best
	}
	return scoredOrder{ordering{strings.TrimSuffix(best.o.scheme, suffix) + suffix, o}, s}
}

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
	if len(onTime) < budgetBoundJobs && slices.Equal(ev.in.distinctMetrics(), []penalty.Metric{penalty.TardyJobs}) {
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

// walks is how many iterated walks the search at scale runs at once from
// the same order (iterateWalks, levelSearch: there each from a descent of
// its own), each with kicks of its own and the whole budget left: on two
// cores in about the time of one (J = 100), and the better of two beats
// one walk (docs/solver-at-scale-log.md: SLA cost at J = 100 1.027 -> 1.020
// of the best known, second setting 1.044 -> 1.035, no sum of deadline
// penalties worse in 70 cells). Two walks
// sharing the budget, the same work as one, lost to one. On one core the
// stage takes twice as long; the answer does not depend on the cores.
// Where two whole searches run at once instead (dueSearches: tardiness,
// SLA cost), each has one walk; two searches from two starts did better
// than two walks from one.
const walks = 2

// iterateWalks is iterate from best with the given budget for each of
// ev.walks walks at once; it returns the best they reach, the first walk's
// among equals.
func (ev *evaluator) iterateWalks(best scoredOrder, budget int) scoredOrder {
	n := len(best.o.order)
	span := ev.kickSpan()
	res := make([]scoredOrder, ev.walks)
	ev.atOnce(ev.walks, func(e *evaluator, x int) {
		res[x] = e.iterate(best, budget, searchWindow, searchWindow, span, rand.New(rand.NewPCG(uint64(n), 0x6b1c+uint64(x))))
	})
	for _, r := range res {
		if r.s.less(best.s) {
			best = r
		}
	}
	return best
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

// searchWindow is how far window search moves a job either way.
const searchWindow = 3

// kickReaches is how many reaches (searchWindow) apart the cuts of the
// walks' double-bridge kicks may lie (iterateWalks): within 24 positions;
// on tardiness alone within tardinessKickReaches (18 positions). A longer
// kick moves more of the order the descents built, and its descent spends
// more of the budget repairing it. Measured at the default effort on the
// unseen seeds 10 to 13 at J = 200 (40 base-case and 20 second-setting
// instances, references from BestKnown at 100,000 evaluations), summed
// excess over the best known of avg_tardiness and weighted_tardiness in
// both settings, three seeds of the kicks: with lateSwaps' pass as it
// was, 8 0.0366 / 0.0351 / 0.0352, 6 0.0326 / 0.0339 / 0.0335, 5 0.0336 /
// 0.0323 / 0.0344, 4 0.0332, 3 0.0369, 12 0.0426; with the pass as it is
// (references searched again), 6 0.0234 / 0.0222 / 0.0229, 5 0.0220 /
// 0.0211 / 0.0217, 4 0.0195 / 0.0215 / 0.0210, 3 0.0218 / 0.0212, and at
// J = 50 and 100 together (two seeds) 6 0.0121 / 0.0106, 4 0.0114 /
// 0.0089; but 4 took the committed base case at J = 100 from 1.0003 to
// 1.0041 (one instance at 1.038) and did worse on the unseen J = 100
// cells (0.0050 / 0.0063 -> 0.0068 / 0.0062), so 6 stays. On SLA cost
// below 150 jobs, where the walks get what the level search leaves, 6 did
// worse on the committed cells (J = 50 1.0012 -> 1.0037, worst 1.012 ->
// 1.037), so it keeps 8 (docs/solver-at-scale-log.md, item 5).
const (
	kickReaches          = 8
	tardinessKickReaches = 6
)

// kickSpan is the walks' kick span in reaches on ev's objective.
func (ev *evaluator) kickSpan() int {
	if ev.tardinessOnly {
		return tardinessKickReaches
	}
	return kickReaches
}

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

// levelSearch is split search for SLA cost, where a job has several steps
// to aim at, not one deadline: each job has a target (one of its reachable
// steps, or none: given up), and the order is the targeted jobs by their
// target's deadline (below budgetBoundJobs jobs shifted by shares of their
// work and of their fastest duration: levelJit, levelFast), then the
// given-up ones in back order. A move changes
// one job's target, or raises one job's target by a step while another's
// falls by one (the exchange swapSearch makes for single deadlines). It
// starts from the steps start meets and runs ev.walks walks at once, each
// a descent from there (trying the jobs in an order of its own: see
// levelDescent) iterated while budget is left: two to four random jobs'
// targets a step earlier or later, a new descent that looks only near what
// the kick moved, kept when no worse. It returns the best order found, its
// score and the evaluations spent.
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
	n := len(start)
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
			o, s, more = e.levelWalk(&wl, o, s, budget-used, rand.New(rand.NewPCG(uint64(n), 0x1e7e1+uint64(x))))
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
	jit, fast := 0.0, 0.0
	if n < budgetBoundJobs {
		jit, fast = levelJit, levelFast
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

// levelJit places a targeted job in the level search's order, below
// budgetBoundJobs jobs, by its target's deadline plus levelJit times its
// work over the cluster's slots rather than by the deadline alone: a big
// job goes behind small jobs due a little after it, as the tardy-jobs
// keys' jit order has it (dueSearch) and as the best known orders do (a
// big job takes most of the slots once its turn comes, and finishes just
// in time behind them). Measured at the default effort, SLA cost, eight
// seeds of the walks' kicks, average ratio to the best known on the unseen
// seeds 10 to 13 (references from BestKnown at 100,000 evaluations), base
// case / second setting: J = 100 1.0062 / 1.0108 -> 1.0016 / 1.0066, J =
// 50 1.0020 / 1.0058 -> 1.0030 / 1.0063 (summed excess of the four cells
// 0.0249 -> 0.0175; against references searched again from this build's
// answers, 59 of 120 lower, J = 100 1.0151 / 1.0210 -> 1.0105 / 1.0167,
// J = 50 1.0081 / 1.0066 -> 1.0091 / 1.0071, summed excess 0.0508 ->
// 0.0434); committed references J = 100 1.0134 / 1.0179 ->
// 1.0056 / 1.0165, J = 50 1.0060 / 1.0031 -> 1.0014 / 1.0042, J = 20 the
// same within 0.0006. 0.25 did 0.0147 but took one J = 100 instance to
// 1.110; 0.35 0.0171, 0.7 0.0221, 1 (the tardy-jobs key's) worse than
// none. At J = 200 it did not help (0.5: unseen 1.0200 / 1.0248 -> 1.0197
// / 1.0268, committed base case 1.023 -> 1.033; 0.25 alike), so from
// budgetBoundJobs the order stays by deadline.
const levelJit = 0.5

// levelFast takes levelFast times a job's fastest duration (its work over
// its maximum) off its place in the level search's order, beside levelJit
// and below budgetBoundJobs jobs likewise, as split search's
// split_edd_slack key takes all of it (deadline less the fastest
// duration). A job whose maximum is the whole cluster keeps levelJit -
// levelFast of its work / S as its shift; one with a smaller maximum (one
// slot per task: its fastest duration is a task's time) keeps most of
// levelJit and goes earlier by a share of a task's time. Measured beside
// levelJit at 0.5, eight seeds of the kicks, SLA cost
// on the unseen seeds 10 to 13 against references searched again from the
// levelJit build's answers: summed excess of the four cells at J = 50 and
// 100 0.0434 -> 0.0376, all of it in the base case at J = 50 (1.0091 ->
// 1.0039; J = 100 the same within 0.0004); 0.2 did 0.0403, 0.5 0.0394, 0.1
// and 0.05 0.0416 and 0.0426, and adding instead of taking off (0.1, 0.25)
// 0.0484 and 0.0481.
const levelFast = 0.3

// levelWalk is levelSearch's iterated walk from the targets in lv and
// their order best, scored bestS: kick two to four targets a step, descend
// from there (from budgetBoundJobs jobs, in some steps a ruin instead: see
// ruin; below it, in some a repair of one target: see repairKickTenths),
// move when no worse, until budget evaluations are spent. It returns the
// best order it reaches, its score and the evaluations spent.
func (ev *evaluator) levelWalk(lv *levels, best []int, bestS score, budget int, rng *rand.Rand) ([]int, score, int) {
	n := len(best)
	spent := 0
	walk, walkS, walkOrder := slices.Clone(lv.level), bestS, slices.Clone(best)
	kicked, look := make([]int, n), make([]bool, n)
	lv.homeSeqOK = false
	var kicks [4]int
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
			k := rng.IntN(n)
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
		if cmpTol(s.value, walkS.value) <= 0 {
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
	// step's deadline (below budgetBoundJobs jobs plus levelJit times the
	// job's work over the cluster's slots, less levelFast times its
	// fastest duration: see levelJit and levelFast), +Inf for none
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

// guessTermsPerEvent is how many terms of the guesses (guessMoves) the
// searches' budgets count as one event of an estimate: a term, one job's
// penalty and tie-breaker at a shifted completion, mostly linear (around),
// costs about a quarter of a schedule's event. Uncounted, the guesses made
// an SLA cost solve three times as long at the default budget
// (docs/solver-at-scale-log.md).
const guessTermsPerEvent = 4

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

// criticalSearch is local search for a maximum past maxExhaustiveSearchJobs:
// only the job that attains the maximum (the most penalised; ties to the
// earliest) matters, so each pass tries it earlier, one position at a time
// back to the front, then each job ahead of it moved just behind it: 2 J
// schedules a pass instead of the J^2 of every insertion, scored from the
// incumbent's prefix (mps.Packer.Resume). First improvement of the score
// (the maximum, then the tie-breaker that sums every job's penalty, so a
// pass also makes progress when the maximum is tied), until a pass finds
// nothing or the budget is spent. start's score is *s (nil: taken from
// the run that records it, as windowSearch does).
func (ev *evaluator) criticalSearch(start []int, s *score, budget int) ([]int, score, int) {
	n := len(start)
	inc := ev.newIncumbent(start, s)
	cand := make([]int, n)
	for improved := true; improved && inc.spent() < budget; {
		improved = false
		ev.score(inc.order)
		inc.full++
		c, worst := 0, math.Inf(-1)
		for x, k := range inc.order {
			if v := ev.in.fn[k].At(ev.completions[k]); v > worst {
				c, worst = x, v
			}
		}
		inc.record()
		for k := c - 1; k >= 0 && inc.spent() < budget; k-- {
			moveTo(cand, inc.order, c, k)
			if inc.try(cand, k, c) {
				improved = true
				break
			}
		}
		for i := c - 1; !improved && i >= 0 && inc.spent() < budget; i-- {
			moveTo(cand, inc.order, i, c+1)
			if inc.try(cand, i, c) {
				improved = true
			}
		}
	}
	return inc.result()
}

// criticalPosition scores order and returns the position of the job that
// attains the maximum (the most penalised; ties to the earliest).
func (ev *evaluator) criticalPosition(order []int) int {
	ev.score(order)
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
func (ev *evaluator) iterateCritical(best []int, bestS score, spent, budget int) ([]int, score) {
	n := len(best)
	span := min(n-1, criticalKickSpan)
	if n < 4 {
		return best, bestS
	}
	rng := rand.New(rand.NewPCG(uint64(n), 0xc717))
	walk, walkS := best, bestS
	kick := make([]int, n)
	for spent < budget {
		c := ev.criticalPosition(walk)
		a := max(0, min(n-span-1, c-span+rng.IntN(span)))
		cuts := []int{a + 1 + rng.IntN(span), a + 1 + rng.IntN(span)}
		slices.Sort(cuts)
		doubleBridge(kick, walk, a, cuts[0], cuts[1])
		o, s, used := ev.criticalSearch(kick, nil, budget-spent-2)
		spent += used + 2
		if cmpTol(s.value, walkS.value) <= 0 {
			walk, walkS = o, s
		}
		if s.less(bestS) {
			best, bestS = o, s
		}
	}
	return best, bestS
}

// criticalKickSpan is how many positions a kick of iterated critical
// search spans, as iterate's (8 window-search reaches).
const criticalKickSpan = 24

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
