package solver

// The evaluator: every search's scoring of an order by its MPS schedule,
// the objective and the tie-breaker on plateaus (score, ramp, pull), and
// the per-job terms the incremental scoring of the searches at scale
// reads (dueTerm, around, delta).

import (
	"cmp"
	"math"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver/mps"
)

// mpsInput is the instance as package mps takes it.
func (in *instance) mpsInput() mps.Input {
	return mps.Input{Slots: in.slots, Now: in.now, Min: in.min, Max: in.max, Work: in.work}
}

// score orders schedules: by objective value, then, for step metrics where
// orders tie on plateaus, by a ramp relaxation of the steps (each step's
// height times how late the job is past that step's deadline, plus a small
// pull towards earlier completions). The relaxation gives local search a
// slope to follow across a plateau towards the next step down.
type score struct{ value, second float64 }

func (a score) less(b score) bool {
	if c := cmpTol(a.value, b.value); c != 0 {
		return c < 0
	}
	return cmpTol(a.second, b.second) < 0
}

// lessBy is less with tol (relative) in place of improveTol, and without
// cmpTol's care for infinities (sums of finite penalties).
func (a score) lessBy(b score, tol float64) bool {
	if a.lowerBy(b, tol) {
		return true
	}
	if a.value > b.value+tol*math.Abs(b.value) {
		return false
	}
	return a.second < b.second-tol*math.Abs(b.second)
}

// lowerBy reports whether a's value is below b's by more than tol
// (relative), whatever the tie-breakers.
func (a score) lowerBy(b score, tol float64) bool {
	return a.value < b.value-tol*math.Abs(b.value)
}

// cmpTol compares x and y, treating values within improveTol (relative) as
// equal; infinities compare exactly (Inf - Inf would be NaN).
func cmpTol(x, y float64) int {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return cmp.Compare(x, y)
	}
	tol := improveTol * math.Max(math.Abs(x), math.Abs(y))
	switch {
	case x < y-tol:
		return -1
	case x > y+tol:
		return 1
	}
	return 0
}

// evaluator scores orders by MPS without allocating in steady state.
type evaluator struct {
	in          *instance
	input       mps.Input
	packer      mps.Packer
	completions []float64
	// step is true when some metric is a step function; plateau when the
	// objective is flat over many orders (steps, tardiness, which is 0 for
	// every early job, and any max, which only its worst job moves).
	step, plateau bool
	// deadlines is true for sums of plateau metrics (tardiness and the step
	// metrics, all with deadlines): their optima often sacrifice jobs.
	deadlines bool
	// tardyOnly is true for sums of (weighted) tardy jobs only: what
	// matters is which jobs are late, not by how much (swapSearch).
	tardyOnly bool
	// slaOnly is true for sums of SLA cost only (levelSearch).
	slaOnly bool
	// tardinessOnly is true for sums of (weighted) tardiness only:
	// dueSearch skips the split searches (window search does better).
	tardinessOnly bool
	// weightedTardiness is true for sums of weighted tardiness only
	// (farLate).
	weightedTardiness bool
	evaluations       int
	// guessed counts the terms of the guesses made (guessMoves), which
	// the searches' budgets count too (incumbent.spent).
	guessed int
	// serial keeps on this goroutine what Solve and exchangeKeys would
	// otherwise run at once (tests compare the two: the answers are the
	// same).
	serial bool
	// rampKind is each job's tie-breaker form, resolved once: score runs
	// thousands of times per solve.
	rampKind []rampKind
	// margin is the share of the time to a deadline by which the
	// tie-breaker anticipates it (early); 0 below the search at scale.
	margin float64
	// The incumbent of the last setBase: its score and each job's penalty
	// and tie-breaker, for scoreEstimate.
	base              score
	basePen, baseRamp []float64
	// baseTop is, on a maximum, the jobs with the largest penalties in
	// the incumbent (basePen), the largest first: the maximum of the jobs
	// an estimate did not schedule is the first of them it did not
	// (maxEstimate). touched marks the jobs an estimate scheduled, those
	// holding touchedGen.
	baseTop    []int
	touched    []uint32
	touchedGen uint32
	// baseAt is each job's completion in the incumbent; baseMargin the
	// margin its terms were computed with (setBase).
	baseAt     []float64
	baseMargin float64
	// baseAround is each job's penalty and tie-breaker near its
	// completion in the incumbent, linear (aroundOf).
	baseAround []around
	// dues is each job's penalty in the form delta computes fast (the
	// search at scale only).
	dues []dueTerm
	// baseHot says which jobs the incumbent finishes late, or past their
	// deadline less the margin (see mayGain).
	baseHot []bool
	searchSettings
	// descent is levelDescent's workspace.
	descent descentSpace
}

// searchSettings are what tells the searches run at once apart
// (dueSearches, searchHalves): one value, so that a search run on an
// evaluator of the caller's can put them all back after it.
type searchSettings struct {
	// walks is how many iterated walks run at once (see walks): one in
	// each of dueSearches' searches, which run at once themselves.
	walks int
	// noSplit skips the split descent on SLA cost (dueSearches).
	noSplit bool
	// byDeadline orders the level search's targeted jobs by their
	// targets' deadlines alone, without levelJit and levelFast's shifts
	// (searchHalves' second half, second search).
	byDeadline bool
	// farJumps lets dueSearch's window descent jump as far as the order
	// is long rather than maxJump (dueSearches' second search on
	// tardiness), and from budgetBoundJobs jobs move a job to any
	// position, not only within searchWindow or by a jump.
	//
	// Why every position from budgetBoundJobs jobs: on weighted
	// tardiness at J = 200, the unseen seed 36's base case, instance 1,
	// every search FLEX ran (at every effort up to 16) ended at 0.4393
	// to 0.4396, a local optimum of every insertion, where a descent over
	// every insertion from EDD, MDD, SRPT or Smith's order reached 0.3473
	// to 0.3477 (the best known): the jumps (a doubling distance) skip
	// the moves that lead there. The descent guesses each job's move
	// (guessBest) and its sweeps already run the order's length, so the
	// other targets cost a term each; the search's instructions fell
	// (the guesses count towards the budget), 0.97 times at J = 200 and
	// 0.95 to 0.96 at J = 1,000 on both tardiness metrics. Measured at
	// the default effort, summed excess over the best known, weighted
	// tardiness at J = 200, four seeds of the kicks / the default seed:
	// seeds 36 and 37 (both settings, references at effort 20, not used
	// to choose anything before) 0.0884 / 0.0905 -> 0.0289 / 0.0303
	// (seed 36's base case 1.0679 -> 1.0107, its worst instance 1.269 ->
	// 1.026); the 22 tuning cells 0.1368 / 0.1336 -> 0.1432 / 0.1382;
	// seeds 26 to 29 0.0480 / 0.0417 -> 0.0471 / 0.0437. avg_tardiness
	// the same within 0.002 on each set. In both of the first half's
	// searches, the tuning cells and seeds 26 to 29 did worse (0.1631,
	// 0.0618); below budgetBoundJobs, at J = 100 with SRPT's search,
	// weighted tardiness did worse (22 cells 0.0399 -> 0.0518, one past
	// 1%) (docs/solver-at-scale-log.md, session 49).
	farJumps bool
	// kicks is added to every random stream of the evaluator's (rng):
	// two searches alike from one order (searchHalves' second half) then
	// kick apart.
	kicks uint64
}

// rampKind selects the form of a job's tie-breaker (see ramp).
type rampKind uint8

const (
	rampWeightedCompletion rampKind = iota
	rampTardy
	rampWeightedTardy
	rampSLA
	rampPenalty
	// rampAnticipate: tardiness at scale, weighted time past the margin
	// before the deadline (see evaluator.early).
	rampAnticipate
)

func newEvaluator(in *instance) *evaluator {
	ev := &evaluator{in: in, input: in.mpsInput(), completions: make([]float64, len(in.jobs)), searchSettings: searchSettings{walks: walks}}
	ev.packer.Bind(ev.input)
	ev.rampKind = make([]rampKind, len(in.jobs))
	for k, m := range in.metrics {
		switch {
		case m == penalty.TardyJobs:
			ev.rampKind[k] = rampTardy
		case m == penalty.WeightedTardyJobs:
			ev.rampKind[k] = rampWeightedTardy
		case m == penalty.SLACost:
			ev.rampKind[k] = rampSLA
		case in.agg == penalty.Max:
			ev.rampKind[k] = rampPenalty
		}
	}
	ev.plateau = in.agg == penalty.Max
	for _, m := range in.distinctMetrics() {
		info, _ := penalty.Lookup(m)
		ev.step = ev.step || info.Step
		ev.plateau = ev.plateau || info.Step || info.NeedsDeadline && m != penalty.AvgLateness
	}
	ev.deadlines = ev.plateau && in.agg == penalty.Sum
	sum := in.agg == penalty.Sum
	ev.tardyOnly, ev.slaOnly, ev.tardinessOnly, ev.weightedTardiness = sum, sum, sum, sum
	for _, m := range in.distinctMetrics() {
		ev.weightedTardiness = ev.weightedTardiness && m == penalty.WeightedTardiness
		ev.tardyOnly = ev.tardyOnly && (m == penalty.TardyJobs || m == penalty.WeightedTardyJobs)
		ev.slaOnly = ev.slaOnly && m == penalty.SLACost
		ev.tardinessOnly = ev.tardinessOnly && (m == penalty.AvgTardiness || m == penalty.WeightedTardiness)
	}
	if ev.deadlines && len(in.jobs) > maxExhaustiveSearchJobs {
		ev.margin = anticipation
		for k, m := range in.metrics {
			if m == penalty.AvgTardiness || m == penalty.WeightedTardiness {
				ev.rampKind[k] = rampAnticipate
			}
		}
		ev.dues = make([]dueTerm, len(in.jobs))
		for k, m := range in.metrics {
			ev.dues[k] = ev.dueTermOf(k, m)
		}
	}
	return ev
}

// dueTerm is a job's penalty and tie-breaker pull when both are one
// deadline's (tardiness and tardy jobs, plain or weighted) or an SLA's
// steps: what evaluator.delta computes without the general forms'
// switches, millions of times per solve. kind dueGeneral leaves them to
// penalty.Func and ramp.
type dueTerm struct {
	kind uint8
	// w weighs the penalty, pw the pull; d is the deadline, e the
	// deadline less the margin (evaluator.early).
	w, pw, d, e float64
	// steps are an SLA's (dueSLA), each with its deadline less the
	// margin.
	steps []slaStep
	// floor is the least penalty the job can have, at any completion
	// (-Inf when it has none, as lateness): what bounds its gain from a
	// move (guessMoves).
	floor float64
}

// slaStep is an SLA step for delta: its deadline d, that less the margin
// e, its penalty p and the increase over the step before, rise.
type slaStep struct{ d, e, p, rise float64 }

const (
	dueGeneral uint8 = iota
	dueTardiness
	dueTardy
	dueSLA
)

// dueTermOf is job k's dueTerm under metric m.
func (ev *evaluator) dueTermOf(k int, m penalty.Metric) dueTerm {
	j := &ev.in.pj[k]
	t := dueTerm{w: 1, pw: j.Weight, d: j.Deadline, e: ev.early(j.Deadline), floor: ev.in.fn[k].At(math.Inf(-1))}
	if math.IsNaN(t.floor) {
		// A weight of 0 times an infinite response time.
		t.floor = math.Inf(-1)
	}
	switch m {
	case penalty.AvgTardiness:
		t.kind = dueTardiness
	case penalty.WeightedTardiness:
		t.kind, t.w = dueTardiness, j.Weight
	case penalty.TardyJobs:
		t.kind, t.pw = dueTardy, 1
	case penalty.WeightedTardyJobs:
		t.kind, t.w = dueTardy, j.Weight
	case penalty.SLACost:
		t.kind = dueSLA
		prev := 0.0
		for _, st := range j.SLA {
			rise := st.Penalty - prev
			if !ev.in.reachable(k, st.Deadline) {
				rise = 0
			}
			t.steps = append(t.steps, slaStep{st.Deadline, ev.early(st.Deadline), st.Penalty, rise})
			prev = st.Penalty
		}
	}
	if t.kind == dueTardy && !ev.in.reachable(k, j.Deadline) {
		t.pw = 0
	}
	// The pull's forms (see pull) must be the ones assumed above.
	switch ev.rampKind[k] {
	case rampAnticipate, rampTardy, rampWeightedTardy:
		if t.kind == dueSLA {
			t.kind = dueGeneral
		}
	case rampSLA:
		if t.kind != dueSLA {
			t.kind = dueGeneral
		}
	default:
		t.kind = dueGeneral
	}
	return t
}

// around says how far a job's completion may move either way from c with
// its penalty and tie-breaker linear in it (left and right, exclusive),
// and their slopes on either side (vl, sl and vr, sr): delta without a
// penalty evaluated, for the guesses (guessMoves).
type around struct{ left, right, vl, sl, vr, sr float64 }

// aroundOf is job k's around at completion c; a job whose dueTerm is
// dueGeneral has none (left = right = 0).
func (ev *evaluator) aroundOf(k int, c float64) around {
	t := &ev.dues[k]
	a := around{left: math.Inf(1), right: math.Inf(1), sl: rampPull, sr: rampPull}
	// bound narrows the room to the breakpoint x.
	bound := func(x float64) {
		if x > c {
			a.right = min(a.right, x-c)
		} else if x < c {
			a.left = min(a.left, c-x)
		} else {
			a.left, a.right = 0, 0
		}
	}
	switch t.kind {
	case dueTardiness:
		bound(t.d)
		bound(t.e)
		if c > t.d {
			a.vl, a.vr = t.w, t.w
		}
		if c > t.e {
			a.sl, a.sr = rampPull+t.pw, rampPull+t.pw
		}
	case dueTardy:
		bound(t.d)
		bound(t.e)
		if c > t.e {
			a.sl, a.sr = rampPull+t.pw, rampPull+t.pw
		}
	case dueSLA:
		for x := range t.steps {
			st := &t.steps[x]
			bound(st.d)
			bound(st.e)
			if c > st.e {
				a.sl += st.rise
				a.sr += st.rise
			}
		}
	default:
		return around{}
	}
	return a
}

// delta is how job k's penalty and tie-breaker change from the incumbent's
// (setBase) when it completes at c instead.
func (ev *evaluator) delta(k int, c float64) (dv, ds float64) {
	t := &ev.dues[k]
	c0 := ev.baseAt[k]
	switch t.kind {
	case dueTardiness:
		dv = t.w * (late(c, t.d) - late(c0, t.d))
	case dueTardy:
		if c > t.d {
			dv = t.w
		}
		if c0 > t.d {
			dv -= t.w
		}
	case dueSLA:
		// The penalty of the last step missed, and the pull of every
		// step (as penalty.Func and pull compute them).
		p, p0, ds := 0.0, 0.0, rampPull*(c-c0)
		for x := range t.steps {
			st := &t.steps[x]
			if c > st.d {
				p = st.p
			}
			if c0 > st.d {
				p0 = st.p
			}
			ds += st.rise * (late(c, st.e) - late(c0, st.e))
		}
		return p - p0, ds
	default:
		return ev.in.fn[k].At(c) - ev.basePen[k], ev.ramp(k, c) - ev.baseRamp[k]
	}
	return dv, rampPull*(c-c0) + t.pw*(late(c, t.e)-late(c0, t.e))
}

// early is deadline d less the evaluator's margin: a share of the time
// from now to d. With a margin, the tie-breaker of the deadline metrics
// counts a job as late from a little before its deadline. Among orders
// equal on the objective, the search then prefers those that keep every
// job clear of its deadline over those that finish favoured jobs
// earliest, which, past a few dozen jobs, leaves the later moves room: on
// 10 instances of the FLEX 4.1 base case at J = 100, the five sums of
// deadline and step penalties went from 1.055 to 1.029 of the best known
// on average (a margin of 0.05 or 0.2 did worse than 0.1).
func (ev *evaluator) early(d float64) float64 {
	return d - ev.margin*(d-ev.in.now)
}

// anticipation is the margin of the search at scale (evaluator.early).
const anticipation = 0.1

// score schedules order and scores it. From the prefix it shares with the
// packer's recording (setBase's, or a search's incumbent's) it resumes that
// run (scoreFrom: the same completions bit for bit, mps.Packer.Resume), so
// the schedules of candidates near the incumbent (repairTarget's, the
// walks') cost what is left of the run, not all of it: on the searches at
// scale 0.97 to 0.99 times the time (BenchmarkSolve), the same answers.
func (ev *evaluator) score(order []int) score {
	if k := ev.packer.RecordedPrefix(order); k > 0 {
		return ev.scoreFrom(order, k)
	}
	ev.evaluations++
	ev.packer.BoundCompletions(order, ev.completions)
	return ev.scoreCompletions()
}

// scoreCompletions scores the schedule whose completions the packer just
// wrote into ev.completions.
func (ev *evaluator) scoreCompletions() score {
	in := ev.in
	v, second := 0.0, 0.0
	if in.agg == penalty.Max {
		v = math.Inf(-1)
	}
	for k, c := range ev.completions {
		p := in.fn[k].At(c)
		if in.agg == penalty.Max {
			v = math.Max(v, p)
		} else {
			v += p
		}
		if ev.plateau {
			second += ev.ramp(k, c)
		}
	}
	return score{v, second}
}

// ramp is the tie-breaker of job k completing at c on a plateau of the
// objective: for a step metric, the steps it has missed and could have met
// (reachable), each weighted by how far past its deadline c lies; for a
// minimax objective, the job's own penalty (the sum of all penalties
// separates orders with the same worst job); for tardiness, its weighted
// completion time. A small pull towards
// earlier completion is added everywhere, so that, all else equal, earlier
// is better.
func (ev *evaluator) ramp(k int, c float64) float64 {
	return ev.rampWith(c, ev.pull(k, c))
}

// rampWith is ramp for a completion c whose pull is known.
func (ev *evaluator) rampWith(c, pull float64) float64 {
	return rampPull*(c-ev.in.now) + pull
}

// rampPull is the tie-breaker's pull towards earlier completion, per
// second.
const rampPull = 1e-6

// reachable reports whether job k can still complete by d: alone at its
// maximum from now (earliest) it would. A step out of reach orders nothing
// (reachableDue, level search's first targets) and pulls nothing (pull).
func (in *instance) reachable(k int, d float64) bool {
	return d >= in.earliest(k)
}

// earliest is job k's earliest completion: alone at its maximum from now.
// Computed where asked rather than kept per job: only the searches on
// deadline metrics ask, and every solve (the epoch path's among them)
// would pay for the slice.
func (in *instance) earliest(k int) float64 {
	return in.now + in.work[k]/float64(in.max[k])
}

// pull is ramp less its pull towards earlier completion. On the deadline
// metrics it is positive only once c passes a deadline less the
// evaluator's margin: the jobs a move can help (evaluator.mayGain). On the
// step metrics a step out of the job's reach (reachable) pulls nothing:
// the job misses it wherever it stands, and pulled forward it only took
// slots from jobs that could still make theirs. Measured on 180 instances
// of unseen seeds 10 to 13 (J = 50 to 200, both settings) against
// references of 100,000 evaluations, summed excess over the six cells:
// weighted tardy jobs 0.090 -> 0.047, tardy jobs 0.015 -> -0.009, SLA
// cost 0.117 -> 0.112 (mean over three seeds of the level walks' kicks;
// docs/solver-at-scale-log.md).
func (ev *evaluator) pull(k int, c float64) float64 {
	in := ev.in
	j := &in.pj[k]
	r := 0.0
	switch ev.rampKind[k] {
	case rampTardy:
		if in.reachable(k, j.Deadline) {
			r += late(c, ev.early(j.Deadline))
		}
	case rampWeightedTardy:
		if in.reachable(k, j.Deadline) {
			r += j.Weight * late(c, ev.early(j.Deadline))
		}
	case rampSLA:
		// A step is reachable (reachable) when due no sooner than the
		// job's earliest completion, computed once for its steps.
		earliest, prev := in.earliest(k), 0.0
		for _, st := range j.SLA {
			if st.Deadline >= earliest {
				r += (st.Penalty - prev) * late(c, ev.early(st.Deadline))
			}
			prev = st.Penalty
		}
	case rampPenalty:
		r += in.fn[k].At(c)
	case rampAnticipate:
		r += j.Weight * late(c, ev.early(j.Deadline))
	default:
		r += j.Weight * (c - in.now)
	}
	return r
}

// late is how far c lies past deadline d, 0 when it does not: math.Max's
// care for NaN and signed zeros made up half of ramp's time.
func late(c, d float64) float64 {
	if c > d {
		return c - d
	}
	return 0
}
