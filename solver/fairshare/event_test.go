package fairshare

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flexd/flexd/solver/mps"
	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// sameAll fails unless Plan, planScan and planEvents all give the direct
// computation's MRv1 plan, bit for bit; planEvents also with every
// repeated weight a class (group), however few its jobs.
func sameAll(tb fataler, jobs []Job, total int, now float64) {
	tb.Helper()
	want := planRecompute(MRv1, jobs, total, now)
	samePlan(tb, want, Plan(MRv1, jobs, total, now))
	samePlan(tb, want, planScan(jobs, total, now))
	samePlan(tb, want, planEvents(jobs, total, now))
	samePlan(tb, want, planEventsWith(jobs, total, now, 0, nearCompletions, 2))
}

// samePlan fails unless got is want exactly: every interval's bounds, every
// change, every completion time bit for bit (no tolerance), and First.
func samePlan(tb fataler, want, got mps.Plan) {
	tb.Helper()
	if diff := gocmp.Diff(want, got); diff != "" {
		tb.Fatalf("Plan differs from planRecompute (-recompute +plan):\n%s", diff)
	}
}

// TestPlanMatchesRecomputeSmall compares Plan with the direct computation
// on small instances of small integers, where exact ties (equal shares,
// totals hitting the target at a bisection midpoint, simultaneous
// completions) are common: every tie must break the same way.
func TestPlanMatchesRecomputeSmall(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jobs, total := genInstance(t)
		v := rapid.SampledFrom([]Variant{MRv1, YARN}).Draw(t, "variant")
		now := float64(rapid.IntRange(-5, 5).Draw(t, "now"))
		samePlan(t, planRecompute(v, jobs, total, now), Plan(v, jobs, total, now))
		if v == MRv1 {
			sameAll(t, jobs, total, now)
		}
	})
}

// genFloatInstance draws an instance like solvertest.Large: real weights,
// work and submission times, minima that fit in S, maxima that sometimes
// bind; sometimes with a few weights repeated, so that equal fractional
// parts meet the later tie-breakers.
func genFloatInstance(t *rapid.T) ([]Job, int) {
	n := rapid.IntRange(1, 150).Draw(t, "J")
	total := rapid.IntRange(1, 20*n).Draw(t, "S")
	seed := rapid.Uint64().Draw(t, "seed")
	repeated := rapid.Bool().Draw(t, "repeated weights")
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	jobs := make([]Job, n)
	budget := total
	for i := range jobs {
		hi := 1 + r.IntN(total)
		if r.IntN(3) == 0 {
			hi = 1 + r.IntN(max(1, 2*total/n))
		}
		lo := min(r.IntN(max(1, total/(2*n))+1), hi, budget)
		budget -= lo
		w := r.Float64()
		if repeated {
			w = []float64{0.5, 1, 1, 2, 0.3}[r.IntN(5)]
		}
		if r.IntN(50) == 0 {
			w = 0
		}
		jobs[i] = Job{
			ID:        fmt.Sprintf("j%03d", r.IntN(1000)),
			Min:       lo,
			Max:       hi,
			Weight:    w,
			Submitted: float64(r.IntN(5)),
			Work:      r.Float64() * 20 * float64(total) / float64(n),
		}
		if r.IntN(40) == 0 {
			jobs[i].Work = 0
		}
	}
	return jobs, total
}

// TestPlanMatchesRecomputeFloat compares Plan with the direct computation
// on larger instances with real-valued weights and work.
func TestPlanMatchesRecomputeFloat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jobs, total := genFloatInstance(t)
		now := rapid.SampledFrom([]float64{0, 100, 1.7e9}).Draw(t, "now")
		sameAll(t, jobs, total, now)
	})
}

// TestPlanEventsSlack runs the event-driven plan with the completion
// estimates' error bound inflated, so that many jobs are looked at exactly
// every interval and those that do not complete go back to the heap, and
// with few entries kept in the heap, so that they move between the heap
// and the far list (reheap) every few intervals.
func TestPlanEventsSlack(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jobs, total := genFloatInstance(t)
		slack := rapid.SampledFrom([]float64{0, 1e-6, 1e-3, 0.5}).Draw(t, "slack")
		near := rapid.IntRange(1, 8).Draw(t, "near")
		minGroup := rapid.SampledFrom([]int{2, 5, groupMin}).Draw(t, "minGroup")
		now := rapid.SampledFrom([]float64{0, -3, 1.7e9}).Draw(t, "now")
		samePlan(t, planRecompute(MRv1, jobs, total, now), planEventsWith(jobs, total, now, slack, near, minGroup))
	})
}

// TestPlanMatchesRecomputeLarge compares the plans on the benchmark's
// instances at J = 1,000 and on a few unusual shapes, and checks which one
// Plan takes.
func TestPlanMatchesRecomputeLarge(t *testing.T) {
	cases := map[string]struct {
		jobs  []Job
		total int
	}{
		"bench J=1000":            {benchJobs(1000, 10000), 10000},
		"bench J=300":             {benchJobs(300, 900), 900},
		"equal weights":           {equalJobs(500, 2000, 1), 2000},
		"tiny weights":            {equalJobs(200, 5000, 1e-6), 5000},
		"scarce slots":            {benchJobs(400, 40), 40},
		"a Unix-time now":         {benchJobs(200, 2000), 2000},
		"distinct weights":        {distinctJobs(2500, 25000), 25000},
		"dust at a Unix-time now": {dustJobs(), 7},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			now := 0.0
			if name == "a Unix-time now" || name == "dust at a Unix-time now" {
				now = 1.7e9
			}
			sameAll(t, tc.jobs, tc.total, now)
			if name != "dust at a Unix-time now" { // its work is below the clock's resolution, by design
				checkPlan(t, MRv1, tc.jobs, tc.total, now, Plan(MRv1, tc.jobs, tc.total, now))
			}
		})
	}
}

// TestPlanEventsSeeded compares the event-driven plan with planScan, the
// other exact MRv1 plan (independent of the events: a pass per interval),
// bit for bit on seeded instances of the benchmarks' shape at sizes up to
// J = 3,000, where rebuilds, band misses and the completion heap's
// horizon moves all happen many times; and with the direct computation
// itself up to J = 1,000. Variations: a Unix-time now, scarce slots (the
// caps do not bind), weights repeated or 0 for some jobs, some minima
// raised, every weight 1, four weights.
func TestPlanEventsSeeded(t *testing.T) {
	eachSeeded(t, []int{500, 800, 1000, 3000}, func(t *testing.T, n int, jobs []Job, total int, now float64) {
		want := planScan(jobs, total, now)
		samePlan(t, want, planEvents(jobs, total, now))
		samePlan(t, want, planEventsWith(jobs, total, now, 0, nearCompletions, 2))
		if n <= 1000 {
			samePlan(t, planRecompute(MRv1, jobs, total, now), want)
		}
	})
}

// eachSeeded runs check on every seeded variant (seededVariant) at each
// size, as a subtest; with -short, on the first half of the sizes.
func eachSeeded(t *testing.T, sizes []int, check func(t *testing.T, n int, jobs []Job, total int, now float64)) {
	if testing.Short() {
		sizes = sizes[:max(1, len(sizes)/2)]
	}
	for _, n := range sizes {
		for seed := range uint64(6) {
			jobs, total, now := seededVariant(n, seed)
			t.Run(fmt.Sprintf("J=%d/seed=%d", n, seed), func(t *testing.T) { check(t, n, jobs, total, now) })
		}
	}
}

// dustJobs complete within a float64 ulp of each other at a Unix-time
// now, so that some completions get no interval of their own.
func dustJobs() []Job {
	jobs := make([]Job, 6)
	for i := range jobs {
		jobs[i] = Job{ID: fmt.Sprintf("u%d", i), Max: 7, Weight: 1 + float64(i%2), Work: 1e-9 * float64(1+i%3)}
	}
	return jobs
}

// distinctJobs are n jobs of distinct weights, enough for Plan to take
// planEvents.
func distinctJobs(n, total int) []Job {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	jobs := make([]Job, n)
	for i := range jobs {
		jobs[i] = Job{ID: fmt.Sprintf("d%05d", i), Min: r.IntN(3), Max: 3 + r.IntN(total/n*20), Weight: r.Float64(), Work: 1 + 20*r.Float64()}
	}
	return jobs
}

func TestEventsPay(t *testing.T) {
	for name, tc := range map[string]struct {
		jobs []Job
		want bool
	}{
		"few jobs":         {distinctJobs(400, 4000), false},
		"distinct weights": {distinctJobs(1000, 10000), true},
		"many, distinct":   {distinctJobs(2500, 25000), true},
		"one weight":       {equalJobs(3000, 30000, 1), true},
		"four weights":     {benchJobs(3000, 30000), true},
		"few, one weight":  {equalJobs(400, 4000, 1), false},
	} {
		if got := eventsPay(tc.jobs); got != tc.want {
			t.Errorf("%s: eventsPay = %v, want %v", name, got, tc.want)
		}
	}
}

// equalJobs are n jobs of one weight and no minima, with work 1..n: every
// fractional part is equal, so the spare slots go by the later keys.
func equalJobs(n, total int, w float64) []Job {
	jobs := make([]Job, n)
	for i := range jobs {
		jobs[i] = Job{ID: fmt.Sprintf("e%04d", (i*7919)%n), Max: total, Weight: w, Submitted: float64(i % 3), Work: float64(1 + i)}
	}
	return jobs
}

// TestPlanFallsBackOutsidePreconditions: inputs the fast path does not take
// still get the direct computation's answer.
func TestPlanFallsBackOutsidePreconditions(t *testing.T) {
	cases := map[string][]Job{
		"NaN weight":    {{ID: "a", Max: 4, Weight: math.NaN(), Work: 4}, {ID: "b", Max: 4, Weight: 1, Work: 8}},
		"min above max": {{ID: "a", Min: 3, Max: 2, Weight: 1, Work: 4}, {ID: "b", Max: 4, Weight: 1, Work: 8}},
		"NaN submitted": {{ID: "a", Max: 4, Weight: 1, Work: 4, Submitted: math.NaN()}, {ID: "b", Max: 4, Weight: 1, Work: 8}},
	}
	for name, jobs := range cases {
		t.Run(name, func(t *testing.T) {
			if fastMRv1(jobs) {
				t.Fatal("fastMRv1 accepts input outside its preconditions")
			}
			want := planRecompute(MRv1, jobs, 4, 0)
			got := Plan(MRv1, jobs, 4, 0)
			if diff := gocmp.Diff(want, got, gocmp.Comparer(func(a, b float64) bool {
				return a == b || (a != a && b != b)
			})); diff != "" {
				t.Fatalf("(-recompute +plan):\n%s", diff)
			}
		})
	}
}

// drawCandidate draws the i-th candidate: few distinct leading keys, so
// that they tie often; rank and k i.
func drawCandidate(t *rapid.T, i int) candidate {
	return candidate{
		deficit:   float64(rapid.IntRange(0, 3).Draw(t, "d")) / 4,
		perWeight: float64(rapid.IntRange(0, 2).Draw(t, "pw")),
		rank:      int32(i),
		k:         int32(i),
	}
}

// TestSelectFirst checks the selection against a sort on random keys with
// many ties in the leading keys.
func TestSelectFirst(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 300).Draw(t, "n")
		c := make([]candidate, n)
		for i := range c {
			c[i] = drawCandidate(t, i)
		}
		c = rapid.Permutation(c).Draw(t, "order")
		k := rapid.IntRange(0, n).Draw(t, "k")
		sorted := append([]candidate(nil), c...)
		slices.SortFunc(sorted, cmpCandidates)
		selectFirst(c, k)
		sameFirst(t, c, sorted, k)
	})
}

// TestBelowNearIsExact checks the bracketed water-level test against
// Hadoop's own in-order sum at every doubling and bisection point, and at
// points on and around the segment's ends, as jobs leave one by one.
func TestBelowNearIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jobs, total := genFloatInstance(t)
		if rapid.Bool().Draw(t, "integer weights") {
			for i := range jobs {
				jobs[i].Weight = float64(int(jobs[i].Weight * 4))
			}
		}
		alive := make([]bool, len(jobs))
		live := make([]int, 0, len(jobs))
		for j := range jobs {
			alive[j] = true
			live = append(live, j)
		}
		wl := newWaterline(jobs, alive)
		order := rand.New(rand.NewPCG(uint64(len(jobs)), 1)).Perm(len(jobs))
		for _, gone := range order {
			target := math.Min(float64(wl.sumMax), float64(total))
			wl.bracket(live, target)
			points := []float64{0, 0.5, 1, 2, 4, 1e3, wl.segLo, wl.segHi, wl.okLo, wl.okHi,
				math.Nextafter(wl.segHi, 0), math.Nextafter(wl.segLo, math.Inf(1))}
			for r := 1.0; r < 1e6; r *= 2 {
				points = append(points, r)
			}
			right := wl.solve(live, total)
			points = append(points, right, right/2, math.Nextafter(right, 0))
			for _, r := range points {
				if !(r >= 0) || math.IsInf(r, 0) {
					continue
				}
				used := 0.0
				for _, j := range live {
					used += shareMRv1(jobs[j].Weight, jobs[j].Min, jobs[j].Max, r)
				}
				wl.bracket(live, target)
				if got, want := wl.belowNear(live, r, target), used < target; got != want {
					t.Fatalf("%d live, r = %v, target %v: belowNear %v, exact sum %v (%v)", len(live), r, target, got, want, used)
				}
			}
			wl.remove(gone)
			live = slices.DeleteFunc(live, func(j int) bool { return j == gone })
		}
	})
}

// TestSortBreakpoints checks the radix sort against a comparison sort by
// value, job and low before high, on values with many ties (equal values,
// zeros, infinities) and values that differ in any byte.
func TestSortBreakpoints(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 300).Draw(t, "n")
		value := rapid.OneOf(
			rapid.SampledFrom([]float64{0, 0.5, 1, 3, math.Inf(1), 5e-324, math.MaxFloat64}),
			rapid.Float64Range(0, 4),
			rapid.Float64Range(0, 1e300),
		)
		var b []breakpoint
		for j := range n {
			lo := value.Draw(t, "lo")
			b = append(b, breakpoint{lo, int32(j), false}, breakpoint{math.Max(lo, value.Draw(t, "hi")), int32(j), true})
		}
		want := slices.Clone(b)
		slices.SortFunc(want, func(x, y breakpoint) int {
			if c := cmp.Compare(x.v, y.v); c != 0 {
				return c
			}
			if c := cmp.Compare(x.job, y.job); c != 0 {
				return c
			}
			return cmp.Compare(b2i(x.hi), b2i(y.hi))
		})
		sortBreakpoints(b)
		if !slices.Equal(b, want) {
			t.Fatalf("got %v, want %v", b, want)
		}
	})
}

// TestEvQueue checks the bucket queue against a plain list: every entry at
// or below the level asked for comes out exactly once, none above it, with
// levels spread over many binades (so that the window moves and the far
// entries move in), entries inserted while draining, and resets.
func TestEvQueue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q evQueue
		q.init(4000)
		r := rapid.Float64Range(0, 100).Draw(t, "r0")
		q.reset(r)
		want := map[int32]float64{} // entries not yet due
		id := int32(0)
		add := func(at float64) {
			q.insert(id, at)
			if !math.IsInf(at, 1) {
				want[id] = at
			}
			id++
		}
		level := func(name string) float64 {
			switch rapid.IntRange(0, 3).Draw(t, name+" kind") {
			case 0:
				return math.Nextafter(r, math.Inf(1))
			case 1:
				return r*(1+rapid.Float64Range(0, 1e-4).Draw(t, name+" near")) + 1e-300
			case 2:
				return math.Inf(1)
			}
			return r*rapid.Float64Range(1, 1e6).Draw(t, name+" far") + rapid.Float64Range(1e-300, 10).Draw(t, name)
		}
		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		for s := range steps {
			for range rapid.IntRange(0, 20).Draw(t, "inserts") {
				add(level("at"))
			}
			if rapid.IntRange(0, 15).Draw(t, "reset") == 0 {
				r = rapid.Float64Range(0, r+1).Draw(t, "reset to")
				q.reset(r)
				clear(want)
				continue
			}
			r *= 1 + rapid.Float64Range(0, 2).Draw(t, "growth")
			r += rapid.Float64Range(0, 1).Draw(t, "plus")
			var exp []int32
			for j, at := range want {
				if at <= r {
					exp = append(exp, j)
					delete(want, j)
				}
			}
			var got []int32
			reinsert := rapid.Bool().Draw(t, "reinsert while draining")
			q.due(r, func(j int32) {
				got = append(got, j)
				if reinsert && j%3 == 0 { // a new entry above r, not due yet
					add(math.Nextafter(r, math.Inf(1)) * (1 + float64(j%7)*1e-6))
				}
			})
			slices.Sort(got)
			slices.Sort(exp)
			if !slices.Equal(got, exp) {
				t.Fatalf("step %d, r = %v: due gave %v, want %v", s, r, got, exp)
			}
		}
	})
}

// TestSubScaled checks the unrolled work pass against planRecompute's
// expression bit for bit, on every length up to a few dozen (the unrolled
// part and the tail) and on values that round: subnormals, large and tiny
// products, exact cancellations, zeros and infinities.
func TestSubScaled(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(t, "n")
		value := rapid.OneOf(
			rapid.Float64(),
			rapid.Float64Range(0, 1e6),
			rapid.SampledFrom([]float64{0, 1, 3, 5e-324, 0x1p-1022, 1e308, math.Inf(1), -0.0}),
		)
		rem := rapid.SliceOfN(value, n, n).Draw(t, "rem")
		a := rapid.SliceOfN(rapid.Float64Range(0, 1e5), n, n+3).Draw(t, "slots")
		dt := rapid.OneOf(rapid.Float64(), rapid.Float64Range(0, 1), rapid.SampledFrom([]float64{0, 1e-300, 1.0 / 3})).Draw(t, "dt")
		want := slices.Clone(rem)
		for k := range want {
			want[k] -= a[k] * dt // the expression planRecompute uses
		}
		got := slices.Clone(rem)
		subScaled(got, a, dt)
		for k := range want {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) && !(got[k] != got[k] && want[k] != want[k]) {
				t.Fatalf("k = %d: %v - %v*%v: got %v, want %v", k, rem[k], a[k], dt, got[k], want[k])
			}
		}
	})
}

// sameFirst fails unless c's first k candidates are sorted's first k, in
// any order (ranks are distinct).
func sameFirst(t *rapid.T, c, sorted []candidate, k int) {
	want := map[int32]bool{}
	for _, x := range sorted[:k] {
		want[x.rank] = true
	}
	for _, x := range c[:k] {
		if !want[x.rank] {
			t.Fatalf("selected %+v, not among the first %d", x, k)
		}
	}
}

// TestSelectUnits checks the selection among candidates that stand for
// several jobs (a class's members, see group) against sorting them and
// counting, with exact key ties, and with the partition budget cut short
// so that the sorting fallback runs too.
func TestSelectUnits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 200).Draw(t, "n")
		e := &evPlanner{}
		c := make([]candidate, n)
		units := make([]int, n)
		total := 0
		for i := range c {
			c[i] = drawCandidate(t, i)
			units[i] = 1
			if rapid.IntRange(0, 4).Draw(t, "class") == 0 {
				c[i].k = int32(-1 - len(e.groups))
				units[i] = rapid.IntRange(1, 50).Draw(t, "members")
				e.groups = append(e.groups, group{n: units[i]})
			}
			total += units[i]
		}
		c = rapid.Permutation(c).Draw(t, "order")
		k := rapid.IntRange(0, total).Draw(t, "k")
		budget := rapid.SampledFrom([]int{0, 1, 2 * bits.Len(uint(n))}).Draw(t, "budget")
		sorted := slices.Clone(c)
		slices.SortFunc(sorted, cmpCandidates)
		wantSplit, wantPartial, left := 0, 0, k
		for _, x := range sorted {
			u := e.units(&x)
			if left < u {
				wantPartial = left
				break
			}
			left -= u
			wantSplit++
		}
		split, partial := e.selectUnitsWithin(c, k, budget)
		if split != wantSplit || partial != wantPartial {
			t.Fatalf("split, partial = %d, %d; want %d, %d", split, partial, wantSplit, wantPartial)
		}
		sameFirst(t, c, sorted, split)
		if partial > 0 && c[split].rank != sorted[split].rank {
			t.Fatalf("partial class %+v, want %+v", c[split], sorted[split])
		}
	})
}

// TestGroupsHold checks when a selection with classes (groupsHold) is
// taken and when the interval is left to a rebuild.
func TestGroupsHold(t *testing.T) {
	single := func(d, pw float64, rank int32) candidate { return candidate{d, pw, rank, rank} }
	class := func(gi int, d, pw float64, rank int32) candidate { return candidate{d, pw, rank, int32(-1 - gi)} }
	for _, tc := range []struct {
		name           string
		d              []float64 // the classes' deficits
		cand           []candidate
		split, partial int
		want           bool
		wantM          []int
	}{
		{"a class straddles the cut alone", []float64{0.5}, []candidate{single(0.7, 1, 1), class(0, 0.5, 1, 2), single(0.2, 1, 3)}, 1, 2, true, []int{2}},
		{"a class straddles the cut with a single of equal keys", []float64{0.5}, []candidate{single(0.7, 1, 1), class(0, 0.5, 1, 2), single(0.5, 1, 3)}, 1, 2, false, []int{2}},
		{"a class whole before a single of equal keys", []float64{0.5}, []candidate{class(0, 0.5, 1, 2), single(0.5, 1, 3)}, 1, 0, false, []int{4}},
		{"two singles of equal keys across the cut", []float64{0.5}, []candidate{class(0, 0.5, 1, 9), single(0.3, 1, 3), single(0.3, 1, 4)}, 2, 0, true, []int{4}},
		{"a class above the window keeps members without a slot", []float64{0.95}, []candidate{class(0, 0.95, 1, 2)}, 0, 1, false, []int{1}},
		{"a class below the window gives one a slot", []float64{0.05}, []candidate{class(0, 0.05, 1, 2)}, 0, 3, false, []int{3}},
		{"a class below the window without a slot", []float64{0.05}, []candidate{single(0.5, 1, 1), class(0, 0.05, 1, 2)}, 1, 0, true, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &evPlanner{lo: 0.1, hi: 0.9}
			for _, d := range tc.d {
				e.groups = append(e.groups, group{n: 4, d: d})
			}
			if got := e.groupsHold(tc.cand, tc.split, tc.partial); got != tc.want {
				t.Errorf("groupsHold = %v, want %v", got, tc.want)
			}
			for gi, m := range tc.wantM {
				if e.groups[gi].m != m {
					t.Errorf("class %d: m = %d, want %d", gi, e.groups[gi].m, m)
				}
			}
		})
	}
}

// TestPlanYARNSeeded compares planYARN with the direct computation bit for
// bit on seeded instances of the benchmarks' shape up to J = 1,000 and its
// variations (as TestPlanEventsSeeded), where brackets are made and
// outlived many times, and checks that Plan takes it.
func TestPlanYARNSeeded(t *testing.T) {
	eachSeeded(t, []int{300, 1000}, func(t *testing.T, _ int, jobs []Job, total int, now float64) {
		if !fastYARN(jobs) {
			t.Fatal("planYARN does not take the instance")
		}
		samePlan(t, planRecompute(YARN, jobs, total, now), Plan(YARN, jobs, total, now))
	})
}

// seededVariant is seed's variation of the benchmarks' shape at n jobs
// (TestPlanEventsSeeded): a Unix-time now, scarce slots, repeated and zero
// weights with raised minima, binding caps, every weight 1, four weights.
func seededVariant(n int, seed uint64) ([]Job, int, float64) {
	jobs := largeJobsSeeded(seed+2, n, 10*n)
	total, now := 10*n, 0.0
	r := rand.New(rand.NewPCG(seed, 99))
	switch seed {
	case 1:
		now = 1.7e9
		total = 3 * n
	case 2:
		for i := range jobs {
			switch r.IntN(20) {
			case 0:
				jobs[i].Weight = 0
			case 1, 2:
				jobs[i].Weight = 0.25
			case 3:
				jobs[i].Min = jobs[i].Max / 2
			}
		}
	case 3:
		total = 40 * n // every cap binds at the start
	case 4: // Hadoop's default: every weight 1 (one class, see group)
		for i := range jobs {
			jobs[i].Weight = 1
		}
	case 5: // a few priority classes, some minima raised
		for i := range jobs {
			jobs[i].Weight = []float64{0.5, 1, 2, 4}[r.IntN(4)]
			if r.IntN(10) == 0 {
				jobs[i].Min = jobs[i].Max / 2
			}
		}
	}
	return jobs, total, now
}

// TestPlanYARNReach compares planYARN with the direct computation on the
// property tests' instances, small integer ones full of exact ties and
// larger real-valued ones, with brackets from very narrow (the bisection
// ends outside them, and they are made anew every interval) to wider than
// the plan.
func TestPlanYARNReach(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var jobs []Job
		var total int
		if rapid.Bool().Draw(t, "small integers") {
			jobs, total = genInstance(t)
		} else {
			jobs, total = genFloatInstance(t)
		}
		if !fastYARN(jobs) {
			return // Plan takes the direct computation (TestPlanMatchesRecomputeSmall)
		}
		reach := rapid.SampledFrom([]float64{1e-12, 1e-6, 1, yarnReach, 1e6}).Draw(t, "reach")
		now := rapid.SampledFrom([]float64{0, -3, 1.7e9}).Draw(t, "now")
		samePlan(t, planRecompute(YARN, jobs, total, now), planYARNWith(jobs, total, now, reach))
	})
}
