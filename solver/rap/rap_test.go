package rap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// relTol is how far two objectives may differ and still count as equal:
// Threshold and Greedy may break rounding-level ties differently.
const relTol = 1e-9

func close(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= relTol*max(1, math.Abs(a), math.Abs(b))
}

// job holds the parameters a penalty family reads; completion is work/s
// (now = 0), +Inf without slots.
type job struct {
	w, work, r, d float64
	slaD, slaP    []float64
}

func completion(jb job, s int) float64 {
	if s == 0 {
		return math.Inf(1)
	}
	return jb.work / float64(s)
}

// family is one penalty shape of FLEX Fig. 1 as a function of slots.
type family struct {
	convex bool // marginal gains non-increasing in s
	step   bool // piecewise constant: Knapsack's domain
	f      func(jb job, s int) float64
	// ab, when set, gives F = a + b/s for s >= 1, so Inverse has a closed form.
	ab func(jb job) (a, b float64)
}

var families = map[string]family{
	"weighted response time": {convex: true,
		f:  func(jb job, s int) float64 { return jb.w * (completion(jb, s) - jb.r) },
		ab: func(jb job) (float64, float64) { return -jb.w * jb.r, jb.w * jb.work }},
	"lateness, negative for early jobs": {convex: true,
		f:  func(jb job, s int) float64 { return completion(jb, s) - jb.d },
		ab: func(jb job) (float64, float64) { return -jb.d, jb.work }},
	"weighted tardiness": {convex: true,
		f: func(jb job, s int) float64 { return jb.w * max(0, completion(jb, s)-jb.d) }},
	"linear with ties everywhere": {convex: true,
		f: func(jb job, s int) float64 { return jb.d - jb.w*float64(s) }},
	"tardy jobs": {step: true,
		f: func(jb job, s int) float64 { return b2f(completion(jb, s) > jb.d) }},
	"weighted tardy jobs": {step: true,
		f: func(jb job, s int) float64 { return jb.w * b2f(completion(jb, s) > jb.d) }},
	"sla staircase": {step: true,
		f: func(jb job, s int) float64 {
			c, p := completion(jb, s), 0.0
			for k, d := range jb.slaD {
				if c > d {
					p = jb.slaP[k]
				}
			}
			return p
		}},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// familyNames lists the families in a fixed order, for determinism.
func familyNames() []string {
	var ns []string
	for n := range families {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// randJobs draws job parameters from small integer sets, which makes ties
// between jobs common.
func randJobs(rng *rand.Rand, n, slots int) []job {
	jobs := make([]job, n)
	for j := range jobs {
		jb := job{
			w:    float64(1 + rng.IntN(4)),
			work: float64(1 + rng.IntN(4*max(slots, 1))),
			r:    -float64(rng.IntN(5)),
		}
		jb.d = float64(rng.IntN(8))
		for range 3 {
			jb.slaD = append(jb.slaD, float64(rng.IntN(12)))
			jb.slaP = append(jb.slaP, float64(1+rng.IntN(6)))
		}
		slices.Sort(jb.slaD)
		slices.Sort(jb.slaP)
		jobs[j] = jb
	}
	return jobs
}

// randBounds draws Min and Max with sum Min <= slots; Min may be 0 and Max
// may exceed slots.
func randBounds(rng *rand.Rand, n, slots int) (mins, maxs []int) {
	mins, maxs = make([]int, n), make([]int, n)
	left := slots
	for j := range n {
		if rng.IntN(3) > 0 && left > 0 {
			mins[j] = rng.IntN(min(left, 3) + 1)
		}
		left -= mins[j]
		maxs[j] = max(mins[j], 1+rng.IntN(slots+2))
	}
	return mins, maxs
}

func problemOf(fam family, jobs []job, slots int, mins, maxs []int, inverse bool) Problem {
	p := Problem{Slots: slots, Min: mins, Max: maxs,
		F: func(j, s int) float64 { return fam.f(jobs[j], s) }}
	if inverse && fam.ab != nil {
		p.Inverse = func(j int, lambda float64) int {
			_, b := fam.ab(jobs[j])
			return inverseAB(b, mins[j], max(mins[j], maxs[j]), lambda)
		}
	}
	return p
}

// inverseAB is the closed-form Inverse for F = a + b/s, b > 0: the gain of
// slot s is b / (s (s-1)) (+Inf for s = 1), at least lambda iff
// s (s-1) <= b / lambda.
func inverseAB(b float64, lo, hi int, lambda float64) int {
	if lambda <= 0 {
		return hi
	}
	r := b / lambda
	if r >= float64(hi)*float64(hi) {
		return hi
	}
	s := int((1 + math.Sqrt(1+4*r)) / 2)
	for s > 1 && float64(s)*float64(s-1) > r {
		s--
	}
	for s < hi && float64(s+1)*float64(s) <= r {
		s++
	}
	return max(lo, min(hi, s))
}

// choicesOf lists job j's useful allocations the way the caller does: Min_j
// and every s at which F_j drops.
func choicesOf(p Problem) [][]Choice {
	out := make([][]Choice, len(p.Min))
	for j := range out {
		lo, hi := p.bounds(j)
		out[j] = []Choice{{lo, p.F(j, lo)}}
		for s := lo + 1; s <= hi; s++ {
			if v := p.F(j, s); v < out[j][len(out[j])-1].Value {
				out[j] = append(out[j], Choice{s, v})
			}
		}
	}
	return out
}

func slotsOf(choices [][]Choice, pick []int) []int {
	s := make([]int, len(pick))
	for j, k := range pick {
		s[j] = choices[j][k].Slots
	}
	return s
}

// exhaustive is the oracle: the best minisum and minimax objectives over
// every feasible allocation.
func exhaustive(p Problem) (sum, mx float64) {
	sum, mx = math.Inf(1), math.Inf(1)
	s := make([]int, len(p.Min))
	var rec func(j, left int)
	rec = func(j, left int) {
		if j == len(s) {
			sum, mx = min(sum, SumOf(p, s)), min(mx, MaxOf(p, s))
			return
		}
		lo, hi := p.bounds(j)
		for x := lo; x <= hi && x-lo <= left; x++ {
			s[j] = x
			rec(j+1, left-(x-lo))
		}
	}
	_, left := p.minima()
	rec(0, left)
	return sum, mx
}

// feasible reports why s is not a feasible allocation of p, or "".
func feasible(p Problem, s []int) string {
	if len(s) != len(p.Min) {
		return fmt.Sprintf("len %d, want %d", len(s), len(p.Min))
	}
	t := 0
	for j, x := range s {
		lo, hi := p.bounds(j)
		if x < lo || x > hi {
			return fmt.Sprintf("s[%d] = %d outside [%d, %d]", j, x, lo, hi)
		}
		t += x
	}
	if t > p.Slots {
		return fmt.Sprintf("sum %d > %d slots", t, p.Slots)
	}
	return ""
}

// TestExhaustive checks every solver against exhaustive search on small
// random instances of every family it is exact for, and feasibility always.
func TestExhaustive(t *testing.T) {
	for _, name := range familyNames() {
		fam := families[name]
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(name))))
			for it := range 400 {
				n, slots := 1+rng.IntN(4), rng.IntN(11)
				mins, maxs := randBounds(rng, n, slots)
				jobs := randJobs(rng, n, slots)
				p := problemOf(fam, jobs, slots, mins, maxs, true)
				wantSum, wantMax := exhaustive(p)
				ctx := fmt.Sprintf("#%d S=%d Min=%v Max=%v jobs=%+v", it, slots, mins, maxs, jobs)

				got := map[string][]int{
					"Greedy":    Greedy(p),
					"Threshold": Threshold(p),
					"Minimax":   Minimax(p),
				}
				pn := p
				pn.Inverse = nil
				got["Threshold without Inverse"] = Threshold(pn)
				choices := choicesOf(p)
				pick, _, exact := Knapsack(slots, choices, 0)
				got["Knapsack"] = slotsOf(choices, pick)
				if !exact {
					t.Fatalf("%s: Knapsack not exact under the default budget", ctx)
				}
				for solver, s := range got {
					if why := feasible(p, s); why != "" {
						t.Fatalf("%s: %s infeasible: %s", ctx, solver, why)
					}
				}
				if fam.convex {
					for _, solver := range []string{"Greedy", "Threshold", "Threshold without Inverse"} {
						if v := SumOf(p, got[solver]); !close(v, wantSum) {
							t.Fatalf("%s: %s = %v (sum %v), want sum %v", ctx, solver, got[solver], v, wantSum)
						}
					}
				}
				// Knapsack over every drop point is exact for any
				// non-increasing F, step or not.
				if v := SumOf(p, got["Knapsack"]); !close(v, wantSum) {
					t.Fatalf("%s: Knapsack = %v (sum %v), want sum %v", ctx, got["Knapsack"], v, wantSum)
				}
				if v := MaxOf(p, got["Minimax"]); !close(v, wantMax) {
					t.Fatalf("%s: Minimax = %v (max %v), want max %v", ctx, got["Minimax"], v, wantMax)
				}
				// Minimax returns the least allocation: no job could give
				// a slot back without exceeding the optimum.
				for j, x := range got["Minimax"] {
					if x > mins[j] && p.F(j, x-1) <= wantMax {
						t.Fatalf("%s: Minimax = %v not minimal at job %d", ctx, got["Minimax"], j)
					}
				}
			}
		})
	}
}
