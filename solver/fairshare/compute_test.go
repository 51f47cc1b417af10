package fairshare

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxInt is Integer.MAX_VALUE, Hadoop's "unbounded" max share in
// FakeSchedulable.
const maxInt = math.MaxInt32

// mrv1Job is the MRv1 FakeSchedulable(demand, minShare, weight).
func mrv1Job(demand, minShare int, weight float64) Schedulable {
	return Schedulable{Weight: weight, Min: minShare, Max: demand}
}

// yarnQ is the YARN FakeSchedulable(minShare, maxShare, weight).
func yarnQ(minShare, maxShare int, weight float64) Schedulable {
	return Schedulable{Weight: weight, Min: minShare, Max: maxShare}
}

// inactive is a YARN queue without running apps: getFairShareIfFixed fixes
// its instantaneous share at 0, which flexd expresses as a zero max.
var inactive = Schedulable{Weight: 1, Max: 0}

func repeatQ(n int, q Schedulable) []Schedulable {
	out := make([]Schedulable, n)
	for i := range out {
		out[i] = q
	}
	return out
}

func repeatF(n int, f float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = f
	}
	return out
}

// TestComputeMRv1Conformance replays the contrib fair scheduler's
// TestComputeFairShares (Hadoop 1.x, src/contrib/fairscheduler/src/test/org/
// apache/hadoop/mapred/TestComputeFairShares.java) with the numbers it
// asserts, to its tolerance of 0.01; plus the cases docs/fair-share.md adds
// where Hadoop has no finite answer.
func TestComputeMRv1Conformance(t *testing.T) {
	cases := map[string]struct {
		jobs  []Schedulable
		total int
		want  []float64
	}{
		"testEqualSharing: demands above the equal share get 10 each": {
			jobs:  []Schedulable{mrv1Job(100, 0, 1), mrv1Job(50, 0, 1), mrv1Job(30, 0, 1), mrv1Job(20, 0, 1)},
			total: 40, want: []float64{10, 10, 10, 10},
		},
		"testLowDemands: demands of 11 and 3 cap their pools": {
			jobs:  []Schedulable{mrv1Job(100, 0, 1), mrv1Job(50, 0, 1), mrv1Job(11, 0, 1), mrv1Job(3, 0, 1)},
			total: 40, want: []float64{13, 13, 11, 3},
		},
		"testMinShares: min shares honoured up to demand": {
			jobs:  []Schedulable{mrv1Job(100, 20, 1), mrv1Job(10, 20, 1), mrv1Job(10, 0, 1), mrv1Job(3, 2, 1)},
			total: 40, want: []float64{20, 10, 7, 3},
		},
		"testWeightedSharing: shares in proportion 2:1:1:0.5": {
			jobs:  []Schedulable{mrv1Job(100, 0, 2), mrv1Job(50, 0, 1), mrv1Job(30, 0, 1), mrv1Job(20, 0, 0.5)},
			total: 45, want: []float64{20, 10, 10, 5},
		},
		"testWeightedSharingWithLowDemands: weighted water-fill under demands": {
			jobs:  []Schedulable{mrv1Job(10, 0, 2), mrv1Job(11, 0, 1), mrv1Job(30, 0, 1), mrv1Job(20, 0, 0.5)},
			total: 45, want: []float64{10, 11, 16, 8},
		},
		"testWeightedSharingWithMinShares: a min share beats a small weight": {
			jobs:  []Schedulable{mrv1Job(10, 20, 2), mrv1Job(11, 0, 1), mrv1Job(30, 5, 1), mrv1Job(20, 15, 0.5)},
			total: 45, want: []float64{10, 10, 10, 15},
		},
		"testSmallShares: tiny fractional shares of one slot": {
			jobs:  []Schedulable{mrv1Job(10, 0, 1), mrv1Job(5, 0, 1), mrv1Job(3, 0, 1), mrv1Job(2, 0, 1)},
			total: 1, want: []float64{0.25, 0.25, 0.25, 0.25},
		},
		"testLargeShares: forty million slots": {
			jobs:  []Schedulable{mrv1Job(100e6, 0, 1), mrv1Job(50e6, 0, 1), mrv1Job(30e6, 0, 1), mrv1Job(20e6, 0, 1)},
			total: 40e6, want: []float64{10e6, 10e6, 10e6, 10e6},
		},
		"testZeroDemand: a pool with no demand gets nothing": {
			jobs:  []Schedulable{mrv1Job(100, 0, 1), mrv1Job(50, 0, 1), mrv1Job(30, 0, 1), mrv1Job(0, 0, 1)},
			total: 30, want: []float64{10, 10, 10, 0},
		},
		"testEmptyList": {jobs: nil, total: 40, want: []float64{}},
		"fair-share.md: minima beyond S are not scaled down": {
			jobs:  []Schedulable{mrv1Job(50, 30, 1), mrv1Job(50, 30, 1)},
			total: 40, want: []float64{30, 30},
		},
		"fair-share.md: every weight 0 gives each floor clipped by cap, no loop": {
			jobs:  []Schedulable{mrv1Job(5, 3, 0), mrv1Job(4, 7, 0), mrv1Job(9, 0, 0)},
			total: 20, want: []float64{3, 4, 0},
		},
		"fair-share.md: zero weight beside a capped job stops the doubling": {
			jobs:  []Schedulable{mrv1Job(10, 0, 0), mrv1Job(5, 0, 1)},
			total: 20, want: []float64{0, 5},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Compute(MRv1, tc.jobs, tc.total)
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b float64) bool {
				return math.Abs(a-b) <= 0.01
			})); diff != "" {
				t.Errorf("Compute(mrv1) (-want +got):\n%s", diff)
			}
			if got, _ := ParseVariant(""); got != MRv1 {
				t.Errorf("default variant = %q, want mrv1", got)
			}
		})
	}
}

// TestComputeYARNConformance replays the YARN FairScheduler's tests with
// the exact integers they assert: TestComputeFairShares (hadoop-yarn-
// project/.../scheduler/fair/TestComputeFairShares.java), the single-level
// fair-share tests of TestFairScheduler (same directory), and the cases of
// docs/fair-share.md. Queues without apps are inactive (fixed at 0).
func TestComputeYARNConformance(t *testing.T) {
	cases := map[string]struct {
		jobs  []Schedulable
		total int
		want  []float64
	}{
		"TestComputeFairShares.testEqualSharing": {
			jobs: repeatQ(4, yarnQ(0, maxInt, 1)), total: 40, want: repeatF(4, 10),
		},
		"TestComputeFairShares.testLowMaxShares": {
			jobs:  []Schedulable{yarnQ(0, 100, 1), yarnQ(0, 50, 1), yarnQ(0, 11, 1), yarnQ(0, 3, 1)},
			total: 40, want: []float64{13, 13, 11, 3},
		},
		"TestComputeFairShares.testMinShares": {
			jobs:  []Schedulable{yarnQ(20, maxInt, 1), yarnQ(18, maxInt, 1), yarnQ(0, maxInt, 1), yarnQ(2, maxInt, 1)},
			total: 40, want: []float64{20, 18, 0, 2},
		},
		"TestComputeFairShares.testWeightedSharing": {
			jobs:  []Schedulable{yarnQ(0, maxInt, 2), yarnQ(0, maxInt, 1), yarnQ(0, maxInt, 1), yarnQ(0, maxInt, 0.5)},
			total: 45, want: []float64{20, 10, 10, 5},
		},
		"TestComputeFairShares.testWeightedSharingWithMaxShares": {
			jobs:  []Schedulable{yarnQ(0, 10, 2), yarnQ(0, 11, 1), yarnQ(0, 30, 1), yarnQ(0, 20, 0.5)},
			total: 45, want: []float64{10, 11, 16, 8},
		},
		"TestComputeFairShares.testWeightedSharingWithMinShares": {
			jobs:  []Schedulable{yarnQ(20, maxInt, 2), yarnQ(0, maxInt, 1), yarnQ(5, maxInt, 1), yarnQ(15, maxInt, 0.5)},
			total: 45, want: []float64{20, 5, 5, 15},
		},
		"TestComputeFairShares.testLargeShares": {
			jobs: repeatQ(4, yarnQ(0, maxInt, 1)), total: 40e6, want: repeatF(4, 10e6),
		},
		"TestComputeFairShares.testEmptyList": {jobs: nil, total: 40, want: []float64{}},
		"TestComputeFairShares.testCPU (vcores, same arithmetic)": {
			jobs:  []Schedulable{yarnQ(20, maxInt, 2), yarnQ(0, maxInt, 1), yarnQ(5, maxInt, 1), yarnQ(15, maxInt, 0.5)},
			total: 45, want: []float64{20, 5, 5, 15},
		},
		"TestComputeFairShares.testResourceUsedWithWeightToResourceRatio terminates (trunk's values)": {
			jobs: repeatQ(2, yarnQ(maxInt, maxInt, 1)), total: maxInt, want: repeatF(2, maxInt),
		},
		"TestFairScheduler.testSimpleFairShareCalculation: 10240 over 3 is 3414 each": {
			jobs: repeatQ(3, yarnQ(0, maxInt, 1)), total: 10 * 1024, want: repeatF(3, 3414),
		},
		"TestFairScheduler.testFairShareWithHighMaxResources": {
			jobs:  []Schedulable{yarnQ(0, 1073741824, .25), yarnQ(0, 1073741824, .75), inactive},
			total: 8 * 1024, want: []float64{2048, 6144, 0},
		},
		"TestFairScheduler.testFairShareWithLowMaxResources": {
			jobs:  []Schedulable{yarnQ(0, 1024, .75), yarnQ(0, 3072, .25), inactive},
			total: 8 * 1024, want: []float64{1024, 3072, 0},
		},
		"TestFairScheduler.testFairShareWithZeroWeight": {
			jobs:  []Schedulable{yarnQ(0, maxInt, 0), yarnQ(0, maxInt, 0), inactive},
			total: 8 * 1024, want: []float64{0, 0, 0},
		},
		"TestFairScheduler.testFairShareWithZeroWeightNoneZeroMinRes": {
			jobs:  []Schedulable{yarnQ(1, maxInt, 0), yarnQ(1, maxInt, 0), inactive},
			total: 8 * 1024, want: []float64{1, 1, 0},
		},
		"TestFairScheduler.testFairShareWithNoneZeroWeightNoneZeroMinRes": {
			jobs:  []Schedulable{yarnQ(1024, maxInt, .5), yarnQ(1024, maxInt, .5), inactive},
			total: 8 * 1024, want: []float64{4096, 4096, 0},
		},
		"TestFairScheduler.testFairShareWithMinAlloc": {
			jobs:  []Schedulable{yarnQ(1024, maxInt, 1), yarnQ(2048, maxInt, 1), inactive},
			total: 3 * 1024, want: []float64{1024, 2048, 0},
		},
		"TestFairScheduler.testSteadyFairShareWithReloadAndNodeAddRemove: before reload": {
			jobs: repeatQ(3, yarnQ(0, maxInt, 1)), total: 6144, want: repeatF(3, 2048),
		},
		"TestFairScheduler.testSteadyFairShareWithReloadAndNodeAddRemove: weights 1,2,2 and default": {
			jobs:  []Schedulable{yarnQ(0, maxInt, 1), yarnQ(0, maxInt, 2), yarnQ(0, maxInt, 2), yarnQ(0, maxInt, 1)},
			total: 6144, want: []float64{1024, 2048, 2048, 1024},
		},
		"TestFairScheduler.testSteadyFairShareWithQueueCreatedRuntime": {
			jobs: repeatQ(2, yarnQ(0, maxInt, 1)), total: 6144, want: repeatF(2, 3072),
		},
		"fair-share.md: 8192 over 6 is 1366 each": {
			jobs: repeatQ(6, yarnQ(0, maxInt, 1)), total: 8192, want: repeatF(6, 1366),
		},
		"fair-share.md: tiny shares truncate at the upper end, one each of a single slot": {
			jobs: repeatQ(4, yarnQ(0, maxInt, 1)), total: 1, want: repeatF(4, 1),
		},
		"fair-share.md: weight 0 fixed at its minimum, not clipped by max": {
			jobs:  []Schedulable{yarnQ(5, 3, 0), yarnQ(0, maxInt, 1)},
			total: 10, want: []float64{5, 5},
		},
		"fair-share.md: max 0 fixed at 0 whatever its minimum": {
			jobs:  []Schedulable{yarnQ(4, 0, 1), yarnQ(0, maxInt, 1)},
			total: 10, want: []float64{0, 10},
		},
		"fair-share.md: fixed minima beyond S leave the others their floors": {
			jobs:  []Schedulable{yarnQ(12, maxInt, 0), yarnQ(3, maxInt, 1), yarnQ(0, maxInt, 1)},
			total: 10, want: []float64{12, 3, 0},
		},
		"weights are Java floats: 0.3f reaches 1 before 0.9f reaches 3 (doubles give 1,3,3)": {
			jobs:  []Schedulable{yarnQ(0, maxInt, 0.3), yarnQ(0, maxInt, 0.9), yarnQ(0, maxInt, 1)},
			total: 6, want: []float64{1, 2, 3},
		},
		"weights are Java floats: 1e-50 rounds to 0 and is fixed": {
			jobs:  []Schedulable{yarnQ(2, maxInt, 1e-50), yarnQ(0, maxInt, 1)},
			total: 10, want: []float64{2, 8},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Compute(YARN, tc.jobs, tc.total)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Compute(yarn) (-want +got):\n%s", diff)
			}
		})
	}
}

// TestComputeYARNHierarchy replays the hierarchical YARN tests, where a
// parent queue's fair share is split among its children by the same
// computation (FSParentQueue.recomputeShares), with the tolerances the
// Hadoop tests assert. Queue tree of TestFairSchedulerFairShare: root has
// parentA (weight 8, children A1..A4), parentB (weight 1, children B1, B2)
// and default (weight 1).
func TestComputeYARNHierarchy(t *testing.T) {
	type check struct {
		what      string
		got, want float64
		tolerance float64
	}
	const node = 16 * 1024
	// level computes one parent's children's shares out of the parent's.
	level := func(parent float64, children ...Schedulable) []float64 {
		return Compute(YARN, children, int(parent))
	}
	active := yarnQ(0, maxInt, 1)
	cases := map[string]func() []check{
		"TestFairScheduler.testSimpleHierarchicalFairShareCalculation": func() []check {
			root := level(240, active, active) // default, parent
			kids := level(root[1], active, active)
			return []check{
				{"default", root[0], 120, 0}, {"parent.queue2", kids[0], 60, 0}, {"parent.queue3", kids[1], 60, 0},
			}
		},
		"TestFairScheduler.testFairShareAndWeightsInNestedUserQueueRule": func() []check {
			root := level(node, yarnQ(1024, maxInt, 1), active) // parentq, default
			kids := level(root[0], active, active)
			return []check{{"parentq.user1", kids[0], node / 4, 0}, {"parentq.user2", kids[1], node / 4, 0}}
		},
		"TestFairSchedulerFairShare.testFairShareOneAppRunning": func() []check {
			root := level(node, yarnQ(0, maxInt, 8), inactive, inactive)
			a := level(root[0], active, inactive, inactive, inactive)
			return []check{{"childA1 %", a[0] / node * 100, 100, 0.1}, {"childA2", a[1] / node, 0, 0.1}}
		},
		"TestFairSchedulerFairShare.testFairShareMultipleActiveQueuesUnderSameParent": func() []check {
			root := level(node, yarnQ(0, maxInt, 8), inactive, inactive)
			a := level(root[0], active, active, active, inactive)
			return []check{
				{"childA1 %", a[0] / node * 100, 33, .9}, {"childA2 %", a[1] / node * 100, 33, .9}, {"childA3 %", a[2] / node * 100, 33, .9},
			}
		},
		"TestFairSchedulerFairShare.testFairShareMultipleActiveQueuesUnderDifferentParent": func() []check {
			root := level(node, yarnQ(0, maxInt, 8), yarnQ(0, maxInt, 1), active)
			a := level(root[0], active, active, inactive, inactive)
			b := level(root[1], active, inactive)
			return []check{
				{"childA1 %", a[0] / node * 100, 40, .9}, {"childA2 %", a[1] / node * 100, 40, .9}, {"childB1 %", b[0] / node * 100, 10, .9},
			}
		},
		"TestFairSchedulerFairShare.testFairShareResetsToZeroWhenAppsComplete": func() []check {
			root := level(node, yarnQ(0, maxInt, 8), inactive, inactive)
			before := level(root[0], active, active, inactive, inactive)
			after := level(root[0], inactive, active, inactive, inactive)
			return []check{
				{"childA1 % before", before[0] / node * 100, 50, .9}, {"childA2 % before", before[1] / node * 100, 50, .9},
				{"childA1 % after", after[0] / node * 100, 0, 0}, {"childA2 % after", after[1] / node * 100, 100, 0.1},
			}
		},
		"TestFairSchedulerFairShare.verifySteadyFairShareMemory (steady shares count every queue)": func() []check {
			root := level(node, yarnQ(0, maxInt, 8), yarnQ(0, maxInt, 1), active)
			a := level(root[0], active, active, active, active)
			b := level(root[1], active, active)
			var out []check
			for i := range a {
				out = append(out, check{"parentA child", a[i] / node, 0.2, 0.001})
			}
			for i := range b {
				out = append(out, check{"parentB child", b[i] / node, 0.05, 0.001})
			}
			return out
		},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			for _, c := range run() {
				if math.Abs(c.got-c.want) > c.tolerance {
					t.Errorf("%s = %v, want %v within %v", c.what, c.got, c.want, c.tolerance)
				}
			}
		})
	}
}

// TestComputeNeverBelowTarget checks the search's contract on a grid of
// instances (docs/fair-share.md: "the total is never below the target"):
// MRv1 reaches min(S, sum of demands); YARN's non-fixed jobs reach
// min(S - F, sum of their max shares).
func TestComputeNeverBelowTarget(t *testing.T) {
	for total := 1; total <= 60; total += 7 {
		for seed := range 50 {
			jobs := make([]Schedulable, 1+seed%6)
			for i := range jobs {
				k := seed*7 + i*13 + total
				jobs[i] = Schedulable{Weight: float64(k%5) * 0.37, Min: k % 4, Max: 1 + k%17}
			}
			mr := Compute(MRv1, jobs, total)
			sumMR, demand, anyWeight := 0.0, 0, false
			for i, j := range jobs {
				sumMR += mr[i]
				demand += j.Max
				anyWeight = anyWeight || (j.Weight > 0 && j.Min < j.Max)
			}
			if target := float64(min(total, demand)); anyWeight && sumMR < target-1e-9 && !saturatedBelow(jobs, target) {
				t.Errorf("mrv1 %v on %d: total %v below target %v", jobs, total, sumMR, target)
			}
			y := Compute(YARN, jobs, total)
			var fixed, capSum, got int
			for i, j := range jobs {
				if j.Weight <= 0 {
					fixed += j.Min
					continue
				}
				capSum += j.Max
				got += int(y[i])
				if y[i] != math.Trunc(y[i]) {
					t.Errorf("yarn share %v is not an integer", y[i])
				}
			}
			if target := min(max(total-fixed, 0), capSum); got < target {
				t.Errorf("yarn %v on %d: total %d below target %d", jobs, total, got, target)
			}
		}
	}
}

// saturatedBelow reports whether the MRv1 total at infinite R stays below
// target: the case where Hadoop reports NaN and flexd stops early.
func saturatedBelow(jobs []Schedulable, target float64) bool {
	sum := 0.0
	for _, j := range jobs {
		if j.Weight > 0 {
			sum += float64(j.Max)
		} else {
			sum += math.Min(float64(j.Min), float64(j.Max))
		}
	}
	return sum < target
}

func TestJavaArithmetic(t *testing.T) {
	longs := map[string]struct {
		in   float64
		want int64
	}{
		"truncates toward zero":  {2.9, 2},
		"negative toward zero":   {-2.9, -2},
		"NaN is 0":               {math.NaN(), 0},
		"saturates high":         {1e300, math.MaxInt64},
		"saturates low":          {-1e300, math.MinInt64},
		"+Inf saturates":         {math.Inf(1), math.MaxInt64},
		"exact 2^53 stays exact": {0x1p53, 1 << 53},
	}
	for name, tc := range longs {
		if got := javaLong(tc.in); got != tc.want {
			t.Errorf("javaLong %s: javaLong(%v) = %d, want %d", name, tc.in, got, tc.want)
		}
	}
	adds := map[string]struct{ a, b, want int64 }{
		"plain":             {2, 3, 5},
		"overflow high":     {math.MaxInt64, 1, math.MaxInt64},
		"overflow low":      {math.MinInt64, -1, math.MaxInt64},
		"max plus negative": {math.MaxInt64, -1, math.MaxInt64 - 1},
	}
	for name, tc := range adds {
		if got := safeAdd(tc.a, tc.b); got != tc.want {
			t.Errorf("safeAdd %s: safeAdd(%d, %d) = %d, want %d", name, tc.a, tc.b, got, tc.want)
		}
	}
}

func TestParseVariant(t *testing.T) {
	for in, want := range map[string]Variant{"": MRv1, "mrv1": MRv1, "yarn": YARN, "YARN": "", "hfs": ""} {
		got, ok := ParseVariant(in)
		if got != want || ok != (want != "") {
			t.Errorf("ParseVariant(%q) = %q, %v; want %q, %v", in, got, ok, want, want != "")
		}
	}
}
