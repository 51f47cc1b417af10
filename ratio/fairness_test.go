package ratio

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fairStep simulates Hadoop's FAIR SCHEDULER on separate map and reduce
// slots with unit-time tasks, as in the dissertation's 3.3.2.1 example:
// every time unit each phase's slots are handed one at a time to the job
// with the fewest slots so far this unit (then the least slot time used in
// that phase so far, then submission order); a job's reduce tasks become
// runnable the unit after its last map task. It returns the per-unit
// allocations [job][t] as "2(M)"-style cells and the makespan.
func fairStep(mapTasks, redTasks []int, mapSlots, redSlots int) (table [][]string, makespan int) {
	n := len(mapTasks)
	mLeft, rLeft := append([]int(nil), mapTasks...), append([]int(nil), redTasks...)
	mUsed, rUsed := make([]int, n), make([]int, n)
	table = make([][]string, n)
	share := func(slots int, left, used []int, eligible func(int) bool) []int {
		got := make([]int, n)
		for s := 0; s < slots; s++ {
			best := -1
			for i := 0; i < n; i++ {
				if !eligible(i) || got[i] >= left[i] {
					continue
				}
				if best < 0 || got[i] < got[best] || (got[i] == got[best] && used[i] < used[best]) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			got[best]++
		}
		return got
	}
	for t := 0; ; t++ {
		remaining := 0
		for i := 0; i < n; i++ {
			remaining += mLeft[i] + rLeft[i]
		}
		if remaining == 0 {
			return table, t
		}
		mapDone := make([]bool, n)
		for i := range mapDone {
			mapDone[i] = mLeft[i] == 0
		}
		gm := share(mapSlots, mLeft, mUsed, func(i int) bool { return mLeft[i] > 0 })
		gr := share(redSlots, rLeft, rUsed, func(i int) bool { return mapDone[i] })
		for i := 0; i < n; i++ {
			cell := ""
			switch {
			case gm[i] > 0 && gr[i] > 0:
				cell = itoa(gm[i]) + "(M)+" + itoa(gr[i]) + "(R)"
			case gm[i] > 0:
				cell = itoa(gm[i]) + "(M)"
			case gr[i] > 0:
				cell = itoa(gr[i]) + "(R)"
			}
			table[i] = append(table[i], cell)
			mLeft[i] -= gm[i]
			rLeft[i] -= gr[i]
			mUsed[i] += gm[i]
			rUsed[i] += gr[i]
		}
	}
}

func itoa(x int) string { return string(rune('0' + x)) }

// TestFreshFairExample reproduces the table of dissertation 3.3.2.1: 4 map
// and 4 reduce slots, J1 (2 map, 9 reduce), J2 (3, 4), J3 (7, 3), unit
// tasks. FAIR finishes all in 5 time units with 11, 7 and 10 slots
// occupied; per-phase fairness hides that overall shares differ, which
// Eq. 3.1 and Jain's index expose: r = 11/5, 7/5, 10/5 and F(5) =
// 28^2 / (3 * (121 + 49 + 100)) = 784/810.
func TestFreshFairExample(t *testing.T) {
	table, makespan := fairStep([]int{2, 3, 7}, []int{9, 4, 3}, 4, 4)
	want := [][]string{
		{"2(M)", "4(R)", "2(R)", "1(R)", "2(R)"},
		{"1(M)", "2(M)", "2(R)", "1(R)", "1(R)"},
		{"1(M)", "2(M)", "4(M)", "2(R)", "1(R)"},
	}
	if d := cmp.Diff(want, table); d != "" {
		t.Errorf("FAIR table (-want +got):\n%s", d)
	}
	if makespan != 5 {
		t.Errorf("makespan %d, want 5", makespan)
	}
	var usage []Usage
	for i, row := range table {
		total := 0
		for _, cell := range row {
			for k := 0; k < len(cell); k++ {
				if cell[k] >= '0' && cell[k] <= '9' {
					total += int(cell[k] - '0')
				}
			}
		}
		usage = append(usage, Usage{ID: []string{"J1", "J2", "J3"}[i], SlotSeconds: float64(total)})
	}
	if got := []float64{usage[0].SlotSeconds, usage[1].SlotSeconds, usage[2].SlotSeconds}; !cmp.Equal(got, []float64{11, 7, 10}) {
		t.Errorf("slots occupied %v, want [11 7 10]", got)
	}
	index, r := OverallFairness(usage, 5)
	if d := cmp.Diff([]float64{2.2, 1.4, 2}, r, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); d != "" {
		t.Errorf("r_i (-want +got):\n%s", d)
	}
	if math.Abs(index-784.0/810) > 1e-12 {
		t.Errorf("F(5) = %v, want 784/810", index)
	}
}

// TestJain checks the index's bounds and the inactive-job rule.
func TestJain(t *testing.T) {
	cases := map[string]struct {
		x    []float64
		want float64
	}{
		"equal shares are perfectly fair": {[]float64{3, 3, 3}, 1},
		"one of n holds everything: 1/n":  {[]float64{5, 0, 0, 0}, 0.25},
		// (1+3)^2 / (2*(1+9)) = 16/20.
		"two jobs 1 and 3": {[]float64{1, 3}, 0.8},
		"empty is fair":    {nil, 1},
		"all zero is fair": {[]float64{0, 0}, 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Jain(c.x); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("Jain(%v) = %v, want %v", c.x, got, c.want)
			}
		})
	}
	// A job that starts at now is not active yet and is left out.
	idx, r := OverallFairness([]Usage{{ID: "a", Start: 0, SlotSeconds: 10}, {ID: "b", Start: 10, SlotSeconds: 0}}, 10)
	if idx != 1 || len(r) != 1 || r[0] != 1 {
		t.Errorf("OverallFairness = %v, %v; want 1, [1]", idx, r)
	}
}

// TestSlotSeconds checks Alg. 3.3.4 lines 6-10: finished tasks count f-s,
// running ones now-s.
func TestSlotSeconds(t *testing.T) {
	spans := []TaskSpan{{Start: 0, End: 4}, {Start: 2, End: 3}, {Start: 5, Running: true}}
	// 4 + 1 + (8-5) = 8.
	if got := SlotSeconds(spans, 8); got != 8 {
		t.Errorf("SlotSeconds = %v, want 8", got)
	}
}
