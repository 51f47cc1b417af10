package fairshare

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestSlotsTable(t *testing.T) {
	abc := []Job{
		{ID: "a", Max: 10240, Weight: 1},
		{ID: "b", Max: 10240, Weight: 1},
		{ID: "c", Max: 10240, Weight: 1},
	}
	cases := map[string]struct {
		shares []float64
		jobs   []Job
		total  int
		want   []int
	}{
		"3414 x 3 over 10240: two slots taken back, last id first": {
			shares: []float64{3414, 3414, 3414}, jobs: abc, total: 10240,
			want: []int{3414, 3413, 3413},
		},
		"largest fractional part first, one slot each": {
			shares: []float64{3.2, 3.7, 3.1},
			jobs:   []Job{{ID: "a", Max: 9, Weight: 1}, {ID: "b", Max: 9, Weight: 1}, {ID: "c", Max: 9, Weight: 1}},
			total:  10, want: []int{3, 4, 3},
		},
		"equal fractions: fewer slots per weight wins": {
			shares: []float64{2.5, 2.5, 4.5},
			jobs:   []Job{{ID: "a", Max: 9, Weight: 1}, {ID: "b", Max: 9, Weight: 2}, {ID: "c", Max: 9, Weight: 1}},
			total:  10, want: []int{3, 3, 4}, // 2/2 < 2/1 < 4/1 slots per weight
		},
		"equal fractions and ratios: earlier submitted wins, then id": {
			shares: []float64{1.5, 1.5, 1.5},
			jobs:   []Job{{ID: "z", Max: 9, Weight: 1, Submitted: 5}, {ID: "y", Max: 9, Weight: 1, Submitted: 1}, {ID: "x", Max: 9, Weight: 1, Submitted: 5}},
			total:  5, want: []int{1, 2, 2},
		},
		"never above max: the slack goes on to the next job": {
			shares: []float64{5.9, 1.1},
			jobs:   []Job{{ID: "a", Max: 5, Weight: 1}, {ID: "b", Max: 9, Weight: 1}},
			total:  8, want: []int{5, 3},
		},
		"minima hold even above the share": {
			shares: []float64{0.4, 9.6},
			jobs:   []Job{{ID: "a", Min: 3, Max: 5, Weight: 1}, {ID: "b", Max: 10, Weight: 1}},
			total:  10, want: []int{3, 7},
		},
		"no slack while demand remains, even with zero shares": {
			shares: []float64{0, 0, math.NaN()},
			jobs:   []Job{{ID: "a", Max: 2, Weight: 1}, {ID: "b", Max: 3, Weight: 0}, {ID: "c", Max: 1, Weight: 1}},
			total:  4, want: []int{2, 1, 1},
		},
		"demand below S: everyone at max": {
			shares: []float64{2, 3},
			jobs:   []Job{{ID: "a", Max: 2, Weight: 1}, {ID: "b", Max: 3, Weight: 1}},
			total:  100, want: []int{2, 3},
		},
		"empty": {shares: nil, jobs: nil, total: 5, want: []int{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Slots(tc.shares, tc.jobs, tc.total)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Slots (-want +got):\n%s", diff)
			}
		})
	}
}

// genInstance draws a valid phase problem as Slots and Plan expect it:
// 0 <= Min <= Max <= S, sum of Min <= S, unique ids, ties in submission and
// weight likely.
func genInstance(t *rapid.T) ([]Job, int) {
	total := rapid.IntRange(1, 60).Draw(t, "S")
	n := rapid.IntRange(0, 12).Draw(t, "J")
	jobs := make([]Job, n)
	budget := total
	weights := []float64{0, 0.5, 1, 1, 2, 0.3, 3.7}
	for i := range jobs {
		hi := rapid.IntRange(1, total).Draw(t, "max")
		lo := rapid.IntRange(0, min(hi, budget)).Draw(t, "min")
		budget -= lo
		jobs[i] = Job{
			ID:        fmt.Sprintf("j%02d", rapid.IntRange(0, 99).Draw(t, "id")*100+i),
			Min:       lo,
			Max:       hi,
			Weight:    rapid.SampledFrom(weights).Draw(t, "weight"),
			Submitted: float64(rapid.IntRange(0, 3).Draw(t, "submitted")),
			Work:      float64(rapid.IntRange(1, 500).Draw(t, "work")) / 4,
		}
	}
	return jobs, total
}

// genShares draws the shares Slots rounds: Hadoop's, in either variant, or
// arbitrary numbers (including out of range and NaN) to check robustness.
func genShares(t *rapid.T, jobs []Job, total int) []float64 {
	sched := make([]Schedulable, len(jobs))
	for i, j := range jobs {
		sched[i] = j.Schedulable()
	}
	switch rapid.IntRange(0, 2).Draw(t, "source") {
	case 0:
		return Compute(MRv1, sched, total)
	case 1:
		return Compute(YARN, sched, total)
	}
	out := make([]float64, len(jobs))
	for i := range out {
		out[i] = rapid.Float64Range(-2, float64(total)+2).Draw(t, "share")
		if rapid.IntRange(0, 20).Draw(t, "nan") == 0 {
			out[i] = math.NaN()
		}
	}
	return out
}

func TestSlotsProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jobs, total := genInstance(t)
		shares := genShares(t, jobs, total)
		got := Slots(shares, jobs, total)

		sum, sumMax := 0, 0
		for i, j := range jobs {
			if got[i] < j.Min || got[i] > j.Max {
				t.Fatalf("job %d: %d slots outside [%d, %d]", i, got[i], j.Min, j.Max)
			}
			sum += got[i]
			sumMax += j.Max
		}
		if want := min(total, sumMax); sum != want {
			t.Fatalf("sum of slots %d, want min(S, sum max) = %d", sum, want)
		}

		// Rounding fidelity. base is each share floored into [Min, Max].
		base := make([]int, len(jobs))
		sumBase, eligible, liftedByMin := 0, 0, false
		for i, j := range jobs {
			s := shares[i]
			if s != s {
				s = 0
			}
			base[i] = int(math.Max(float64(j.Min), math.Min(float64(j.Max), math.Floor(s))))
			sumBase += base[i]
			if base[i] < j.Max {
				eligible++
				// A job held at a minimum above its share is more than one
				// slot ahead of it, so it may rank behind a second slot for
				// another job: the one-round property below does not apply.
				liftedByMin = liftedByMin || float64(base[i]) > math.Floor(s)
			}
		}
		for i := range jobs {
			switch {
			case sumBase > sum && got[i] > base[i]:
				t.Fatalf("over-allocated floors, yet job %d rose from %d to %d", i, base[i], got[i])
			case sumBase <= sum && got[i] < base[i]:
				t.Fatalf("job %d fell below its floor %d to %d", i, base[i], got[i])
			}
		}
		if sumBase <= sum && sum-sumBase <= eligible && !liftedByMin {
			// One round: each job at most one extra, to the largest fractions.
			for i := range jobs {
				if got[i] > base[i]+1 {
					t.Fatalf("job %d got %d extra slots in a single round", i, got[i]-base[i])
				}
				for k := range jobs {
					fi, fk := shares[i]-float64(base[i]), shares[k]-float64(base[k])
					if got[i] == base[i]+1 && got[k] == base[k] && base[k] < jobs[k].Max && fk > fi {
						t.Fatalf("job %d (deficit %v) got a slot before job %d (deficit %v)", i, fi, k, fk)
					}
				}
			}
		}

		// Deterministic under permutation: the answer follows the job.
		perm := rapid.Permutation(indexes(len(jobs))).Draw(t, "perm")
		pj, ps := make([]Job, len(jobs)), make([]float64, len(jobs))
		for k, i := range perm {
			pj[k], ps[k] = jobs[i], shares[i]
		}
		pg := Slots(ps, pj, total)
		for k, i := range perm {
			if pg[k] != got[i] {
				t.Fatalf("permuted: job %s got %d, unpermuted %d", jobs[i].ID, pg[k], got[i])
			}
		}
	})
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestSlotsPanicsOnLengthMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Slots with 1 share for 2 jobs did not panic")
		}
	}()
	Slots([]float64{1}, []Job{{ID: "a", Max: 1}, {ID: "b", Max: 1}}, 2)
}
