package estimate_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flexd/flexd/estimate"
)

// TestYARNDefaultS1 is case S1 (Eq. 5.1-5.2): started at 1000, at 1100
// with progress 0.4 the task ends at 1250; a new attempt, with the type's
// mean of 80 s, at 1180: a benefit of 70 s. Per (job, phase) one
// candidate per scan, the others deferred; none before max(1, 5%) of the
// type has finished.
func TestYARNDefaultS1(t *testing.T) {
	cfg := estimate.DefaultSpeculationConfig()
	cfg.Detector = estimate.YARNDefault
	task := func(id string, pg float64) estimate.Attempt {
		return estimate.Attempt{Attempt: id, Task: "t" + id, Job: "j", Phase: estimate.MapPhase, Node: "n1", Start: 1000, Progress: fp(pg)}
	}
	in := estimate.AdviceInput{
		Now:   1100,
		Jobs:  []estimate.JobStatus{{ID: "j", Map: &estimate.PhaseCounts{Tasks: 20, Pending: 5, Running: 3, AvgTaskTime: 80}}},
		Tasks: []estimate.Attempt{task("a", 0.4), task("b", 0.3), task("c", 0.9)},
	}
	adv, _ := estimate.Advise(in, cfg, estimate.State{})
	if len(adv.Speculate) != 1 || adv.Speculate[0].Attempt != "b" {
		t.Fatalf("speculate %+v, want b (the largest benefit)", adv.Speculate)
	}
	if len(adv.Deferred) != 1 || adv.Deferred[0].Attempt != "a" || adv.Deferred[0].Reason != estimate.ReasonOnePerScan {
		t.Errorf("deferred %+v, want a (one_per_scan)", adv.Deferred)
	}
	in.Tasks = in.Tasks[:1]
	adv, _ = estimate.Advise(in, cfg, estimate.State{})
	if len(adv.Speculate) != 1 {
		t.Fatalf("speculate %+v, want a", adv.Speculate)
	}
	near(t, "a's time to end (EstEnd - now)", *adv.Speculate[0].TimeToEnd, 150, 1e-9)
	in.Jobs[0].Map.Pending, in.Jobs[0].Map.Running = 19, 1 // nothing finished yet
	adv, _ = estimate.Advise(in, cfg, estimate.State{})
	if len(adv.Speculate) != 0 {
		t.Errorf("speculated %+v before any task of the type finished", adv.Speculate)
	}
}

// TestGroupingS2 is case S2: the ordered chain {n5}, {n6}, {n3, n4}, {n1,
// n2}; group-based k-means with k = 3 ends with {n1, n2}, {n3, n4} and
// {n5, n6}; levels 1, 2 and 3.
func TestGroupingS2(t *testing.T) {
	pvs := [][]float64{{100, 200}, {105, 190}, {60, 110}, {58, 120}, {30, 50}, {31, 52}}
	groups := estimate.Group(pvs)
	want := [][]int{{4}, {5}, {3, 2}, {0, 1}}
	if len(groups) != len(want) {
		t.Fatalf("groups %v, want %v", groups, want)
	}
	for i := range want {
		g := slices.Clone(groups[i])
		w := slices.Clone(want[i])
		slices.Sort(g)
		slices.Sort(w)
		if !slices.Equal(g, w) {
			t.Errorf("group %d is %v, want %v", i, groups[i], want[i])
		}
	}
	labels := estimate.GroupKMeans(pvs, groups, 3)
	levels := estimate.LevelNumbers(pvs, labels)
	if got := []int{1, 1, 2, 2, 3, 3}; !slices.Equal(levels, got) {
		t.Errorf("levels %v, want %v", levels, got)
	}
}

// s3Input is case S3's epoch: nodes n3 and n4 at level 2 (configured),
// n4's completed maps of job_1 giving mu 100 and sigma 10, n4 running one
// at 0.01/s; n3 running a and b with the progress given.
func s3Input(pa, ra, pb, rb float64) estimate.AdviceInput {
	now := 1000.0
	return estimate.AdviceInput{
		Now:   now,
		Jobs:  []estimate.JobStatus{{ID: "job_1", Map: &estimate.PhaseCounts{Tasks: 20, Pending: 10, Running: 3, AvgTaskTime: 100}}},
		Nodes: []estimate.Node{{ID: "n3", MapSlots: 2, Level: 2}, {ID: "n4", MapSlots: 2, Level: 2}, {ID: "n9", MapSlots: 2, Level: 1}},
		Tasks: []estimate.Attempt{
			{Attempt: "a", Task: "ta", Job: "job_1", Phase: estimate.MapPhase, Node: "n3", Start: now - 60, Progress: fp(pa), ProgressRate: fp(ra)},
			{Attempt: "b", Task: "tb", Job: "job_1", Phase: estimate.MapPhase, Node: "n3", Start: now - 30, Progress: fp(pb), ProgressRate: fp(rb)},
			{Attempt: "o", Task: "to", Job: "job_1", Phase: estimate.MapPhase, Node: "n4", Start: now - 10, Progress: fp(0.1), ProgressRate: fp(0.01)},
		},
		Completed: []estimate.CompletedTask{
			{Attempt: "c1", Task: "tc1", Job: "job_1", Phase: estimate.MapPhase, Node: "n4", Start: 0, Finish: 100 - 10/math.Sqrt2},
			{Attempt: "c2", Task: "tc2", Job: "job_1", Phase: estimate.MapPhase, Node: "n4", Start: 0, Finish: 100 + 10/math.Sqrt2},
		},
	}
}

func esplashConfig() estimate.SpeculationConfig {
	cfg := estimate.DefaultSpeculationConfig()
	cfg.Detector = estimate.ESPLASH
	return cfg
}

// TestStragglerValueS3 is case S3: healthy, SV/N = 2.42 (no straggler);
// slowed, 21.2 (a straggler, excluded from hosting backups).
func TestStragglerValueS3(t *testing.T) {
	report := func(adv estimate.Advice) estimate.NodeReport {
		for _, n := range adv.Nodes {
			if n.Node == "n3" {
				return n
			}
		}
		t.Fatal("no report for n3")
		return estimate.NodeReport{}
	}
	adv, _ := estimate.Advise(s3Input(0.5, 0.005, 0.35, 0.012), esplashConfig(), estimate.State{})
	r := report(adv)
	near(t, "healthy SV/N", r.StragglerValue, 4.8333/2, 1e-3)
	if r.Straggler || len(adv.ExcludeNodes) != 0 || r.Level != 2 {
		t.Errorf("healthy n3: %+v, excluded %v", r, adv.ExcludeNodes)
	}
	adv, _ = estimate.Advise(s3Input(0.25, 0.002, 0.1, 0.003), esplashConfig(), estimate.State{})
	r = report(adv)
	near(t, "slowed SV/N", r.StragglerValue, 42.333/2, 1e-2)
	if !r.Straggler || !slices.Equal(adv.ExcludeNodes, []string{"n3"}) {
		t.Errorf("slowed n3: %+v, excluded %v", r, adv.ExcludeNodes)
	}
	// Its tasks are the candidates; level 2 is the highest, so minL = 2,
	// one per (job, phase) per epoch, the other deferred.
	if len(adv.Speculate) != 1 || adv.Speculate[0].Reason != estimate.ReasonStraggler || adv.Speculate[0].MinLevel != 2 {
		t.Errorf("speculate %+v", adv.Speculate)
	}
}

// TestMinLevelS4 is case S4: minL and the speculative value, with the
// straggler's containers excluded, and the non-monotone variant.
func TestMinLevelS4(t *testing.T) {
	c := []float64{0, 32, 32, 16, 8}
	estT := []float64{0, 120, 60, 35, 30}
	has := []bool{false, true, true, true, true}
	minL, exp := estimate.MinLevel(1, c, estT, has)
	if minL != 4 {
		t.Errorf("minL %d, want 4", minL)
	}
	for l, want := range map[int]float64{1: 74.545, 2: 48.571, 3: 33.333, 4: 30} {
		near(t, "ExpT", exp[l], want, 1e-3)
	}
	near(t, "value", estimate.SpeculativeValue(minL, c, estT, has, 150), 10.909, 1e-3)

	estT[3] = 28
	minL, exp = estimate.MinLevel(1, c, estT, has)
	if minL != 3 {
		t.Errorf("non-monotone minL %d, want 3", minL)
	}
	near(t, "ExpT_3", exp[3], 28.667, 1e-3)
	near(t, "non-monotone value", estimate.SpeculativeValue(minL, c, estT, has, 150), 33.09, 1e-2)
}

// TestMinLevelIsHighestWhenTimesFall: whenever the per-level times fall
// strictly with the level, minL is the highest level, whatever the
// containers (section 4.2's documented property).
func TestMinLevelIsHighestWhenTimesFall(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		hl := 1 + rng.IntN(6)
		c := make([]float64, hl+1)
		estT := make([]float64, hl+1)
		has := make([]bool, hl+1)
		x := 1000.0
		for m := 1; m <= hl; m++ {
			c[m] = float64(1 + rng.IntN(64))
			x -= 1 + rng.Float64()*100
			estT[m], has[m] = x, true
		}
		i := 1 + rng.IntN(hl)
		if minL, _ := estimate.MinLevel(i, c, estT, has); minL != hl {
			t.Fatalf("minL %d, want %d (C %v, EstT %v, from %d)", minL, hl, c, estT, i)
		}
	}
}

// closure is Algorithm 5.2.1 as pairwise merges to a fixpoint, the test
// oracle for Group: two groups merge when neither can come before the
// other (A before B: A's maxima at most B's minima in every dimension).
// This is what the paper's two merge rules aim at ("each is slower in some
// dimension", "overlapping"); taken literally, with strict comparisons,
// they leave ties unmerged that no order can hold: (29, 25) and (32, 18)
// merge, and (32, 8) then sits neither before nor after them.
func closure(pvs [][]float64) [][]int {
	groups := make([][]int, len(pvs))
	for i := range pvs {
		groups[i] = []int{i}
	}
	before := func(a, b []int) bool {
		for d := range pvs[a[0]] {
			for _, i := range a {
				for _, j := range b {
					if pvs[i][d] > pvs[j][d] {
						return false
					}
				}
			}
		}
		return true
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(groups) && !changed; i++ {
			for j := i + 1; j < len(groups) && !changed; j++ {
				if !before(groups[i], groups[j]) && !before(groups[j], groups[i]) {
					groups[i] = append(groups[i], groups[j]...)
					groups = slices.Delete(groups, j, j+1)
					changed = true
				}
			}
		}
	}
	return groups
}

// TestGroupIsTheClosure: on random performance vectors, Group's chain is
// the pairwise closure's partition, and ordered: every earlier group is at
// most every later one in every dimension.
func TestGroupIsTheClosure(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	canon := func(gs [][]int) []string {
		var out []string
		for _, g := range gs {
			g = slices.Clone(g)
			slices.Sort(g)
			b, _ := json.Marshal(g)
			out = append(out, string(b))
		}
		slices.Sort(out)
		return out
	}
	for range 500 {
		n, dims := 1+rng.IntN(9), 1+rng.IntN(3)
		pvs := make([][]float64, n)
		for i := range pvs {
			pvs[i] = make([]float64, dims)
			for d := range pvs[i] {
				pvs[i][d] = float64(rng.IntN(40)) // ties happen
			}
		}
		got := estimate.Group(pvs)
		if !slices.Equal(canon(got), canon(closure(pvs))) {
			t.Fatalf("Group %v, closure %v on %v", got, closure(pvs), pvs)
		}
		for a := range got {
			for b := a + 1; b < len(got); b++ {
				for _, i := range got[a] {
					for _, j := range got[b] {
						for d := range dims {
							if pvs[i][d] > pvs[j][d] {
								t.Fatalf("group %d (%v) above later group %d (%v) in dimension %d", a, pvs[i], b, pvs[j], d)
							}
						}
					}
				}
			}
		}
	}
}

// TestAdviceDeterministic: the advice does not depend on the order the
// shim lists tasks, completed tasks and nodes in.
func TestAdviceDeterministic(t *testing.T) {
	for _, det := range []estimate.Detector{estimate.ESAMR, estimate.ESPLASH, estimate.YARNDefault, estimate.Late} {
		cfg := estimate.DefaultSpeculationConfig()
		cfg.Detector, cfg.Explain = det, true
		in := s3Input(0.25, 0.002, 0.1, 0.003)
		for i := range in.Tasks {
			in.Tasks[i].Stage, in.Tasks[i].StageProgress = estimate.StageMap, fp(0.5)
		}
		want, _ := estimate.Advise(in, cfg, esamrPrev())
		wb, _ := json.Marshal(want)
		rng := rand.New(rand.NewPCG(5, 6))
		for range 20 {
			p := in
			p.Tasks, p.Completed, p.Nodes = slices.Clone(in.Tasks), slices.Clone(in.Completed), slices.Clone(in.Nodes)
			rng.Shuffle(len(p.Tasks), func(i, j int) { p.Tasks[i], p.Tasks[j] = p.Tasks[j], p.Tasks[i] })
			rng.Shuffle(len(p.Completed), func(i, j int) { p.Completed[i], p.Completed[j] = p.Completed[j], p.Completed[i] })
			rng.Shuffle(len(p.Nodes), func(i, j int) { p.Nodes[i], p.Nodes[j] = p.Nodes[j], p.Nodes[i] })
			got, _ := estimate.Advise(p, cfg, esamrPrev())
			if gb, _ := json.Marshal(got); string(gb) != string(wb) {
				t.Fatalf("%s: a permutation changed the advice:\n%s\n%s", det, gb, wb)
			}
		}
	}
}

// FuzzAdvise: whatever the numbers, Advise does not panic and its advice
// encodes as JSON (no NaN or infinity, D-G4).
func FuzzAdvise(f *testing.F) {
	f.Add(0.25, 0.002, 0.1, 0.003, 60.0, uint8(0))
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, uint8(1))
	f.Add(1.0, 1e-300, 1e-300, 1e300, 1e-9, uint8(2))
	f.Add(0.5, 0.0, 1.0, 0.0, 1e9, uint8(3))
	f.Add(0.2, 0.01, 0.3, 0.01, 1e308, uint8(3))   // an elapsed time so long that EstT overflows
	f.Add(0.25, 0.002, 0.1, 0.003, 60.0, uint8(7)) // ESPLASH on ESAMR's progress score
	f.Fuzz(func(t *testing.T, pa, ra, pb, rb, elapsed float64, det uint8) {
		for _, x := range []float64{pa, ra, pb, rb, elapsed} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return
			}
		}
		clamp := func(x float64) float64 { return math.Min(1, math.Abs(x)) }
		in := s3Input(clamp(pa), math.Abs(ra), clamp(pb), math.Abs(rb))
		for i := range in.Tasks {
			in.Tasks[i].Start = in.Now - math.Abs(elapsed)
			in.Tasks[i].Stage, in.Tasks[i].StageProgress = estimate.StageSort, fp(clamp(pb))
		}
		cfg := estimate.DefaultSpeculationConfig()
		cfg.Explain = true
		cfg.Detector = []estimate.Detector{estimate.ESAMR, estimate.Late, estimate.YARNDefault, estimate.ESPLASH}[det%4]
		if det&4 != 0 {
			cfg.ESPLASH.Progress = estimate.ProgressESAMR // D-S11
		}
		adv, st := estimate.Advise(in, cfg, esamrPrev())
		if _, err := json.Marshal(adv); err != nil {
			t.Fatalf("advice does not encode: %v", err)
		}
		if _, err := json.Marshal(st); err != nil {
			t.Fatalf("state does not encode: %v", err)
		}
	})
}

// TestImputedCellS5 is D-S20: a fast node's reduce of a type no node of its
// level has finished (the type's reduces finished on the slow level only)
// is measured against the imputed cell. Level 2 runs job_a's maps in 0.4
// of their mean over both levels (10 s against 25), so ST(2, job_b/reduce)
// is 0.4 x 80 = 32 s, with the type's coefficient of variation (0.1, the
// floor, on level 1): sd 3.2. The reduce, half done in 100 s, takes 200:
// z = (200 - 32) / 3.2 = 52.5, and no other level-2 reduce of the type
// gives a progress-rate term. So f1 is a straggler, its reduce the
// candidate, minL 2 and value 1 x (100 - 32) / 4 = 17 (f1's reduce slot
// excluded). Without the imputation the reduce adds nothing and f1 is not
// a straggler, however slow.
func TestImputedCellS5(t *testing.T) {
	now := 1000.0
	done := func(id, job, phase, node string, d float64) estimate.CompletedTask {
		return estimate.CompletedTask{Attempt: id, Task: "t" + id, Job: job, Phase: phase, Node: node, Start: 0, Finish: d}
	}
	in := estimate.AdviceInput{
		Now: now,
		Jobs: []estimate.JobStatus{
			{ID: "job_a", Map: &estimate.PhaseCounts{Tasks: 20, Pending: 16}},
			{ID: "job_b", Map: &estimate.PhaseCounts{Tasks: 10}, Reduce: &estimate.PhaseCounts{Tasks: 4, Pending: 1, Running: 1, AvgTaskTime: 80}},
		},
		Nodes: []estimate.Node{
			{ID: "f1", MapSlots: 2, ReduceSlots: 1, Level: 2},
			{ID: "f2", MapSlots: 2, ReduceSlots: 1, Level: 2},
			{ID: "s1", MapSlots: 6, ReduceSlots: 3, Level: 1},
		},
		Tasks: []estimate.Attempt{
			{Attempt: "r", Task: "tr", Job: "job_b", Phase: estimate.ReducePhase, Node: "f1", Start: now - 100, Progress: fp(0.5)},
		},
		Completed: []estimate.CompletedTask{
			done("a1", "job_a", estimate.MapPhase, "f2", 9), done("a2", "job_a", estimate.MapPhase, "f2", 11),
			done("a3", "job_a", estimate.MapPhase, "s1", 38), done("a4", "job_a", estimate.MapPhase, "s1", 42),
			done("b1", "job_b", estimate.ReducePhase, "s1", 76), done("b2", "job_b", estimate.ReducePhase, "s1", 84),
		},
	}
	adv, _ := estimate.Advise(in, esplashConfig(), estimate.State{})
	var f1 estimate.NodeReport
	for _, n := range adv.Nodes {
		if n.Node == "f1" {
			f1 = n
		}
	}
	near(t, "f1's SV/N", f1.StragglerValue, 52.5, 1e-9)
	if !f1.Straggler || !slices.Equal(adv.ExcludeNodes, []string{"f1"}) {
		t.Errorf("f1 %+v, excluded %v: want a straggler", f1, adv.ExcludeNodes)
	}
	if len(adv.Speculate) != 1 || adv.Speculate[0].Attempt != "r" || adv.Speculate[0].MinLevel != 2 || adv.Speculate[0].Value == nil {
		t.Fatalf("speculate %+v, want r at min level 2", adv.Speculate)
	}
	near(t, "r's value", *adv.Speculate[0].Value, 17, 1e-9)
}

// TestESPLASHProgressESAMR is D-S11: with progress esamr, ESAMR's progress
// score feeds EstT and EstEnd. n3 (level 2) has learnt that a map spends
// 20% of its time in the map stage; its attempt a is halfway through that
// stage after 40 s. Hadoop's weights (0.667 for the map stage) say
// progress 1/3: EstT 120 s against the level's 100 +- 10, z = 2, not a
// straggler. ESAMR's say 0.1: EstT 400 s, z = 30, a straggler, and a's
// backup is worth 2 x (360 - 100) / 4 = 130 (n4's 2 map slots of the 4
// that may host one).
func TestESPLASHProgressESAMR(t *testing.T) {
	now := 1000.0
	in := estimate.AdviceInput{
		Now:   now,
		Jobs:  []estimate.JobStatus{{ID: "job_1", Map: &estimate.PhaseCounts{Tasks: 20, Pending: 10, Running: 1, AvgTaskTime: 100}}},
		Nodes: []estimate.Node{{ID: "n3", MapSlots: 2, Level: 2}, {ID: "n4", MapSlots: 2, Level: 2}, {ID: "n9", MapSlots: 2, Level: 1}},
		Tasks: []estimate.Attempt{{Attempt: "a", Task: "ta", Job: "job_1", Phase: estimate.MapPhase, Node: "n3", Start: now - 40,
			Progress: fp(0.667 * 0.5), Stage: estimate.StageMap, StageProgress: fp(0.5)}},
		Completed: []estimate.CompletedTask{
			{Attempt: "c1", Task: "tc1", Job: "job_1", Phase: estimate.MapPhase, Node: "n4", Start: 0, Finish: 100 - 10/math.Sqrt2},
			{Attempt: "c2", Task: "tc2", Job: "job_1", Phase: estimate.MapPhase, Node: "n4", Start: 0, Finish: 100 + 10/math.Sqrt2},
		},
	}
	learnt := estimate.State{ESAMR: &estimate.ESAMRState{Nodes: map[string]*estimate.ESAMRNode{
		"n3": {Map: &estimate.ESAMRHistory{Records: [][]float64{{0.2, 0.8}}, Centroids: [][]float64{{0.2, 0.8}}}}}}}
	cfg := esplashConfig()
	adv, _ := estimate.Advise(in, cfg, learnt)
	if len(adv.ExcludeNodes) != 0 || len(adv.Speculate) != 0 {
		t.Errorf("hadoop progress: excluded %v, speculate %+v; want neither", adv.ExcludeNodes, adv.Speculate)
	}
	cfg.ESPLASH.Progress = estimate.ProgressESAMR
	adv, next := estimate.Advise(in, cfg, learnt)
	if !slices.Equal(adv.ExcludeNodes, []string{"n3"}) {
		t.Errorf("esamr progress: excluded %v, want n3", adv.ExcludeNodes)
	}
	if len(adv.Speculate) != 1 || adv.Speculate[0].Value == nil {
		t.Fatalf("esamr progress: speculate %+v, want a", adv.Speculate)
	}
	near(t, "a's value", *adv.Speculate[0].Value, 130, 1e-6)
	near(t, "a's time to end", *adv.Speculate[0].TimeToEnd, 360, 1e-6)
	if next.ESAMR == nil || next.ESPLASH == nil {
		t.Errorf("next state %+v: want both ESAMR's weights and ESPLASH's statistics", next)
	}
}
