package solver

// Guessed moves: before a window or level move is estimated (an MPS run
// that stops where the schedules meet), it is guessed on a single machine
// of S slots from the incumbent's recorded completions, and only each job's
// best-guessed move is estimated (item 7 of docs/solver-at-scale.md).

import (
	"math"
	"slices"
)

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

// guessSpace is the guesses' workspace.
type guessSpace struct {
	targets, levels []int
	keep            []bool
	cum             []guessCum
	out             []guessed
}

// guessCum is a running sum of guessed changes (penalty, tie-breaker) and
// of the work passed.
type guessCum struct{ v, s, shift float64 }

// guessTermsPerEvent is how many terms of the guesses (guessMoves) the
// searches' budgets count as one event of an estimate: a term, one job's
// penalty and tie-breaker at a shifted completion, mostly linear (around),
// costs about a quarter of a schedule's event. Uncounted, the guesses made
// an SLA cost solve three times as long at the default budget
// (docs/solver-at-scale-log.md).
const guessTermsPerEvent = 4
