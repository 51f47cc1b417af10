package estimate_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/flexd/flexd/estimate"
)

func fp(x float64) *float64 { return &x }

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f (±%g)", what, got, want, tol)
	}
}

// TestProgressAndTimeToEnd is case E1 (section 3.4): Algorithm 5 and Eq.
// 4-5 with Table II's weights, and what Hadoop's weights make of the same
// tasks.
func TestProgressAndTimeToEnd(t *testing.T) {
	// A map task on Node 4, in its sort stage at SubPS 0.5, 100 s in.
	ps := estimate.ProgressScore(1, 0.5, []float64{0.2142, 0.7858})
	near(t, "PS (node 4 map)", ps, 0.6071, 1e-4)
	tte, ok := estimate.TimeToEnd(ps, 100)
	near(t, "TTE (node 4 map)", tte, 64.72, 0.01)
	if !ok {
		t.Error("no TimeToEnd for a task with progress")
	}
	ps = estimate.ProgressScore(1, 0.5, estimate.HadoopMap)
	tte, _ = estimate.TimeToEnd(ps, 100)
	near(t, "TTE with Hadoop's weights", tte, 0, 1e-9)

	// A reduce task on Node 5, in its reduce stage at SubPS 0.25, 200 s in.
	ps = estimate.ProgressScore(2, 0.25, []float64{0.3954, 0.0018, 0.6028})
	near(t, "PS (node 5 reduce)", ps, 0.5479, 1e-4)
	tte, _ = estimate.TimeToEnd(ps, 200)
	near(t, "TTE (node 5 reduce)", tte, 165.03, 0.05)
	ps = estimate.ProgressScore(2, 0.25, estimate.HadoopReduce)
	tte, _ = estimate.TimeToEnd(ps, 200)
	near(t, "TTE with thirds", tte, 66.67, 0.01)

	if _, ok := estimate.TimeToEnd(0, 100); ok {
		t.Error("a TimeToEnd at progress 0 (D-E9)")
	}
}

// TestKMeans is case E5: the deterministic quantile start and the
// clusters of six map records; with more clusters than distinct records,
// each record is its own centroid.
func TestKMeans(t *testing.T) {
	var recs [][]float64
	for _, m1 := range []float64{0.20, 0.22, 0.21, 0.70, 0.74, 0.72} {
		recs = append(recs, []float64{m1, 1 - m1})
	}
	cs, labels := estimate.KMeans(recs, 2, 100)
	if len(cs) != 2 {
		t.Fatalf("%d centroids, want 2", len(cs))
	}
	near(t, "centroid 0 M1", cs[0][0], 0.21, 1e-9)
	near(t, "centroid 1 M1", cs[1][0], 0.72, 1e-9)
	near(t, "centroid 1 M2", cs[1][1], 0.28, 1e-9)
	for i, want := range []int{0, 0, 0, 1, 1, 1} {
		if labels[i] != want {
			t.Errorf("record %d in cluster %d, want %d", i, labels[i], want)
		}
	}
	cs, _ = estimate.KMeans(recs, 10, 100)
	if len(cs) != 6 {
		t.Errorf("k = 10 over 6 distinct records: %d centroids, want 6", len(cs))
	}
}

// esamrPrev is a state with node n1's map centroids [(0.21, 0.79), (0.72,
// 0.28)] and, for job_1, completed maps on n1 with mean M1 0.72 (E4).
func esamrPrev() estimate.State {
	return estimate.State{ESAMR: &estimate.ESAMRState{
		Nodes: map[string]*estimate.ESAMRNode{"n1": {Map: &estimate.ESAMRHistory{
			Records:   [][]float64{{0.21, 0.79}, {0.72, 0.28}},
			Centroids: [][]float64{{0.21, 0.79}, {0.72, 0.28}},
		}}},
	}}
}

// e4Input is case E4's epoch: job_1 with 10 maps (3 done), its 3
// completed maps on n1 giving M1 0.72, 0.70, 0.74 (tempM1 0.72), and
// three running maps.
func e4Input() estimate.AdviceInput {
	now := 1000.0
	run := func(id, stage string, sub, elapsed float64) estimate.Attempt {
		return estimate.Attempt{Attempt: id, Task: "t" + id, Job: "job_1", Phase: estimate.MapPhase, Node: "n1",
			Start: now - elapsed, Stage: stage, StageProgress: fp(sub)}
	}
	done := func(id string, m, s float64) estimate.CompletedTask {
		return estimate.CompletedTask{Attempt: id, Task: "t" + id, Job: "job_1", Phase: estimate.MapPhase, Node: "n1",
			Start: now - 100, Finish: now - 100 + m + s, StageTimes: []float64{m, s}}
	}
	return estimate.AdviceInput{
		Now:       now,
		Jobs:      []estimate.JobStatus{{ID: "job_1", Map: &estimate.PhaseCounts{Tasks: 10, Pending: 4, Running: 3, Allocated: 3}}},
		Nodes:     []estimate.Node{{ID: "n1", MapSlots: 3, ReduceSlots: 1}},
		Tasks:     []estimate.Attempt{run("a", "map", 0.5, 18), run("b", "sort", 0.5, 43), run("c", "map", 0.25, 45)},
		Completed: []estimate.CompletedTask{done("d1", 36, 14), done("d2", 35, 15), done("d3", 37, 13)},
		MapBudget: 3, ReduceBudget: 1,
	}
}

func esamrConfig() estimate.SpeculationConfig {
	cfg := estimate.DefaultSpeculationConfig()
	cfg.Detector = estimate.ESAMR
	cfg.Explain = true
	return cfg
}

// TestESAMRWeightsAndSlowTasks is case E4 (through Advise) with case E2's
// lookup in it: the nearest centroid to tempM1 0.72 is (0.72, 0.28); a
// (PS 0.36, TTE 32), b (0.86, 7) and c (0.18, 205); only c is slow. A job
// without completed maps on the node gets the centroids' average (E2's
// else-branch), and a node without history Hadoop's weights (D-E3).
func TestESAMRWeightsAndSlowTasks(t *testing.T) {
	adv, next := estimate.Advise(e4Input(), esamrConfig(), esamrPrev())
	if len(adv.Speculate) != 1 || adv.Speculate[0].Attempt != "c" || adv.Speculate[0].Reason != estimate.ReasonESAMRSlow {
		t.Fatalf("speculate %+v, want attempt c (esamr_slow)", adv.Speculate)
	}
	near(t, "c's time_to_end", *adv.Speculate[0].TimeToEnd, 205, 1e-6)
	want := map[string][2]float64{"a": {0.36, 32}, "b": {0.86, 7}, "c": {0.18, 205}}
	for _, e := range adv.Tasks {
		w := want[e.Attempt]
		near(t, e.Attempt+" PS", *e.ProgressScore, w[0], 1e-9)
		near(t, e.Attempt+" TTE", *e.TimeToEnd, w[1], 1e-6)
		near(t, e.Attempt+" M1", e.Weights["m1"], 0.72, 1e-9)
		if e.WeightsSource != estimate.WeightsCluster {
			t.Errorf("%s weights from %s, want cluster", e.Attempt, e.WeightsSource)
		}
	}
	if len(adv.Tasks) != 3 {
		t.Errorf("%d attempts explained, want 3", len(adv.Tasks))
	}
	if adv.IdleSlots != (estimate.IdleSlots{Map: 0, Reduce: 1}) {
		t.Errorf("idle slots %+v", adv.IdleSlots)
	}
	// The fold kept the job's sums for the next epoch.
	if acc := next.ESAMR.Jobs["job_1"]["n1"]; acc == nil || acc.Map[0] != 3 {
		t.Errorf("job_1's accumulator on n1: %+v", acc)
	}

	// No completed map of the job on the node: the centroids' average.
	in := e4Input()
	in.Completed = nil
	adv, _ = estimate.Advise(in, esamrConfig(), esamrPrev())
	for _, e := range adv.Tasks {
		near(t, "average M1", e.Weights["m1"], (0.21+0.72)/2, 1e-9)
		if e.WeightsSource != estimate.WeightsNodeAverage {
			t.Errorf("weights from %s, want node_average", e.WeightsSource)
		}
	}
	// No history on the node: Hadoop's weights.
	adv, _ = estimate.Advise(in, esamrConfig(), estimate.State{})
	for _, e := range adv.Tasks {
		if e.WeightsSource != estimate.WeightsHadoop || e.Weights["m1"] != 1 {
			t.Errorf("empty history: weights %v from %s, want Hadoop's", e.Weights, e.WeightsSource)
		}
	}
}

// TestESAMRLookupE2 is case E2 on four map centroids and on the reduce
// lookup's L1 distance over (R1, R2).
func TestESAMRLookupE2(t *testing.T) {
	prev := estimate.State{ESAMR: &estimate.ESAMRState{Nodes: map[string]*estimate.ESAMRNode{"n1": {
		Map:    &estimate.ESAMRHistory{Centroids: [][]float64{{0.21, 0.79}, {0.62, 0.38}, {0.73, 0.27}, {0.76, 0.24}}},
		Reduce: &estimate.ESAMRHistory{Centroids: [][]float64{{0.19, 0.00, 0.81}, {0.37, 0.01, 0.62}, {0.30, 0.10, 0.60}}},
	}}}}
	in := estimate.AdviceInput{
		Now: 100,
		Jobs: []estimate.JobStatus{{ID: "j", Map: &estimate.PhaseCounts{Tasks: 10, Pending: 5, Running: 1},
			Reduce: &estimate.PhaseCounts{Tasks: 10, Pending: 5, Running: 1}}},
		Tasks: []estimate.Attempt{
			{Attempt: "m", Task: "tm", Job: "j", Phase: estimate.MapPhase, Node: "n1", Start: 50, Stage: "map", StageProgress: fp(0.5)},
			{Attempt: "r", Task: "tr", Job: "j", Phase: estimate.ReducePhase, Node: "n1", Start: 50, Stage: "shuffle", StageProgress: fp(0.5)},
		},
		// tempM1 = 0.70; tempR1 = 0.35 and tempR2 = 0.02.
		Completed: []estimate.CompletedTask{
			{Attempt: "d", Task: "td", Job: "j", Phase: estimate.MapPhase, Node: "n1", Start: 0, Finish: 10, StageTimes: []float64{7, 3}},
			{Attempt: "e", Task: "te", Job: "j", Phase: estimate.ReducePhase, Node: "n1", Start: 0, Finish: 100, StageTimes: []float64{35, 2, 63}},
		},
	}
	adv, _ := estimate.Advise(in, esamrConfig(), prev)
	got := map[string]map[string]float64{}
	for _, e := range adv.Tasks {
		got[e.Attempt] = e.Weights
	}
	near(t, "map M1", got["m"]["m1"], 0.73, 1e-9)
	near(t, "map M2", got["m"]["m2"], 0.27, 1e-9)
	near(t, "reduce R1", got["r"]["r1"], 0.37, 1e-9)
	near(t, "reduce R3", got["r"]["r3"], 0.62, 1e-9)
}

// TestFindSlowTasksE3 is case E3: five maps with M1 0.8; mean TimeToEnd
// 64, so only t3 (150) is slow, on Algorithm 4's printed basis; and on the
// default basis (estimated execution time, D-E13) too.
func TestFindSlowTasksE3(t *testing.T) {
	prev := estimate.State{ESAMR: &estimate.ESAMRState{Nodes: map[string]*estimate.ESAMRNode{"n1": {
		Map: &estimate.ESAMRHistory{Centroids: [][]float64{{0.8, 0.2}}},
	}}}}
	now := 1000.0
	run := func(id, stage string, sub, elapsed float64) estimate.Attempt {
		return estimate.Attempt{Attempt: id, Task: "task-" + id, Job: "j", Phase: estimate.MapPhase, Node: "n1",
			Start: now - elapsed, Stage: stage, StageProgress: fp(sub)}
	}
	in := estimate.AdviceInput{
		Now:  now,
		Jobs: []estimate.JobStatus{{ID: "j", Map: &estimate.PhaseCounts{Tasks: 20, Pending: 5, Running: 5}}},
		Tasks: []estimate.Attempt{run("t1", "map", 0.625, 50), run("t2", "sort", 0, 80), run("t3", "map", 0.3125, 50),
			run("t4", "map", 0.75, 60), run("t5", "map", 0.5, 40)},
	}
	for _, basis := range []string{estimate.BasisTimeToEnd, estimate.BasisExecutionTime} {
		cfg := esamrConfig()
		cfg.ESAMR.Basis = basis
		adv, _ := estimate.Advise(in, cfg, prev)
		if len(adv.Speculate) != 1 || adv.Speculate[0].Attempt != "t3" {
			t.Errorf("basis %s: speculate %+v, want t3 only", basis, adv.Speculate)
			continue
		}
		near(t, "t3 TTE", *adv.Speculate[0].TimeToEnd, 150, 1e-6)
	}
	// LATE, with Hadoop's weights (1, 0), sees t2 (in sort) as done.
	cfg := esamrConfig()
	cfg.Detector = estimate.Late
	adv, _ := estimate.Advise(in, cfg, prev)
	for _, e := range adv.Tasks {
		if e.Attempt == "t2" && (e.TimeToEnd == nil || *e.TimeToEnd != 0) {
			t.Errorf("late: t2's TimeToEnd %v, want 0", e.TimeToEnd)
		}
		if e.WeightsSource != estimate.WeightsFixed {
			t.Errorf("late's weights from %s, want fixed", e.WeightsSource)
		}
	}
}

// TestESAMRFoldsFinishedJobs: a finished job's temporary weights join its
// nodes' history (Step F), the centroids are recomputed, and the job's
// accumulators go; the state survives a JSON round trip unchanged in
// meaning (the next epoch decides alike from the decoded state).
func TestESAMRFoldsFinishedJobs(t *testing.T) {
	in := e4Input()
	_, st := estimate.Advise(in, esamrConfig(), esamrPrev())
	fin := estimate.AdviceInput{Now: 1100, Finished: []string{"job_1"}}
	_, st = estimate.Advise(fin, esamrConfig(), st)
	h := st.ESAMR.Nodes["n1"].Map
	if len(h.Records) != 3 || math.Abs(h.Records[2][0]-0.72) > 1e-9 {
		t.Fatalf("n1's map records %v, want the third 0.72", h.Records)
	}
	if _, ok := st.ESAMR.Jobs["job_1"]; ok {
		t.Error("job_1's accumulators kept after it finished")
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back estimate.State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	a1, _ := estimate.Advise(e4Input(), esamrConfig(), st)
	a2, _ := estimate.Advise(e4Input(), esamrConfig(), back)
	j1, _ := json.Marshal(a1)
	j2, _ := json.Marshal(a2)
	if string(j1) != string(j2) {
		t.Errorf("advice from the decoded state differs:\n%s\n%s", j1, j2)
	}
}

// TestHistoryCapped: a node keeps the last History records (D-E6).
func TestHistoryCapped(t *testing.T) {
	cfg := esamrConfig()
	cfg.ESAMR.History = 2
	st := estimate.State{}
	for k := range 4 {
		job := string(rune('a' + k))
		in := estimate.AdviceInput{Now: float64(k), Finished: []string{job},
			Completed: []estimate.CompletedTask{{Attempt: job, Task: job, Job: job, Phase: estimate.MapPhase, Node: "n1",
				Start: 0, Finish: 1, StageTimes: []float64{float64(k + 1), 1}}}}
		_, st = estimate.Advise(in, cfg, st)
	}
	if got := len(st.ESAMR.Nodes["n1"].Map.Records); got != 2 {
		t.Errorf("%d records kept, want 2", got)
	}
}
