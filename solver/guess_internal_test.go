package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flexd/flexd/penalty"
)

// guessInstance is n jobs on S = 10 slots for the search at scale under
// metric m, deadlines and SLA steps spread over the schedule's length. With
// oneMachine every job may take all S slots and has no minimum, so MPS runs
// them one after the other in the order's sequence: the single machine the
// guesses assume.
func guessInstance(t *testing.T, rng *rand.Rand, n int, m penalty.Metric, oneMachine bool) *evaluator {
	t.Helper()
	return scaleEvaluator(t, guessProblem(rng, n, m, oneMachine))
}

// guessProblem is guessInstance's problem.
func guessProblem(rng *rand.Rand, n int, m penalty.Metric, oneMachine bool) Problem {
	const slots = 10
	p := Problem{Slots: slots, Metric: m}
	total := 0.0
	works := make([]float64, n)
	for k := range works {
		works[k] = 5 + 45*rng.Float64()
		total += works[k]
	}
	horizon := total / slots
	for k := range n {
		j := Job{ID: fmt.Sprintf("j%03d", k), Min: 0, Max: slots, Work: works[k], Weight: 0.1 + rng.Float64(),
			Deadline: horizon * rng.Float64(), HasDeadline: true}
		if !oneMachine {
			j.Max = 1 + rng.IntN(slots)
			j.Min = rng.IntN(2)
		}
		if m == penalty.SLACost {
			d, pen := 0.0, 0.0
			for range 1 + rng.IntN(3) {
				d += horizon * rng.Float64() / 2
				pen += 0.1 + rng.Float64()
				j.SLA = append(j.SLA, penalty.Step{Deadline: d, Penalty: pen})
			}
		}
		p.Jobs = append(p.Jobs, j)
	}
	return p
}

// scaleEvaluator is p's evaluator, which must be the search at scale's.
func scaleEvaluator(t *testing.T, p Problem) *evaluator {
	t.Helper()
	in, err := newInstance(p)
	if err != nil {
		t.Fatal(err)
	}
	ev := newEvaluator(in)
	if ev.margin == 0 || ev.dues == nil {
		t.Fatalf("%d jobs, %s: not the search at scale", len(p.Jobs), p.Metric)
	}
	return ev
}

// recordedInstance is guessInstance with a random order of its jobs
// recorded as the incumbent (setBase).
func recordedInstance(t *testing.T, rng *rand.Rand, n int, m penalty.Metric, oneMachine bool) (*evaluator, []int) {
	t.Helper()
	ev := guessInstance(t, rng, n, m, oneMachine)
	order := rng.Perm(n)
	ev.setBase(order)
	return ev, order
}

// deadlineSums are the sums of deadline penalties the guesses serve.
var deadlineSums = []penalty.Metric{penalty.AvgTardiness, penalty.WeightedTardiness, penalty.TardyJobs,
	penalty.WeightedTardyJobs, penalty.SLACost}

// TestGuessMovesExactOnOneMachine: where the cluster is one machine of S
// slots (every job may take all of them, none has a minimum), the guessed
// change in score of every insertion is the change a full schedule gives.
func TestGuessMovesExactOnOneMachine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	for _, m := range deadlineSums {
		ev, order := recordedInstance(t, rng, 30, m, true)
		base := ev.base
		var gs guessSpace
		cand := make([]int, len(order))
		targets := make([]int, 0, len(order)+1)
		for k := range len(order) + 1 {
			targets = append(targets, k)
		}
		for i := range order {
			guesses := slices.Clone(ev.guessMoves(order, i, targets, 0, &gs))
			if len(guesses) != len(order)-1 {
				t.Fatalf("%s, job at %d: %d guesses, want one per target but i and i+1", m, i, len(guesses))
			}
			for _, g := range guesses {
				moveTo(cand, order, i, g.k)
				got := ev.score(cand)
				if d := got.value - base.value; math.Abs(d-g.v) > 1e-9*max(1, math.Abs(base.value)) {
					t.Errorf("%s, job at %d to before %d: guessed change %v, schedule says %v", m, i, g.k, g.v, d)
				}
				if d := got.second - base.second; math.Abs(d-g.s) > 1e-9*max(1, math.Abs(base.second)) {
					t.Errorf("%s, job at %d to before %d: guessed tie-breaker change %v, schedule says %v", m, i, g.k, g.s, d)
				}
			}
		}
	}
}

// TestJudgedAloneGuessesTheSameBest: the moves judgedAlone leaves out are
// ones bestGuess would reject, so the best-guessed move of every job is
// the same with it as without, while its sweeps pass fewer jobs. Also
// with lateness, whose penalty has no floor, on some of the jobs (a job's
// own metric): a move forward may gain without bound there.
func TestJudgedAloneGuessesTheSameBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 70))
	for _, mix := range []bool{false, true} {
		for _, m := range deadlineSums {
			p := guessProblem(rng, 80, m, false)
			if mix {
				// Every third job's penalty is its lateness.
				for k := 0; k < len(p.Jobs); k += 3 {
					p.Jobs[k].Metric = penalty.AvgLateness
				}
			}
			ev := scaleEvaluator(t, p)
			order := rng.Perm(80)
			ev.setBase(order)
			targets := make([]int, 0, len(order)+1)
			for k := range len(order) + 1 {
				targets = append(targets, k)
			}
			var gs guessSpace
			cut := 0
			for i := range order {
				g0 := ev.guessed
				want, wantOK := ev.bestGuess(ev.guessMoves(order, i, targets, 0, &gs))
				all := ev.guessed - g0
				got, gotOK := ev.bestGuess(ev.guessMoves(order, i, targets, judgedAlone, &gs))
				if got != want || gotOK != wantOK {
					t.Fatalf("%s (lateness mixed in: %v), job at %d: judged alone the best guess is %d (%v), want %d (%v)",
						m, mix, i, got, gotOK, want, wantOK)
				}
				if alone := ev.guessed - g0 - all; alone < all {
					cut++
				} else if alone > all {
					t.Fatalf("%s, job at %d: judged alone the guesses counted %d, more than the %d of all", m, i, alone, all)
				}
			}
			if cut == 0 && !mix {
				t.Errorf("%s: judgedAlone cut no sweep short", m)
			}
		}
	}
}

// TestDeltaMatchesPenalty: delta, and the linear pieces of around it
// skips penalties with, agree with penalty.Func and the tie-breaker at any
// completion, on every deadline sum.
func TestDeltaMatchesPenalty(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 40))
	for _, m := range deadlineSums {
		ev, _ := recordedInstance(t, rng, 20, m, false)
		for k := range 20 {
			c0 := ev.baseAt[k]
			r := ev.baseAround[k]
			for range 50 {
				c := c0 + (rng.Float64()-0.5)*2*max(1, c0-ev.in.now)
				dv, ds := ev.delta(k, c)
				wantV := ev.in.fn[k].At(c) - ev.basePen[k]
				wantS := ev.ramp(k, c) - ev.baseRamp[k]
				if math.Abs(dv-wantV) > 1e-9 || math.Abs(ds-wantS) > 1e-9 {
					t.Fatalf("%s, job %d from %v to %v: delta (%v, %v), want (%v, %v)", m, k, c0, c, dv, ds, wantV, wantS)
				}
				// Within around's room the change is its slope times the shift.
				switch x := c - c0; {
				case x > 0 && x < r.right:
					if math.Abs(r.vr*x-wantV) > 1e-9 || math.Abs(r.sr*x-wantS) > 1e-9 {
						t.Fatalf("%s, job %d, %v later: around says (%v, %v), want (%v, %v)", m, k, x, r.vr*x, r.sr*x, wantV, wantS)
					}
				case x < 0 && -x < r.left:
					if math.Abs(r.vl*x-wantV) > 1e-9 || math.Abs(r.sl*x-wantS) > 1e-9 {
						t.Fatalf("%s, job %d, %v earlier: around says (%v, %v), want (%v, %v)", m, k, -x, r.vl*x, r.sl*x, wantV, wantS)
					}
				}
			}
		}
	}
}

// TestPlaceOfIsRebuilds: the place guessLevel guesses a target's move to
// is where rebuild puts the job.
func TestPlaceOfIsRebuilds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 50))
	ev := guessInstance(t, rng, 25, penalty.SLACost, false)
	order := rng.Perm(25)
	lv := ev.newLevels(order, rng.Perm(25))
	lv.build(order)
	cand := make([]int, len(order))
	for k := range 25 {
		i := slices.Index(order, k)
		for l := lv.first[k]; l <= lv.none[k]; l++ {
			to := lv.placeOf(order, k, i, l)
			moveTo(cand, order, i, min(to, len(order)))
			was := lv.level[k]
			lv.level[k] = l
			want := slices.Clone(order)
			lv.rebuild(want, k)
			lv.level[k] = was
			if !slices.Equal(cand, want) {
				t.Fatalf("job %d, target %d: placeOf moves it to before %d, giving %v; rebuild gives %v", k, l, to, cand, want)
			}
		}
	}
}

// TestRebuildIsBuild: rebuild, for one job (its own path) and for several,
// gives the order a full sort by the new targets gives.
func TestRebuildIsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 90))
	const n = 40
	ev := guessInstance(t, rng, n, penalty.SLACost, false)
	order := rng.Perm(n)
	lv := ev.newLevels(order, rng.Perm(n))
	lv.build(order)
	for range 500 {
		ks := rng.Perm(n)[:1+rng.IntN(4)]
		for _, k := range ks {
			lv.level[k] = lv.first[k] + rng.IntN(lv.none[k]-lv.first[k]+1)
		}
		want := slices.Clone(order)
		lv.build(want)
		lv.rebuild(order, ks...)
		if !slices.Equal(order, want) {
			t.Fatalf("jobs %v to targets %v: rebuild gives %v, build %v", ks, lv.level, order, want)
		}
	}
}

// TestBeforeIsBuildsPlace: levels.before puts a job where a binary search
// by cmp does, among targeted jobs and given-up ones (back order).
func TestBeforeIsBuildsPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 80))
	p := guessProblem(rng, 40, penalty.SLACost, false)
	// Every fourth job has job 0's steps and work, and the whole cluster
	// as its maximum: jobs that tie on their place (a target's deadline,
	// shifted by shares of the work and of the fastest duration) go in
	// job order.
	for k := 0; k < 40; k += 4 {
		p.Jobs[k].SLA = p.Jobs[0].SLA
		p.Jobs[k].Work = p.Jobs[0].Work
		p.Jobs[k].Max = p.Slots
	}
	ev := scaleEvaluator(t, p)
	lv := ev.newLevels(rng.Perm(40), rng.Perm(40))
	given, ties := 0, 0
	for range 200 {
		for k := range 40 {
			lv.level[k] = lv.first[k] + rng.IntN(lv.none[k]-lv.first[k]+1)
		}
		order := rng.Perm(40)
		lv.build(order)
		k := order[rng.IntN(40)]
		rest := slices.DeleteFunc(slices.Clone(order), func(j int) bool { return j == k })
		// k's target may change too: it goes where its new one puts it.
		lv.level[k] = lv.first[k] + rng.IntN(lv.none[k]-lv.first[k]+1)
		if lv.level[k] == lv.none[k] {
			given++
		}
		if slices.ContainsFunc(rest, func(j int) bool { return lv.dueOf(j) == lv.dueOf(k) && lv.level[k] < lv.none[k] }) {
			ties++
		}
		want, _ := slices.BinarySearchFunc(rest, k, lv.cmp)
		if got := lv.before(rest, k); got != want {
			t.Fatalf("job %d, target %d: before says %d, a binary search by cmp %d", k, lv.level[k], got, want)
		}
	}
	if given == 0 || ties == 0 {
		t.Errorf("%d jobs given up, %d ties on a target's deadline: some of the order went untested", given, ties)
	}
}

// TestLevelsPlaceBigJobsJustInTime: the level search's order has each
// targeted job at its target's deadline plus levelJit times its work over
// the slots less levelFast times its fastest duration, so that some jobs go
// behind others due after them, at every size (below budgetBoundJobs and
// from it); with byDeadline (searchHalves' second half, second search) at
// its target's deadline alone.
func TestLevelsPlaceBigJobsJustInTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 90))
	for _, n := range []int{60, budgetBoundJobs, 2 * budgetBoundJobs} {
		in := deadlineInstance(t, rng, n, penalty.SLACost)
		for _, byDeadline := range []bool{false, true} {
			ev := newEvaluator(in)
			ev.byDeadline = byDeadline
			lv := ev.newLevels(identity(n), identity(n))
			jit, fast := levelJit, levelFast
			if byDeadline {
				jit, fast = 0, 0
			}
			order := identity(n)
			lv.build(order)
			due := func(k int) float64 { return in.pj[k].SLA[lv.level[k]].Deadline }
			place := func(k int) float64 {
				return due(k) + jit*in.work[k]/float64(in.slots) - fast*in.work[k]/float64(in.max[k])
			}
			inverted := 0
			for x := 1; x < n; x++ {
				a, b := order[x-1], order[x]
				if lv.level[b] == lv.none[b] {
					break
				}
				if place(a) > place(b) {
					t.Fatalf("n = %d, by deadline %v: job %d (place %v) before job %d (place %v)", n, byDeadline, a, place(a), b, place(b))
				}
				if due(a) > due(b) {
					inverted++
				}
			}
			if !byDeadline && inverted == 0 {
				t.Errorf("n = %d: no job behind another due after it", n)
			}
			if byDeadline && inverted > 0 {
				t.Errorf("n = %d, by deadline: %d jobs behind others due after them, want the deadlines' order", n, inverted)
			}
		}
	}
}

// TestSearchScoresAreExact: moves are kept on their estimates, but what a
// search returns is its order's score in full, bit for bit what a schedule
// of that order gives.
func TestSearchScoresAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 60))
	for _, m := range deadlineSums {
		ev := guessInstance(t, rng, 60, m, false)
		start := rng.Perm(60)
		o, s, _ := ev.windowSearch(start, nil, 300, searchWindow, searchWindow, maxJump, nil)
		if want := ev.score(o); s != want {
			t.Errorf("%s: window search returns %+v, its order scores %+v", m, s, want)
		}
		if m == penalty.SLACost {
			lv := ev.newLevels(start, rng.Perm(60))
			o, s, _ := ev.levelDescent(lv, slices.Clone(start), 300, nil)
			if want := ev.score(o); s != want {
				t.Errorf("level descent returns %+v, its order scores %+v", s, want)
			}
		}
	}
}

// TestUnreachableStepsPullNothing checks that the tie-breaker pulls a job
// only towards the steps it can still meet: job 0 (work 100, at most 10
// slots, so done at 10 s at best) is due at 5 s and, on SLA cost, has
// steps at 5, 50 and 80 s; job 1 (done at 1 s at best) is due at 50 s,
// with the same steps. Late, job 0 pulls nothing on tardy jobs and only
// towards its last two steps on SLA cost, job 1 towards all of them; delta,
// which the guesses use, agrees.
func TestUnreachableStepsPullNothing(t *testing.T) {
	steps := []penalty.Step{{Deadline: 5, Penalty: 0.2}, {Deadline: 50, Penalty: 0.5}, {Deadline: 80, Penalty: 0.9}}
	n := maxExhaustiveSearchJobs + 1
	for _, m := range []penalty.Metric{penalty.WeightedTardyJobs, penalty.TardyJobs, penalty.SLACost} {
		p := Problem{Slots: 10 * n, Metric: m}
		for k := range n {
			d, mx := []float64{5, 50}[min(k, 1)], []int{10, 100}[min(k, 1)]
			p.Jobs = append(p.Jobs, Job{ID: fmt.Sprintf("j%02d", k), Min: 1, Max: mx, Work: 100, Weight: 0.5, Deadline: d, HasDeadline: true, SLA: steps})
		}
		in, err := newInstance(p)
		if err != nil {
			t.Fatal(err)
		}
		ev := newEvaluator(in)
		if ev.dues == nil {
			t.Fatalf("%s: no dueTerms: not the search at scale", m)
		}
		job0, job1 := slices.Index(in.orig, 0), slices.Index(in.orig, 1)
		const c = 100.0
		want0, want1 := 0.0, 0.5*late(c, ev.early(50))
		switch m {
		case penalty.TardyJobs:
			want1 = late(c, ev.early(50))
		case penalty.SLACost:
			want0 = 0.3*late(c, ev.early(50)) + 0.4*late(c, ev.early(80))
			want1 = want0 + 0.2*late(c, ev.early(5))
		}
		for _, x := range []struct {
			k    int
			want float64
		}{{job0, want0}, {job1, want1}} {
			if got := ev.pull(x.k, c); math.Abs(got-x.want) > 1e-12 {
				t.Errorf("%s: job %d's pull at %v s: %v, want %v", m, in.orig[x.k], c, got, x.want)
			}
		}
		// delta from a completion on time for every reachable step.
		ev.setBase(identity(n))
		ev.baseAt[job0], ev.basePen[job0] = 10, in.fn[job0].At(10)
		ev.baseRamp[job0] = ev.ramp(job0, 10)
		_, ds := ev.delta(job0, c)
		if want := ev.ramp(job0, c) - ev.baseRamp[job0]; math.Abs(ds-want) > 1e-12 {
			t.Errorf("%s: job 0's delta in tie-breaker from 10 s to %v s: %v, want %v", m, c, ds, want)
		}
	}
}
