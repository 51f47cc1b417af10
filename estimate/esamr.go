package estimate

import (
	"maps"
	"math"
	"slices"
)

// ESAMR (Sun et al., seed 002; estimate-and-advice.md section 3): each
// node keeps a history of per-job stage weights (the share of a task's
// time in each stage), clustered with k-means; a running job's tasks on a
// node use the cluster nearest to what the job's completed tasks there
// showed, which gives a progress score (Algorithm 5), a TimeToEnd (Eq.
// 4-5) and the slow tasks (Algorithm 4). LATE is the same search with
// Hadoop's fixed weights.

// HadoopMap and HadoopReduce are Hadoop's fixed stage weights (ESAMR Eq.
// 1): a map task's map stage is all of it, a reduce task's three stages a
// third each. They are also ESAMR's weights on a node without history
// (D-E3) and LATE's always.
var (
	HadoopMap    = []float64{1, 0}
	HadoopReduce = []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
)

// ProgressScore is ESAMR Algorithm 5: the weights of the finished stages
// plus the current stage's weight times its progress sub (SubPS, in
// [0, 1]). stage is 0-based; w are the phase's stage weights.
func ProgressScore(stage int, sub float64, w []float64) float64 {
	if stage < 0 || stage >= len(w) {
		return 0
	}
	ps := 0.0
	for _, x := range w[:stage] {
		ps += x
	}
	return ps + w[stage]*sub
}

// TimeToEnd is ESAMR Eq. 4-5 (LATE's): progress rate PR = ps / elapsed,
// TimeToEnd = (1 - ps) / PR. ok is false when ps <= 0 or elapsed <= 0:
// no finite estimate (D-E9).
func TimeToEnd(ps, elapsed float64) (float64, bool) {
	if !(ps > 0) || !(elapsed > 0) {
		return 0, false
	}
	return elapsed * (1 - ps) / ps, true
}

// stageIndex is the 0-based index of a stage in its phase (-1: unknown).
func stageIndex(phase, stage string) int {
	st := []string{StageMap, StageSort}
	if phase == ReducePhase {
		st = []string{StageShuffle, StageSort, StageReduce}
	}
	return slices.Index(st, stage)
}

// progressScore is a's progress by the stage weights learnt for its job
// on its node (Step D) when it reports its stage, else Hadoop's progress
// (ESPLASH's progress: esamr, D-S11). a.Progress must be set.
func (s *ESAMRState) progressScore(a Attempt) float64 {
	if i := stageIndex(a.Phase, a.Stage); i >= 0 && a.StageProgress != nil {
		w, _ := s.weights(a.Job, a.Node, a.Phase)
		return ProgressScore(i, *a.StageProgress, w)
	}
	return *a.Progress
}

// ESAMRState is ESAMR's learned state (section 2.5).
type ESAMRState struct {
	// Nodes holds, per node and phase, the last History weight records
	// (each a vector over the phase's stages: map (M1, M2), reduce (R1,
	// R2, R3)) and their k-means centroids.
	Nodes map[string]*ESAMRNode `json:"nodes,omitempty"`
	// Jobs holds, per live job and node, the sums of the completed tasks'
	// ratios: map [n, sum M1], reduce [n, sum R1, sum R2].
	Jobs map[string]map[string]*ESAMRAcc `json:"jobs,omitempty"`
}

// ESAMRNode is one node's history.
type ESAMRNode struct {
	Map    *ESAMRHistory `json:"map,omitempty"`
	Reduce *ESAMRHistory `json:"reduce,omitempty"`
}

// ESAMRHistory is one node's weight records of one phase and their
// centroids, in cluster-index order.
type ESAMRHistory struct {
	Records   [][]float64 `json:"records"`
	Centroids [][]float64 `json:"centroids"`
}

// ESAMRAcc accumulates a job's completed tasks on one node.
type ESAMRAcc struct {
	Map    []float64 `json:"map,omitempty"`
	Reduce []float64 `json:"reduce,omitempty"`
}

// clone copies the state deeply enough that folding into it leaves the
// previous epoch's untouched (the epoch is a function of its inputs).
func (s *ESAMRState) clone() *ESAMRState {
	out := &ESAMRState{Nodes: map[string]*ESAMRNode{}, Jobs: map[string]map[string]*ESAMRAcc{}}
	if s == nil {
		return out
	}
	for id, n := range s.Nodes {
		c := &ESAMRNode{}
		if n.Map != nil {
			c.Map = &ESAMRHistory{Records: slices.Clone(n.Map.Records), Centroids: slices.Clone(n.Map.Centroids)}
		}
		if n.Reduce != nil {
			c.Reduce = &ESAMRHistory{Records: slices.Clone(n.Reduce.Records), Centroids: slices.Clone(n.Reduce.Centroids)}
		}
		out.Nodes[id] = c
	}
	for job, per := range s.Jobs {
		m := make(map[string]*ESAMRAcc, len(per))
		for node, a := range per {
			m[node] = &ESAMRAcc{Map: slices.Clone(a.Map), Reduce: slices.Clone(a.Reduce)}
		}
		out.Jobs[job] = m
	}
	return out
}

// fold is Steps A and F of section 3.2: the epoch's completed tasks into
// their job's accumulators (each task once, D-E7; per-task ratios, D-E2),
// then each finished job's temporary weights into its nodes' histories
// (FIFO, History records, D-E6) with k-means run again; a job no longer
// live is dropped (D-G5).
func (s *ESAMRState) fold(in AdviceInput, cfg ESAMRConfig) {
	seen := map[string]bool{}
	for _, c := range in.Completed {
		if seen[c.Task] {
			continue
		}
		seen[c.Task] = true
		total := 0.0
		for _, t := range c.StageTimes {
			total += t
		}
		if !(total > 0) || len(c.StageTimes) != len(phaseStages(c.Phase)) {
			continue
		}
		per := s.Jobs[c.Job]
		if per == nil {
			per = map[string]*ESAMRAcc{}
			s.Jobs[c.Job] = per
		}
		acc := per[c.Node]
		if acc == nil {
			acc = &ESAMRAcc{}
			per[c.Node] = acc
		}
		if c.Phase == MapPhase {
			if acc.Map == nil {
				acc.Map = []float64{0, 0}
			}
			acc.Map[0]++
			acc.Map[1] += c.StageTimes[0] / total
		} else {
			if acc.Reduce == nil {
				acc.Reduce = []float64{0, 0, 0}
			}
			acc.Reduce[0]++
			acc.Reduce[1] += c.StageTimes[0] / total
			acc.Reduce[2] += c.StageTimes[1] / total
		}
	}
	for _, job := range in.Finished {
		per := s.Jobs[job]
		for _, node := range slices.Sorted(maps.Keys(per)) {
			acc := per[node]
			n := s.Nodes[node]
			if n == nil {
				n = &ESAMRNode{}
				s.Nodes[node] = n
			}
			if acc.Map != nil && acc.Map[0] >= 1 {
				m1 := acc.Map[1] / acc.Map[0]
				n.Map = n.Map.add([]float64{m1, 1 - m1}, cfg)
			}
			if acc.Reduce != nil && acc.Reduce[0] >= 1 {
				r1, r2 := acc.Reduce[1]/acc.Reduce[0], acc.Reduce[2]/acc.Reduce[0]
				n.Reduce = n.Reduce.add([]float64{r1, r2, 1 - r1 - r2}, cfg)
			}
		}
		delete(s.Jobs, job)
	}
	live := jobIndex(in)
	for job := range s.Jobs {
		if live[job] == nil {
			delete(s.Jobs, job)
		}
	}
}

// add appends a record, keeps the last History, and clusters them again.
func (h *ESAMRHistory) add(rec []float64, cfg ESAMRConfig) *ESAMRHistory {
	out := &ESAMRHistory{}
	if h != nil {
		out.Records = slices.Clone(h.Records)
	}
	out.Records = append(out.Records, rec)
	if over := len(out.Records) - max(cfg.History, 1); over > 0 {
		out.Records = out.Records[over:]
	}
	out.Centroids, _ = KMeans(out.Records, cfg.K, cfg.MaxIters)
	return out
}

func phaseStages(phase string) []string {
	if phase == ReducePhase {
		return []string{StageShuffle, StageSort, StageReduce}
	}
	return []string{StageMap, StageSort}
}

// weights is Step C (Algorithms 1-3): the stage weights of job's tasks on
// node, and where they came from.
func (s *ESAMRState) weights(job, node, phase string) ([]float64, string) {
	var h *ESAMRHistory
	if n := s.Nodes[node]; n != nil {
		h = n.Map
		if phase == ReducePhase {
			h = n.Reduce
		}
	}
	if h == nil || len(h.Centroids) == 0 {
		if phase == ReducePhase {
			return HadoopReduce, WeightsHadoop // D-E3
		}
		return HadoopMap, WeightsHadoop
	}
	var acc []float64
	if a := s.Jobs[job][node]; a != nil {
		acc = a.Map
		if phase == ReducePhase {
			acc = a.Reduce
		}
	}
	if acc == nil || acc[0] < 1 {
		// Algorithm 2/3's else-branch: the average of the node's centroids.
		avg := make([]float64, len(h.Centroids[0]))
		for _, c := range h.Centroids {
			for i, x := range c {
				avg[i] += x / float64(len(h.Centroids))
			}
		}
		return avg, WeightsNodeAverage
	}
	best, bestD := 0, math.Inf(1)
	for i, c := range h.Centroids {
		var d float64
		if phase == MapPhase {
			d = math.Abs(c[0] - acc[1]/acc[0])
		} else {
			d = math.Abs(c[0]-acc[1]/acc[0]) + math.Abs(c[1]-acc[2]/acc[0]) // L1 on (R1, R2)
		}
		if d < bestD { // ties to the lowest index (D-E1)
			best, bestD = i, d
		}
	}
	return slices.Clone(h.Centroids[best]), WeightsCluster
}

// pastShare reports whether a job has completed share of its tasks in the
// phase (PFM or PFR); a job whose tasks are unknown never has (D-E8).
func pastShare(pc *PhaseCounts, share float64) bool {
	if pc == nil || pc.Tasks <= 0 {
		return false
	}
	done := pc.Tasks - pc.Pending - pc.Running
	return float64(done) >= share*float64(pc.Tasks)
}

// findSlowTasks is Step E (Algorithm 4), for esamr (learned weights) and
// late (Hadoop's fixed weights): per (job, phase) past PFM or PFR, the
// running original attempts whose estimated execution time (or, with
// BasisTimeToEnd, TimeToEnd) exceeds (1 + STT) times the mean over the
// job's running attempts (D-E13); with explain, every examined attempt's
// detail.
func findSlowTasks(in AdviceInput, cfg SpeculationConfig, st *ESAMRState, adv *Advice) []candidate {
	jobs := jobIndex(in)
	skip := backedUp(in)
	type key struct{ job, phase string }
	type est struct {
		a        Attempt
		tte, cmp float64
	}
	groups := map[key][]est{}
	var keys []key
	for _, a := range in.Tasks {
		if a.Speculative || a.Waiting || a.StageProgress == nil {
			continue
		}
		share := cfg.ESAMR.PFM
		if a.Phase == ReducePhase {
			share = cfg.ESAMR.PFR
		}
		if !pastShare(counts(jobs, a.Job, a.Phase), share) {
			continue
		}
		var w []float64
		source := WeightsFixed
		if cfg.Detector == Late {
			w = HadoopMap
			if a.Phase == ReducePhase {
				w = HadoopReduce
			}
		} else {
			w, source = st.weights(a.Job, a.Node, a.Phase)
		}
		ps := ProgressScore(stageIndex(a.Phase, a.Stage), *a.StageProgress, w)
		tte, ok := TimeToEnd(ps, in.Now-a.Start)
		if cfg.Explain {
			e := Explained{Attempt: a.Attempt, ProgressScore: finitePtr(ps), WeightsSource: source, Weights: map[string]float64{}}
			names := []string{"m1", "m2"}
			if a.Phase == ReducePhase {
				names = []string{"r1", "r2", "r3"}
			}
			for i, n := range names {
				e.Weights[n] = w[i]
			}
			if ok {
				e.TimeToEnd = finitePtr(tte)
			}
			adv.Tasks = append(adv.Tasks, e)
		}
		if !ok {
			continue // D-E9: no TimeToEnd, left out of the mean and never flagged
		}
		k := key{a.Job, a.Phase}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		basis := tte
		if cfg.ESAMR.Basis != BasisTimeToEnd {
			basis = in.Now - a.Start + tte // D-E13
		}
		groups[k] = append(groups[k], est{a, tte, basis})
	}
	reason := ReasonESAMRSlow
	if cfg.Detector == Late {
		reason = ReasonLateSlow
	}
	var out []candidate
	for _, k := range keys {
		g := groups[k]
		mean := 0.0
		for _, e := range g {
			mean += e.cmp
		}
		mean /= float64(len(g))
		for _, e := range g {
			if e.cmp-mean > mean*cfg.ESAMR.STT && !skip[e.a.Task] {
				out = append(out, candidate{a: e.a, reason: reason, rank: e.tte, tte: finitePtr(e.tte)})
			}
		}
	}
	return out
}

// KMeans is ESAMR Algorithm 6 in the deterministic form of D-E4:
// k_eff = min(k, distinct points) centroids started at the quantiles
// floor((i + 0.5) d / k_eff) of the lexicographically sorted distinct
// points; points labelled with their nearest centroid (ties to the lowest
// index); centroids moved to their members' mean (an empty cluster keeps
// its centroid, D-E5); until no label changes or maxIters rounds. It
// returns the centroids in cluster-index order and the labels.
func KMeans(points [][]float64, k, maxIters int) ([][]float64, []int) {
	cs, labels, _ := kmeans(points, k, maxIters)
	return cs, labels
}

// kmeans is KMeans that also returns the within-cluster sum of squares
// after each round (for the property that it never rises).
func kmeans(points [][]float64, k, maxIters int) ([][]float64, []int, []float64) {
	if len(points) == 0 || k < 1 {
		return nil, nil, nil
	}
	distinct := slices.Clone(points)
	slices.SortFunc(distinct, func(a, b []float64) int { return slices.Compare(a, b) })
	distinct = slices.CompactFunc(distinct, func(a, b []float64) bool { return slices.Equal(a, b) })
	d := len(distinct)
	keff := min(k, d)
	cs := make([][]float64, keff)
	for i := range keff {
		cs[i] = slices.Clone(distinct[int(math.Floor((float64(i)+0.5)*float64(d)/float64(keff)))])
	}
	labels := make([]int, len(points))
	relabel := func() bool {
		changed := false
		for p, x := range points {
			best, bestD := 0, math.Inf(1)
			for i, c := range cs {
				if dd := sqDist(x, c); dd < bestD {
					best, bestD = i, dd
				}
			}
			if labels[p] != best {
				labels[p], changed = best, true
			}
		}
		return changed
	}
	relabel()
	wcss := []float64{wcssOf(points, cs, labels)}
	for iter := 0; iter < maxIters; iter++ {
		for i := range cs {
			n := 0
			sum := make([]float64, len(cs[i]))
			for p, l := range labels {
				if l == i {
					n++
					for j, x := range points[p] {
						sum[j] += x
					}
				}
			}
			if n > 0 {
				for j := range sum {
					sum[j] /= float64(n)
				}
				cs[i] = sum
			}
		}
		changed := relabel()
		wcss = append(wcss, wcssOf(points, cs, labels))
		if !changed {
			break
		}
	}
	return cs, labels, wcss
}

func sqDist(a, b []float64) float64 {
	s := 0.0
	for i := range min(len(a), len(b)) {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

func wcssOf(points, cs [][]float64, labels []int) float64 {
	s := 0.0
	for p, l := range labels {
		s += sqDist(points[p], cs[l])
	}
	return s
}
