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
	in, err := newInstance(p)
	if err != nil {
		t.Fatal(err)
	}
	ev := newEvaluator(in)
	if ev.margin == 0 || ev.dues == nil {
		t.Fatalf("%d jobs, %s: not the search at scale", n, m)
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
			guesses := slices.Clone(ev.guessMoves(order, i, targets, false, &gs))
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

// TestSearchScoresAreExact: moves are kept on their estimates, but what a
// search returns is its order's score in full, bit for bit what a schedule
// of that order gives.
func TestSearchScoresAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 60))
	for _, m := range deadlineSums {
		ev := guessInstance(t, rng, 60, m, false)
		start := rng.Perm(60)
		o, s, _ := ev.windowSearch(start, nil, 300, searchWindow, searchWindow, nil)
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
