package rap

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// genInstance draws a family and a problem of it from rapid.
func genInstance(t *rapid.T) (string, family, []job, int, []int, []int) {
	name := rapid.SampledFrom(familyNames()).Draw(t, "family")
	n := rapid.IntRange(1, 8).Draw(t, "jobs")
	slots := rapid.IntRange(0, 40).Draw(t, "slots")
	mins, maxs := make([]int, n), make([]int, n)
	jobs := make([]job, n)
	left := slots
	for j := range n {
		mins[j] = rapid.IntRange(0, min(left, 4)).Draw(t, "min")
		left -= mins[j]
		maxs[j] = rapid.IntRange(0, slots+3).Draw(t, "max")
		jobs[j] = job{
			w:    float64(rapid.IntRange(1, 5).Draw(t, "w")),
			work: float64(rapid.IntRange(1, 200).Draw(t, "work")),
			r:    -float64(rapid.IntRange(0, 5).Draw(t, "r")),
			d:    float64(rapid.IntRange(0, 30).Draw(t, "d")),
			slaD: []float64{1, 5, 20},
			slaP: []float64{1, 2, float64(rapid.IntRange(2, 9).Draw(t, "p3"))},
		}
	}
	return name, families[name], jobs, slots, mins, maxs
}

// solveAll returns each exact solver's objective on the problem.
func solveAll(fam family, p Problem) map[string]float64 {
	out := map[string]float64{"Minimax": MaxOf(p, Minimax(p))}
	if fam.convex {
		out["Greedy"] = SumOf(p, Greedy(p))
		out["Threshold"] = SumOf(p, Threshold(p))
	}
	choices := choicesOf(p)
	pick, _, _ := Knapsack(p.Slots, choices, 0)
	out["Knapsack"] = SumOf(p, slotsOf(choices, pick))
	return out
}

// TestPropertyMoreSlotsNeverHurt: with every other input fixed, more slots
// never make an exact solver's objective worse.
func TestPropertyMoreSlotsNeverHurt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		_, fam, jobs, slots, mins, maxs := genInstance(t)
		extra := rapid.IntRange(1, 10).Draw(t, "extra")
		a := solveAll(fam, problemOf(fam, jobs, slots, mins, maxs, true))
		b := solveAll(fam, problemOf(fam, jobs, slots+extra, mins, maxs, true))
		for solver, v := range a {
			if w := b[solver]; w > v && !close(w, v) {
				t.Fatalf("%s: %v with %d slots, %v with %d", solver, v, slots, w, slots+extra)
			}
		}
	})
}

// TestPropertyPermutation: renumbering the jobs does not change any exact
// solver's objective, and Greedy and Threshold agree.
func TestPropertyPermutation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		_, fam, jobs, slots, mins, maxs := genInstance(t)
		perm := rapid.Permutation(seq(len(jobs))).Draw(t, "perm")
		pj, pmin, pmax := make([]job, len(jobs)), make([]int, len(jobs)), make([]int, len(jobs))
		for i, j := range perm {
			pj[i], pmin[i], pmax[i] = jobs[j], mins[j], maxs[j]
		}
		a := solveAll(fam, problemOf(fam, jobs, slots, mins, maxs, true))
		b := solveAll(fam, problemOf(fam, pj, slots, pmin, pmax, true))
		for solver, v := range a {
			if !close(v, b[solver]) {
				t.Fatalf("%s: %v, permuted %v", solver, v, b[solver])
			}
		}
		if fam.convex && !close(a["Greedy"], a["Threshold"]) {
			t.Fatalf("Greedy %v, Threshold %v", a["Greedy"], a["Threshold"])
		}
	})
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// FuzzSolvers feeds arbitrary valid problems, convex or not, to every
// solver and checks that each returns a feasible allocation.
func FuzzSolvers(f *testing.F) {
	f.Add([]byte{3, 10, 0, 4, 9, 1, 2, 200, 0, 0, 77})
	f.Add([]byte{1, 0, 0, 0, 0})
	f.Add([]byte{8, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 250, 240, 230})
	f.Fuzz(func(t *testing.T, data []byte) {
		at := func(i int) int {
			if len(data) == 0 {
				return 0
			}
			return int(data[i%len(data)])
		}
		n, slots := 1+at(0)%8, at(1)%64
		names := familyNames()
		fam := families[names[at(2)%len(names)]]
		mins, maxs, jobs := make([]int, n), make([]int, n), make([]job, n)
		left := slots
		for j := range n {
			b := 3 + 5*j
			mins[j] = min(left, at(b)%4)
			left -= mins[j]
			maxs[j] = at(b+1) % (slots + 4)
			jobs[j] = job{w: float64(1 + at(b+2)%7), work: float64(1 + at(b+3)), d: float64(at(b+4) % 40),
				slaD: []float64{2, 4, 8}, slaP: []float64{1, 3, float64(3 + at(b)%5)}}
		}
		p := problemOf(fam, jobs, slots, mins, maxs, at(n)%2 == 0)
		choices := choicesOf(p)
		pick, _, exact := Knapsack(slots, choices, at(4)%3*40)
		got := map[string][]int{
			"Greedy": Greedy(p), "Threshold": Threshold(p), "Minimax": Minimax(p),
			"Knapsack": slotsOf(choices, pick),
		}
		for solver, s := range got {
			if why := feasible(p, s); why != "" {
				t.Fatalf("%s infeasible: %s", solver, why)
			}
			if v := SumOf(p, s); math.IsNaN(v) {
				t.Fatalf("%s: NaN objective", solver)
			}
		}
		if exact && n <= 4 && slots <= 12 {
			if want, _ := exhaustive(p); !close(SumOf(p, got["Knapsack"]), want) {
				t.Fatalf("Knapsack exact but %v, want %v", SumOf(p, got["Knapsack"]), want)
			}
		}
	})
}
