package rap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestThresholdMatchesGreedy compares Threshold with Greedy, the oracle, on
// large random convex instances, with and without Inverse.
func TestThresholdMatchesGreedy(t *testing.T) {
	sizes := []struct{ jobs, slots int }{
		{1, 50_000}, {10, 7}, {100, 1000}, {300, 50_000}, {2000, 10_000}, {2000, 50_000}, {2000, 1500},
	}
	for _, name := range familyNames() {
		fam := families[name]
		if !fam.convex {
			continue
		}
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/jobs=%d/slots=%d", name, sz.jobs, sz.slots), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(sz.jobs), uint64(sz.slots)))
				for range 3 {
					mins, maxs := make([]int, sz.jobs), make([]int, sz.jobs)
					left := sz.slots
					for j := range mins {
						if left > 0 && rng.IntN(2) == 0 {
							mins[j] = rng.IntN(min(left, 2) + 1)
							left -= mins[j]
						}
						maxs[j] = max(mins[j], 1+rng.IntN(sz.slots))
					}
					jobs := randJobs(rng, sz.jobs, 4)
					for j := range jobs {
						jobs[j].work = float64(1 + rng.IntN(100_000))
						jobs[j].d = float64(rng.IntN(100))
					}
					g := problemOf(fam, jobs, sz.slots, mins, maxs, false)
					want := SumOf(g, Greedy(g))
					for _, inv := range []bool{false, true} {
						p := problemOf(fam, jobs, sz.slots, mins, maxs, inv)
						s := Threshold(p)
						if why := feasible(p, s); why != "" {
							t.Fatalf("inverse=%v: infeasible: %s", inv, why)
						}
						if got := SumOf(p, s); !close(got, want) {
							t.Fatalf("inverse=%v: Threshold sum %v, Greedy sum %v", inv, got, want)
						}
					}
				}
			})
		}
	}
}

// TestDerived checks small cases whose answers follow by hand.
func TestDerived(t *testing.T) {
	inf := math.Inf(1)
	// W/s with works 1 and 4: the second job's first extra slot gains
	// 4 - 2 = 2, the first's 1 - 1/2 = 1/2, so one spare slot goes to job 1.
	twoWorks := func(j, s int) float64 { return [2]float64{1, 4}[j] / float64(s) }
	// Identical W/s jobs with Min 0: F(0) = +Inf, so every job needs a slot
	// before any gets a second.
	same := func(_, s int) float64 { return 6 / float64(s) }
	cases := map[string]struct {
		p                Problem
		wantSum, wantMin []int // Greedy/Threshold and Minimax allocations
	}{
		"one spare slot goes to the larger gain": {
			p:       Problem{Slots: 3, Min: []int{1, 1}, Max: []int{3, 3}, F: twoWorks},
			wantSum: []int{1, 2},
			// max(1/s0, 4/s1) over s0 + s1 <= 3: (1, 2) gives 2, the least.
			wantMin: []int{1, 2},
		},
		"all jobs at max when sum Max < S": {
			p:       Problem{Slots: 100, Min: []int{0, 1, 2}, Max: []int{3, 4, 5}, F: same},
			wantSum: []int{3, 4, 5},
			// Minimax: the least s with 6/s <= max_j 6/Max_j = 2 is 3.
			wantMin: []int{3, 3, 3},
		},
		"min 0 jobs each get a first slot": {
			p:       Problem{Slots: 3, Min: []int{0, 0, 0}, Max: []int{3, 3, 3}, F: same},
			wantSum: []int{1, 1, 1},
			wantMin: []int{1, 1, 1},
		},
		"min 0 with too few slots: lower index first": {
			p:       Problem{Slots: 2, Min: []int{0, 0, 0}, Max: []int{3, 3, 3}, F: same},
			wantSum: []int{1, 1, 0},
			// Every allocation leaves a job at +Inf; the minima achieve it.
			wantMin: []int{0, 0, 0},
		},
		"zero slots": {
			p:       Problem{Slots: 0, Min: []int{0}, Max: []int{5}, F: same},
			wantSum: []int{0},
			wantMin: []int{0},
		},
		"max below min reads as fixed": {
			p:       Problem{Slots: 10, Min: []int{2, 1}, Max: []int{1, 9}, F: same},
			wantSum: []int{2, 8},
			// Job 0 is stuck at 6/2 = 3; job 1 needs 6/s <= 3, s = 2.
			wantMin: []int{2, 2},
		},
		"flat tail: slots without gain stay free": {
			p: Problem{Slots: 10, Min: []int{0, 0}, Max: []int{10, 10}, F: func(j, s int) float64 {
				return max(0, [2]float64{inf, 9}[min(s, 1)]-3*float64(s))
			}},
			// Each job gains down to 0 at s = 3; nothing past that.
			wantSum: []int{3, 3},
			wantMin: []int{3, 3},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for solver, got := range map[string][]int{"Greedy": Greedy(tc.p), "Threshold": Threshold(tc.p)} {
				if !equal(got, tc.wantSum) {
					t.Errorf("%s = %v, want %v", solver, got, tc.wantSum)
				}
			}
			if got := Minimax(tc.p); !equal(got, tc.wantMin) {
				t.Errorf("Minimax = %v, want %v", got, tc.wantMin)
			}
		})
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestKnapsackDerived checks the Knapsack paths on cases worked by hand.
func TestKnapsackDerived(t *testing.T) {
	cases := map[string]struct {
		slots   int
		choices [][]Choice
		want    []int
		exact   bool
		cells   int
	}{
		// Weighted tardy jobs, extras 2, 3, 4 saving 3, 4, 5 in capacity 5:
		// {0, 1} saves 7, {2} saves 5, {0} or {1} alone less. 0/1 DP over
		// jobs by extra: reach 2, 5, 5, two choices each.
		"weighted tardy jobs": {
			slots: 5,
			choices: [][]Choice{
				{{0, 3}, {2, 0}}, {{0, 4}, {3, 0}}, {{0, 5}, {4, 0}},
			},
			want: []int{1, 1, 0}, exact: true, cells: 2*3 + 2*6 + 2*6,
		},
		// Unweighted: fewest extra slots first, 1 + 2 + 2 = 5 admits three.
		"unweighted tardy jobs by fewest extra slots": {
			slots: 5,
			choices: [][]Choice{
				{{0, 1}, {4, 0}}, {{0, 1}, {2, 0}}, {{0, 1}, {1, 0}}, {{0, 1}, {2, 0}},
			},
			want: []int{0, 1, 1, 1}, exact: true, cells: 0,
		},
		// SLA staircases, capacity 6 above minima of 1 each: job 0 saves
		// 2 at +1 and 5 at +4; job 1 saves 3 at +2 and 4 at +6. Within 6
		// extra slots: (+4, +2) saves 8, (+0, +6) 4, (+1, +2) 5: so (+4, +2).
		// The input is unsorted and job 1's {4, 9} is dominated. Reach 4
		// then 6, three useful choices each.
		"sla staircases": {
			slots: 8,
			choices: [][]Choice{
				{{1, 6}, {2, 4}, {5, 1}},
				{{7, 1}, {1, 5}, {3, 2}, {4, 9}},
			},
			want: []int{2, 2}, exact: true, cells: 3*5 + 3*7,
		},
		// A dominated choice with fewer slots than another's but higher value
		// is never picked; a single useful choice needs no DP.
		"nothing to decide": {
			slots:   3,
			choices: [][]Choice{{{2, 5}, {1, 5}}, {{1, 0}}},
			want:    []int{1, 0}, exact: true, cells: 0,
		},
		// Minima that do not fit: fewest slots, flagged.
		"infeasible minima": {
			slots:   1,
			choices: [][]Choice{{{1, 1}, {3, 0}}, {{1, 1}}},
			want:    []int{0, 0}, exact: false, cells: 0,
		},
		// Budget 1 forces the ratio greedy: job 0 saves 5 per slot, job 1
		// 4, job 2 at best 10/3 (its +2 choice saves only 1); capacity 3
		// takes job 0 and job 1, then nothing of job 2 fits: saves 9, where
		// the optimum (job 2's +3) saves 10. Cells by extra: reach 1, 2, 3
		// with 2, 2, 3 useful choices.
		"budget exceeded": {
			slots: 3,
			choices: [][]Choice{
				{{0, 5}, {1, 0}}, {{0, 4}, {1, 0}}, {{0, 10}, {3, 0}, {2, 9}},
			},
			want: []int{1, 1, 0}, exact: false, cells: 2*2 + 2*3 + 3*4,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			budget := 0
			if name == "budget exceeded" {
				budget = 1
			}
			pick, cells, exact := Knapsack(tc.slots, tc.choices, budget)
			if !equal(pick, tc.want) || exact != tc.exact || cells != tc.cells {
				t.Errorf("Knapsack = %v, %d cells, exact %v; want %v, %d, %v", pick, cells, exact, tc.want, tc.cells, tc.exact)
			}
		})
	}
}

// TestKnapsackTinyBudget checks that past its budget Knapsack says so and
// still returns a feasible pick, never better than the exact one.
func TestKnapsackTinyBudget(t *testing.T) {
	for _, name := range familyNames() {
		fam := families[name]
		if !fam.step {
			continue
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			for it := range 200 {
				n, slots := 2+rng.IntN(30), 1+rng.IntN(60)
				mins, maxs := randBounds(rng, n, slots)
				p := problemOf(fam, randJobs(rng, n, slots), slots, mins, maxs, false)
				choices := choicesOf(p)
				pick, cells, exact := Knapsack(slots, choices, 1)
				want, wantCells, wantExact := Knapsack(slots, choices, 0)
				if !wantExact {
					t.Fatalf("#%d: default budget not exact", it)
				}
				if exact != (wantCells == 0) || cells != wantCells {
					t.Fatalf("#%d: budget 1 gave exact=%v cells=%d; exact DP needs %d cells", it, exact, cells, wantCells)
				}
				s := slotsOf(choices, pick)
				if why := feasible(p, s); why != "" {
					t.Fatalf("#%d: infeasible: %s", it, why)
				}
				if got, best := SumOf(p, s), SumOf(p, slotsOf(choices, want)); got < best && !close(got, best) {
					t.Fatalf("#%d: approximation %v beats exact %v", it, got, best)
				}
			}
		})
	}
}
