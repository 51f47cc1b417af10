package ratio

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// one builds a single job whose pending tasks are the phase demands.
func one(dMap, dRed int) []Job {
	return []Job{{ID: "j1", Map: PhaseDemand{Pending: dMap}, Reduce: PhaseDemand{Pending: dRed}}}
}

// TestPIDHSACases covers each of DynamicMR Algorithm 1's four load-factor
// cases under Appendix F's grid of borrow limits Pec_M / Pec_R in {0, 0.5,
// 1}, on a cluster of 10 map and 6 reduce slots. Every expected budget is
// worked out in the case's comment from docs/algorithms.md section 7:
// borrow = min(floor(pct x unused slots of the lending phase), excess demand
// of the borrowing phase); with a reduce-slot weight w a lent map slot buys
// 1/w reduce slots and a lent reduce slot w map slots (challenge C2).
func TestPIDHSACases(t *testing.T) {
	cl := Cluster{MapSlots: 10, ReduceSlots: 6}
	type want struct {
		Map, Reduce int
		Borrowed    Borrowed
	}
	cases := map[string]struct {
		dMap, dRed   int
		pecM, pecR   float64
		weight       float64
		want         want
		wantCaseWord string
	}{
		// Case 1: loads 4/10 and 5/6, both <= 1: nothing moves whatever the
		// limits.
		"case 1, Pec_M=1 Pec_R=1":   {4, 5, 1, 1, 1, want{10, 6, Borrowed{}}, "case 1"},
		"case 1, Pec_M=0 Pec_R=0":   {4, 5, 0, 0, 1, want{10, 6, Borrowed{}}, "case 1"},
		"case 1, map exactly full":  {10, 3, 1, 1, 1, want{10, 6, Borrowed{}}, "case 1"},
		"case 1, nothing demanded":  {0, 0, 1, 1, 1, want{10, 6, Borrowed{}}, "case 1"},
		"case 2, Pec_M=1 Pec_R=1":   {12, 8, 1, 1, 1, want{10, 6, Borrowed{}}, "case 2"},
		"case 2, Pec_M=0.5 Pec_R=0": {12, 8, 0.5, 0, 1, want{10, 6, Borrowed{}}, "case 2"},
		// Map exactly full (load 1) and reduce over-loaded is case 2 (both
		// >= 1): map has no unused slot to lend.
		"case 2, map exactly full": {10, 9, 1, 1, 1, want{10, 6, Borrowed{}}, "case 2"},
		// Case 3: map 4/10 (unused 6), reduce 10/6 (excess 4).
		// Pec_M=1: min(floor(6), 4) = 4 -> map 6, reduce 10.
		"case 3, Pec_M=1 Pec_R=0": {4, 10, 1, 0, 1, want{6, 10, Borrowed{MapToReduce: 4}}, "case 3"},
		"case 3, Pec_M=1 Pec_R=1": {4, 10, 1, 1, 1, want{6, 10, Borrowed{MapToReduce: 4}}, "case 3"},
		// Pec_M=0.5: min(floor(3), 4) = 3 -> map 7, reduce 9.
		"case 3, Pec_M=0.5 Pec_R=1": {4, 10, 0.5, 1, 1, want{7, 9, Borrowed{MapToReduce: 3}}, "case 3"},
		"case 3, Pec_M=0.5 Pec_R=0": {4, 10, 0.5, 0, 1, want{7, 9, Borrowed{MapToReduce: 3}}, "case 3"},
		// Pec_M=0: borrowing disabled (Appendix B), Pec_R does not matter.
		"case 3, Pec_M=0 Pec_R=1": {4, 10, 0, 1, 1, want{10, 6, Borrowed{}}, "case 3"},
		// Weight 2: Pec_M=1 allows 6 map slots = floor(6/2) = 3 reduce slots
		// (< excess 4), costing 6 map slots -> map 4, reduce 9.
		"case 3, weight 2, Pec_M=1": {4, 10, 1, 1, 2, want{4, 9, Borrowed{MapToReduce: 6}}, "case 3"},
		// Weight 2, Pec_M=0.5: floor(3/2) = 1 reduce slot for 2 map slots.
		"case 3, weight 2, Pec_M=0.5": {4, 10, 0.5, 1, 2, want{8, 7, Borrowed{MapToReduce: 2}}, "case 3"},
		// Case 4: map 15/10 (excess 5), reduce 2/6 (unused 4).
		// Pec_R=1: min(floor(4), 5) = 4 -> map 14, reduce 2.
		"case 4, Pec_R=1 Pec_M=0": {15, 2, 0, 1, 1, want{14, 2, Borrowed{ReduceToMap: 4}}, "case 4"},
		"case 4, Pec_R=1 Pec_M=1": {15, 2, 1, 1, 1, want{14, 2, Borrowed{ReduceToMap: 4}}, "case 4"},
		// Pec_R=0.5: floor(2) = 2 -> map 12, reduce 4.
		"case 4, Pec_R=0.5 Pec_M=1": {15, 2, 1, 0.5, 1, want{12, 4, Borrowed{ReduceToMap: 2}}, "case 4"},
		"case 4, Pec_R=0 Pec_M=1":   {15, 2, 1, 0, 1, want{10, 6, Borrowed{}}, "case 4"},
		// Weight 2, Pec_R=1: 4 reduce slots buy 8 map slots, capped at the
		// excess 5, which costs ceil(5/2) = 3 reduce slots -> map 15,
		// reduce 3.
		"case 4, weight 2, Pec_R=1": {15, 2, 1, 1, 2, want{15, 3, Borrowed{ReduceToMap: 3}}, "case 4"},
		// Weight 2, Pec_R=0.5: 2 reduce slots buy 4 map slots -> 14, 4.
		"case 4, weight 2, Pec_R=0.5": {15, 2, 1, 0.5, 2, want{14, 4, Borrowed{ReduceToMap: 2}}, "case 4"},
		// Pec 0.29 of 100 unused must floor to 29 despite 0.29*100 =
		// 28.999... in floating point.
		"case 3, float noise": {0, 200, 0.29, 0, 1, want{71, 29, Borrowed{MapToReduce: 29}}, "case 3"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := Config{Mode: ModePIDHSA, BorrowMap: c.pecM, BorrowReduce: c.pecR, ReduceSlotWeight: c.weight}
			clu := cl
			if name == "case 3, float noise" {
				clu = Cluster{MapSlots: 100, ReduceSlots: 0}
			}
			res, _ := Budgets(cfg, Input{Cluster: clu, Jobs: one(c.dMap, c.dRed)}, State{})
			got := want{res.Map, res.Reduce, res.Borrowed}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("budgets (-want +got):\n%s\n%s", d, res)
			}
			if !containsWord(res.Why, c.wantCaseWord) {
				t.Errorf("explanation does not name %q:\n%s", c.wantCaseWord, res)
			}
		})
	}
}

func containsWord(lines []string, w string) bool {
	for _, l := range lines {
		for i := 0; i+len(w) <= len(l); i++ {
			if l[i:i+len(w)] == w {
				return true
			}
		}
	}
	return false
}

// TestPDDHSA checks PD-DHSA's intra-pool cases (a)-(d) and inter-pool
// lending on hand-worked examples.
func TestPDDHSA(t *testing.T) {
	job := func(id, pool string, dMap, dRed int) Job {
		return Job{ID: id, Pool: pool, Map: PhaseDemand{Pending: dMap}, Reduce: PhaseDemand{Pending: dRed}}
	}
	type want struct {
		Map, Reduce int
		Borrowed    Borrowed
		Pools       []PoolBudget
	}
	cases := map[string]struct {
		cfg  Config
		cl   Cluster
		jobs []Job
		want want
	}{
		// 10 map + 10 reduce slots, pools A and B share each phase 5/5.
		// A (map 2, reduce 20) is case (a): 3 unused map slots go to its
		// own reduce tasks -> A map 2, reduce 8. B (map 20, reduce 0) is
		// case (b): its 5 reduce slots go to its own map tasks -> B map 10.
		// Nothing is left for inter-pool lending. Totals: map 10-3+5 = 12,
		// reduce 10-5+3 = 8; each pool holds 10 slots (pool fairness).
		"cases a and b, full borrowing": {
			cfg:  Config{Mode: ModePDDHSA, BorrowMap: 1, BorrowReduce: 1},
			cl:   Cluster{MapSlots: 10, ReduceSlots: 10},
			jobs: []Job{job("a1", "A", 2, 20), job("b1", "B", 20, 0)},
			want: want{12, 8, Borrowed{MapToReduce: 3, ReduceToMap: 5}, []PoolBudget{
				{Pool: "A", Map: 2, Reduce: 8, MapShare: 5, ReduceShare: 5},
				{Pool: "B", Map: 10, Reduce: 0, MapShare: 5, ReduceShare: 5},
			}},
		},
		// Same with Pec_M = 0.5: A lends floor(0.5*3) = 1 map slot to its
		// reduce (reduce 6); its other 2 unused map slots go to B's map
		// tasks in the same phase (B map 5+5+2 = 12). Totals: map 10-1+5 =
		// 14, reduce 10-5+1 = 6.
		"case a limited by Pec_M, rest to other pool": {
			cfg:  Config{Mode: ModePDDHSA, BorrowMap: 0.5, BorrowReduce: 1},
			cl:   Cluster{MapSlots: 10, ReduceSlots: 10},
			jobs: []Job{job("a1", "A", 2, 20), job("b1", "B", 20, 0)},
			want: want{14, 6, Borrowed{MapToReduce: 1, ReduceToMap: 5}, []PoolBudget{
				{Pool: "A", Map: 2, Reduce: 6, MapShare: 5, ReduceShare: 5},
				{Pool: "B", Map: 12, Reduce: 0, MapShare: 5, ReduceShare: 5},
			}},
		},
		// 6+6 slots, three pools, shares 2/2 each. A (1,1) case (c): lends
		// 1 map and 1 reduce slot to others. B (4,4) case (d). C (0,5) case
		// (a): lends its 2 map slots to its own reduce (reduce 4, still
		// needs 1). Same phase: A's map slot -> B (map 3); A's reduce slot
		// water-filled between B (needs 2) and C (needs 1): level 0.5 each,
		// the tie goes to B by id (reduce 3). Totals: map 6-2 = 4, reduce
		// 6+2 = 8.
		"cases c and d with inter-pool lending": {
			cfg: Config{Mode: ModePDDHSA, BorrowMap: 1, BorrowReduce: 1},
			cl:  Cluster{MapSlots: 6, ReduceSlots: 6},
			jobs: []Job{
				job("c1", "C", 0, 5), job("a1", "A", 1, 1), job("b1", "B", 4, 4),
			},
			want: want{4, 8, Borrowed{MapToReduce: 2}, []PoolBudget{
				{Pool: "A", Map: 1, Reduce: 1, MapShare: 2, ReduceShare: 2},
				{Pool: "B", Map: 3, Reduce: 3, MapShare: 2, ReduceShare: 2},
				{Pool: "C", Map: 0, Reduce: 4, MapShare: 2, ReduceShare: 2},
			}},
		},
		// One phase only: max-min fairness by demand. 10 map slots among A
		// (2), B (20), C (20): shares 4,3,3 (10/3 each, the extra slot to A
		// by id); A's 2 unused go one each to B and C -> 2, 4, 4.
		"max-min within a phase": {
			cfg: Config{Mode: ModePDDHSA, BorrowMap: 1, BorrowReduce: 1},
			cl:  Cluster{MapSlots: 10, ReduceSlots: 0},
			jobs: []Job{
				job("a1", "A", 2, 0), job("b1", "B", 20, 0), job("c1", "C", 20, 0),
			},
			want: want{10, 0, Borrowed{}, []PoolBudget{
				{Pool: "A", Map: 2, MapShare: 4},
				{Pool: "B", Map: 4, MapShare: 3},
				{Pool: "C", Map: 4, MapShare: 3},
			}},
		},
		// Weighted pools: A weight 2, B weight 1 share 9 map slots 6/3.
		"weighted pools": {
			cfg:  Config{Mode: ModePDDHSA, BorrowMap: 1, BorrowReduce: 1, Pools: []Pool{{Name: "A", Weight: 2}, {Name: "B", Weight: 1}}},
			cl:   Cluster{MapSlots: 9, ReduceSlots: 0},
			jobs: []Job{job("a1", "A", 10, 0), job("b1", "B", 10, 0)},
			want: want{9, 0, Borrowed{}, []PoolBudget{
				{Pool: "A", Map: 6, MapShare: 6},
				{Pool: "B", Map: 3, MapShare: 3},
			}},
		},
		// Inter-pool across phases: A (map 0, reduce 10) and B (map 1,
		// reduce 0) on 4 map + 2 reduce slots. Shares map 2/2, reduce 1/1.
		// A case (a): lends its 2 map slots to its reduce (reduce 3). B is
		// case (c): map 1 of 2 (spare 1) and reduce 0 of 1 (spare 1).
		// Same phase: B's spare reduce slot -> A's reduce (4); B's spare
		// map slot has no map taker. Across phases: it may go to A's reduce
		// (needs 6 more) -> A reduce 5. Totals: map 4-3 = 1, reduce 2+3 = 5.
		"inter-pool across phases": {
			cfg:  Config{Mode: ModePDDHSA, BorrowMap: 1, BorrowReduce: 1},
			cl:   Cluster{MapSlots: 4, ReduceSlots: 2},
			jobs: []Job{job("a1", "A", 0, 10), job("b1", "B", 1, 0)},
			want: want{1, 5, Borrowed{MapToReduce: 3}, []PoolBudget{
				{Pool: "A", Map: 0, Reduce: 5, MapShare: 2, ReduceShare: 1},
				{Pool: "B", Map: 1, Reduce: 0, MapShare: 2, ReduceShare: 1},
			}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			res, _ := Budgets(c.cfg, Input{Cluster: c.cl, Jobs: c.jobs}, State{})
			got := want{res.Map, res.Reduce, res.Borrowed, res.Pools}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("budgets (-want +got):\n%s\n%s", d, res)
			}
		})
	}
}

// TestWaterfill checks the max-min share against hand results and its
// invariants: sum = min(total, sum caps), caps respected.
func TestWaterfill(t *testing.T) {
	cases := map[string]struct {
		total   int
		caps    []int
		weights []float64
		want    []int
	}{
		// Level 10/3: nobody capped, 3 each, extra slot to "a" by id.
		"even split, remainder by id": {10, []int{10, 10, 10}, []float64{1, 1, 1}, []int{4, 3, 3}},
		// a capped at 2, the other 8 split 4/4.
		"one capped":         {10, []int{2, 20, 20}, []float64{1, 1, 1}, []int{2, 4, 4}},
		"more than all caps": {50, []int{2, 3, 4}, []float64{1, 1, 1}, []int{2, 3, 4}},
		"nothing to share":   {0, []int{2, 3, 4}, []float64{1, 1, 1}, []int{0, 0, 0}},
		"weights 2:1 of 9":   {9, []int{9, 9}, []float64{2, 1}, []int{6, 3}},
		// Weights 1:1:2 of 5: levels 1.25, 1.25, 2.5 -> floors 1,1,2; the
		// last slot goes to the largest remainder, c (0.5).
		"weighted remainder": {5, []int{5, 5, 5}, []float64{1, 1, 2}, []int{1, 1, 3}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := waterfill(c.total, c.caps, c.weights, []string{"a", "b", "c"}[:len(c.caps)])
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
