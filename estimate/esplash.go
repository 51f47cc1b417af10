package estimate

import (
	"cmp"
	"maps"
	"math"
	"slices"
)

// ESPLASH (seed 004, chapter 5; estimate-and-advice.md section 4): nodes
// are classified into performance levels (5.2.1), a node is a straggler
// when its running tasks are slow against its own level's statistics
// (5.2.2), only tasks on straggler nodes are candidates, and each gets the
// lowest level whose containers minimise its backup's expected time
// (minL) and a speculative value, the expected time saved (5.2.3).

// ESPLASHState is ESPLASH's learned state (section 2.5).
type ESPLASHState struct {
	// Levels are the nodes' levels from the last classification (1 the
	// slowest; a node never classified is absent).
	Levels map[string]int `json:"levels,omitempty"`
	// Stats holds per node and live task type ("job/phase") the completed
	// original attempts' [n, sum of times, sum of squares].
	Stats map[string]map[string][3]float64 `json:"stats,omitempty"`
	// Samples holds each running attempt's (time, progress) at the
	// previous epoch, for its progress rate (D-S8).
	Samples map[string][2]float64 `json:"samples,omitempty"`
}

func (s *ESPLASHState) clone() *ESPLASHState {
	out := &ESPLASHState{Levels: map[string]int{}, Stats: map[string]map[string][3]float64{}, Samples: map[string][2]float64{}}
	if s == nil {
		return out
	}
	maps.Copy(out.Levels, s.Levels)
	for n, per := range s.Stats {
		out.Stats[n] = maps.Clone(per)
	}
	maps.Copy(out.Samples, s.Samples)
	return out
}

func taskType(job, phase string) string { return job + "/" + phase }

// maxZ caps one attempt's z-score term of the straggler value (D-S6): far
// beyond any tau, and finite whatever the input.
const maxZ = 1e6

// cell is one statistics-table entry ST(level, type): mean and
// standard deviation (floored, D-S5) of completed times.
type cell struct {
	n, mu, sd float64
}

// advise is ESPLASH's part of Advise: it folds, classifies, marks
// stragglers, and returns the candidates (re-evaluating waiting backups
// into adv directly). progress is what feeds EstT and EstEnd: nil for
// Hadoop's progress, else ESAMR's progress score (D-S11).
func (s *ESPLASHState) advise(in AdviceInput, cfg SpeculationConfig, progress func(Attempt) float64, adv *Advice) []candidate {
	p := cfg.ESPLASH
	jobs := jobIndex(in)
	// Fold the completed original attempts (D-G6), then drop the types of
	// jobs no longer live (D-G5).
	for _, c := range in.Completed {
		if c.Speculative || c.Node == "" {
			continue
		}
		d := c.Finish - c.Start
		per := s.Stats[c.Node]
		if per == nil {
			per = map[string][3]float64{}
			s.Stats[c.Node] = per
		}
		v := per[taskType(c.Job, c.Phase)]
		per[taskType(c.Job, c.Phase)] = [3]float64{v[0] + 1, v[1] + d, v[2] + d*d}
	}
	for node, per := range s.Stats {
		for typ := range per {
			if jobs[typ[:len(typ)-len(typePhase(typ))-1]] == nil {
				delete(per, typ)
			}
		}
		if len(per) == 0 {
			delete(s.Stats, node)
		}
	}
	s.classify(in, p)
	level := func(node string) int { return s.Levels[node] }
	hl := 0
	for _, n := range in.Nodes {
		hl = max(hl, level(n.ID))
	}

	// The statistics table, per level and type, pooled over the level's
	// nodes (D-S20 imputes the cells without a sample).
	st := newStatTable(s.Stats, s.Levels, p.SigmaFloor)

	// pg is the progress EstT and EstEnd read (D-S11); the progress rates
	// stay Hadoop's.
	pg := func(a Attempt) float64 {
		if progress != nil {
			return progress(a)
		}
		return *a.Progress
	}

	// Progress rates (D-S8) of running original attempts; new samples.
	rates := map[string]float64{}
	nextSamples := map[string][2]float64{}
	for _, a := range in.Tasks {
		if a.Waiting || a.Progress == nil {
			continue
		}
		pg := *a.Progress
		nextSamples[a.Attempt] = [2]float64{in.Now, pg}
		if a.Speculative {
			continue
		}
		switch prev, ok := s.Samples[a.Attempt]; {
		case a.ProgressRate != nil:
			rates[a.Attempt] = *a.ProgressRate
		case ok && in.Now > prev[0]:
			rates[a.Attempt] = math.Max(0, (pg-prev[1])/(in.Now-prev[0]))
		case in.Now > a.Start:
			rates[a.Attempt] = pg / (in.Now - a.Start)
		}
	}
	s.Samples = nextSamples

	// PR(level, type), leaving the evaluated node out (D-S9).
	type nt struct{ node, typ string }
	prLevel := map[levelType][2]float64{}
	prNode := map[nt][2]float64{}
	for _, a := range in.Tasks {
		r, ok := rates[a.Attempt]
		if !ok {
			continue
		}
		typ := taskType(a.Job, a.Phase)
		k1, k2 := levelType{level(a.Node), typ}, nt{a.Node, typ}
		v1, v2 := prLevel[k1], prNode[k2]
		prLevel[k1] = [2]float64{v1[0] + r, v1[1] + 1}
		prNode[k2] = [2]float64{v2[0] + r, v2[1] + 1}
	}

	// Straggler values (D-S6, D-S7, D-S10).
	sv := map[string]float64{}
	contrib := map[string]int{}
	for _, a := range in.Tasks {
		if a.Waiting || a.Speculative || a.Progress == nil || level(a.Node) == 0 {
			continue
		}
		if a.Phase == ReducePhase && inShuffle(a) {
			if pc := counts(jobs, a.Job, MapPhase); pc != nil && pc.Pending+pc.Running > 0 {
				continue // waiting for map output by design
			}
		}
		typ := taskType(a.Job, a.Phase)
		l := level(a.Node)
		term := false
		if c, ok := st.cell(l, typ); ok && pg(a) > 0 {
			estT := (in.Now - a.Start) / pg(a)
			if estT >= c.mu && c.sd > 0 {
				// An absurd elapsed time overflows; the term is capped so
				// that the straggler value stays a number.
				sv[a.Node] += math.Min((estT-c.mu)/c.sd, maxZ)
				term = true
			}
		}
		if r, ok := rates[a.Attempt]; ok {
			lv, nv := prLevel[levelType{l, typ}], prNode[nt{a.Node, typ}]
			if others := lv[1] - nv[1]; others > 0 {
				pr := (lv[0] - nv[0]) / others
				ratio := p.PRCap
				if r > 0 {
					ratio = math.Min(p.PRCap, pr/r)
				}
				sv[a.Node] += ratio
				term = true
			}
		}
		if term {
			contrib[a.Node]++
		}
	}
	straggler := map[string]bool{}
	for _, n := range in.Nodes {
		v := 0.0
		if c := contrib[n.ID]; c > 0 {
			v = sv[n.ID] / float64(c)
			straggler[n.ID] = v > p.Tau
		}
		adv.Nodes = append(adv.Nodes, NodeReport{Node: n.ID, Level: level(n.ID), StragglerValue: v, Straggler: straggler[n.ID]})
		if straggler[n.ID] {
			adv.ExcludeNodes = append(adv.ExcludeNodes, n.ID)
		}
	}

	// Containers per level that may host a backup: known level, not a
	// straggler (D-S13).
	containers := func(phase string) []float64 {
		c := make([]float64, hl+1)
		for _, n := range in.Nodes {
			if l := level(n.ID); l > 0 && !straggler[n.ID] {
				if phase == ReducePhase {
					c[l] += float64(n.ReduceSlots)
				} else {
					c[l] += float64(n.MapSlots)
				}
			}
		}
		return c
	}
	cPhase := [2][]float64{containers(MapPhase), containers(ReducePhase)}
	// value evaluates a backup of attempt a: its minimum level and value;
	// ok false when nothing is known to value it with.
	value := func(a Attempt) (minL int, val float64, estEnd float64, ok bool) {
		typ := taskType(a.Job, a.Phase)
		i := max(level(a.Node), 1)
		estT := make([]float64, hl+1)
		has := make([]bool, hl+1)
		known := false
		for m := i; m <= hl; m++ {
			if c, ok := st.cell(m, typ); ok {
				estT[m], has[m], known = c.mu, true, true
			}
		}
		if !known {
			c, ok := st.typeCell(typ)
			if !ok {
				return 0, 0, 0, false
			}
			for m := i; m <= hl; m++ {
				estT[m], has[m] = c.mu, true
			}
		}
		c := cPhase[phaseIndex(a.Phase)]
		minL, _ = MinLevel(i, c, estT, has)
		if minL == 0 {
			return 0, 0, 0, false
		}
		p := pg(a)
		if !(p > 0) {
			return minL, math.Inf(1), math.Inf(1), true
		}
		estEnd = (in.Now-a.Start)/p + a.Start
		return minL, SpeculativeValue(minL, c, estT, has, estEnd-in.Now), estEnd, true
	}

	// Candidates: original attempts on straggler nodes without a backup.
	skip := backedUp(in)
	var out []candidate
	for _, a := range in.Tasks {
		if a.Waiting || a.Speculative || a.Progress == nil || !straggler[a.Node] || skip[a.Task] {
			continue
		}
		minL, val, estEnd, ok := value(a)
		if !ok {
			continue
		}
		if math.IsInf(val, 1) {
			out = append(out, candidate{a: a, reason: ReasonNoProgress, rank: math.Inf(1), minLevel: minL, onePerJob: true})
			continue
		}
		if val > 0 { // D-S16
			out = append(out, candidate{a: a, reason: ReasonStraggler, rank: val, value: finitePtr(val),
				tte: finitePtr(estEnd - in.Now), minLevel: minL, onePerJob: true})
		}
	}

	// Waiting backups are re-evaluated every epoch (D-S17).
	originals := map[string]Attempt{}
	for _, a := range in.Tasks {
		if !a.Speculative && !a.Waiting {
			originals[a.Task] = a
		}
	}
	for _, w := range in.Tasks {
		if !w.Waiting {
			continue
		}
		o, ok := originals[w.Task]
		if !ok || o.Progress == nil {
			adv.Cancel = append(adv.Cancel, Cancel{Job: w.Job, Task: w.Task, Attempt: w.Attempt, Reason: ReasonNoBenefit})
			continue
		}
		minL, val, estEnd, ok := value(o)
		if !ok || !(val > 0) {
			adv.Cancel = append(adv.Cancel, Cancel{Job: w.Job, Task: w.Task, Attempt: w.Attempt, Reason: ReasonNoBenefit})
			continue
		}
		sp := Speculate{Job: o.Job, Task: o.Task, Attempt: o.Attempt, Phase: o.Phase, Node: o.Node, MinLevel: minL}
		if math.IsInf(val, 1) {
			sp.Reason = ReasonNoProgress
		} else {
			sp.Reason, sp.Value, sp.TimeToEnd = ReasonStraggler, finitePtr(val), finitePtr(estEnd-in.Now)
		}
		adv.Speculate = append(adv.Speculate, sp)
	}
	return out
}

// inShuffle reports whether a reduce attempt is in its shuffle stage: its
// stage when sent, else Hadoop's progress below a third.
func inShuffle(a Attempt) bool {
	if a.Stage != "" {
		return a.Stage == StageShuffle
	}
	return a.Progress != nil && *a.Progress < 1.0/3
}

func typePhase(typ string) string {
	if len(typ) >= len(ReducePhase) && typ[len(typ)-len(ReducePhase):] == ReducePhase {
		return ReducePhase
	}
	return MapPhase
}

// MinLevel is Algorithm 5.2.3: for a task on a level-i node, the level l
// in [i, HL] minimising ExpT_l = sum_{m in [l, HL]} C(m) EstT(m) /
// sum_{m in [l, HL]} C(m), over the levels with data (has; D-S12) and
// containers, ties to the lowest l (D-S14). c and estT are indexed by
// level (index 0 unused). It returns 0 when no level qualifies, and the
// ExpT of each level (NaN where undefined).
func MinLevel(i int, c, estT []float64, has []bool) (int, []float64) {
	hl := len(c) - 1
	exp := make([]float64, hl+1)
	best, bestT := 0, math.Inf(1)
	for l := range exp {
		exp[l] = math.NaN()
	}
	for l := max(i, 1); l <= hl; l++ {
		num, den := 0.0, 0.0
		for m := l; m <= hl; m++ {
			if has[m] && c[m] > 0 {
				num += c[m] * estT[m]
				den += c[m]
			}
		}
		if den == 0 {
			continue
		}
		exp[l] = num / den
		if exp[l] < bestT {
			best, bestT = l, exp[l]
		}
	}
	return best, exp
}

// SpeculativeValue is section 5.2.3's value of a backup at minimum level
// minL: sum_{m in [minL, HL]} C(m) (remaining - EstT(m)) / sum_{m in [1,
// HL]} C(m), remaining being EstEnd - now of the original; levels without
// data are left out of the numerator (D-S12).
func SpeculativeValue(minL int, c, estT []float64, has []bool, remaining float64) float64 {
	num, den := 0.0, 0.0
	for m := 1; m < len(c); m++ {
		den += c[m]
		if m >= minL && has[m] {
			num += c[m] * (remaining - estT[m])
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// classify sets the nodes' levels (5.2.1): the pre-configured ones when
// every node has one (D-S1), else from the nodes' performance vectors:
// grouped into an ordered chain, the groups clustered into at most
// cfg.Levels levels, numbered slowest first (D-S3). A node without a
// completed task keeps its last level (0 if it never had one).
func (s *ESPLASHState) classify(in AdviceInput, p ESPLASHConfig) {
	configured := len(in.Nodes) > 0
	for _, n := range in.Nodes {
		configured = configured && n.Level > 0
	}
	if configured {
		clear(s.Levels)
		for _, n := range in.Nodes {
			s.Levels[n.ID] = n.Level
		}
		return
	}
	types := map[string]bool{}
	for _, per := range s.Stats {
		for typ := range per {
			types[typ] = true
		}
	}
	dims := slices.Sorted(maps.Keys(types))
	var ids []string
	for _, n := range in.Nodes {
		if len(s.Stats[n.ID]) > 0 {
			ids = append(ids, n.ID)
		}
	}
	if len(ids) == 0 || len(dims) == 0 {
		return
	}
	pvs := PerformanceVectors(ids, dims, s.Stats)
	groups := Group(pvs)
	labels := GroupKMeans(pvs, groups, max(p.Levels, 1))
	levels := LevelNumbers(pvs, labels)
	for i, id := range ids {
		s.Levels[id] = levels[i]
	}
}

// PerformanceVectors builds each node's vector of mean completed times
// over dims (5.2.1), imputing a type a node has not finished as the
// type's mean over the nodes that have, times the node's median ratio to
// those means over the types it has finished (D-S2).
func PerformanceVectors(ids, dims []string, stats map[string]map[string][3]float64) [][]float64 {
	means := make([]float64, len(dims))
	for d, typ := range dims {
		sum, n := 0.0, 0
		for _, id := range ids {
			if v, ok := stats[id][typ]; ok && v[0] > 0 {
				sum += v[1] / v[0]
				n++
			}
		}
		if n > 0 {
			means[d] = sum / float64(n)
		}
	}
	pvs := make([][]float64, len(ids))
	for i, id := range ids {
		pv := make([]float64, len(dims))
		var ratios []float64
		for d, typ := range dims {
			if v, ok := stats[id][typ]; ok && v[0] > 0 {
				pv[d] = v[1] / v[0]
				if means[d] > 0 {
					ratios = append(ratios, pv[d]/means[d])
				}
			} else {
				pv[d] = math.NaN()
			}
		}
		slices.Sort(ratios)
		med := 1.0
		if k := len(ratios); k > 0 {
			med = ratios[k/2]
			if k%2 == 0 {
				med = (ratios[k/2-1] + ratios[k/2]) / 2
			}
		}
		for d := range pv {
			if math.IsNaN(pv[d]) {
				pv[d] = med * means[d]
			}
		}
		pvs[i] = pv
	}
	return pvs
}

// Group is Algorithm 5.2.1 in its efficient form: the finest partition of
// the performance vectors into groups totally ordered in every dimension
// (for consecutive groups A before B, max_A(d) <= min_B(d) for every d),
// which is the fixpoint of the paper's pairwise merges. The vectors are
// sorted lexicographically (then by index), and a cut after position p is
// kept when the prefix's maxima are at most the suffix's minima in every
// dimension. Groups list vector indices, the fastest (smallest times)
// group first.
func Group(pvs [][]float64) [][]int {
	n := len(pvs)
	if n == 0 {
		return nil
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(slices.Compare(pvs[a], pvs[b]), cmp.Compare(a, b))
	})
	dims := len(pvs[0])
	sufMin := make([][]float64, n+1)
	sufMin[n] = make([]float64, dims)
	for d := range dims {
		sufMin[n][d] = math.Inf(1)
	}
	for q := n - 1; q >= 0; q-- {
		sufMin[q] = make([]float64, dims)
		for d := range dims {
			sufMin[q][d] = math.Min(sufMin[q+1][d], pvs[idx[q]][d])
		}
	}
	preMax := make([]float64, dims)
	for d := range dims {
		preMax[d] = math.Inf(-1)
	}
	var groups [][]int
	var cur []int
	for q := range n {
		cur = append(cur, idx[q])
		cut := true
		for d := range dims {
			preMax[d] = math.Max(preMax[d], pvs[idx[q]][d])
			if q+1 < n && preMax[d] > sufMin[q+1][d] {
				cut = false
			}
		}
		if cut {
			groups = append(groups, cur)
			cur = nil
		}
	}
	return groups
}

// GroupKMeans is Algorithm 5.2.2: k centres at the mean vectors of the
// groups at chain positions floor((i + 0.5) G / k), counted from the
// slowest group (D-S3); each vector votes for its nearest centre
// (Euclidean on raw seconds, D-S4), each group joins the centre with most
// votes (ties to the lowest index), centres move to their vectors' mean
// (an empty one stays), until no group moves (at most 100 rounds). With
// G <= k groups each group is its own cluster. It returns each vector's
// cluster index.
func GroupKMeans(pvs [][]float64, groups [][]int, k int) []int {
	labels := make([]int, len(pvs))
	g := len(groups)
	slowFirst := slices.Clone(groups)
	slices.Reverse(slowFirst)
	if g <= k {
		for c, grp := range slowFirst {
			for _, i := range grp {
				labels[i] = c
			}
		}
		return labels
	}
	mean := func(members []int) []float64 {
		m := make([]float64, len(pvs[0]))
		for _, i := range members {
			for d, x := range pvs[i] {
				m[d] += x / float64(len(members))
			}
		}
		return m
	}
	centres := make([][]float64, k)
	for c := range k {
		centres[c] = mean(slowFirst[int(math.Floor((float64(c)+0.5)*float64(g)/float64(k)))])
	}
	assign := make([]int, g)
	for i := range assign {
		assign[i] = -1
	}
	for range 100 {
		moved := false
		for gi, grp := range slowFirst {
			votes := make([]int, k)
			for _, i := range grp {
				best, bestD := 0, math.Inf(1)
				for c, ce := range centres {
					if d := sqDist(pvs[i], ce); d < bestD {
						best, bestD = c, d
					}
				}
				votes[best]++
			}
			win := 0
			for c := range votes {
				if votes[c] > votes[win] {
					win = c
				}
			}
			if assign[gi] != win {
				assign[gi], moved = win, true
			}
		}
		if !moved {
			break
		}
		for c := range centres {
			var members []int
			for gi, grp := range slowFirst {
				if assign[gi] == c {
					members = append(members, grp...)
				}
			}
			if len(members) > 0 {
				centres[c] = mean(members)
			}
		}
	}
	for gi, grp := range slowFirst {
		for _, i := range grp {
			labels[i] = assign[gi]
		}
	}
	return labels
}

// LevelNumbers numbers the clusters of GroupKMeans 1..L, the slowest
// first, by the mean over dimensions of the cluster's mean time over the
// dimension's mean time (D-S3). It returns each vector's level.
func LevelNumbers(pvs [][]float64, labels []int) []int {
	if len(pvs) == 0 {
		return nil
	}
	dims := len(pvs[0])
	dmean := make([]float64, dims)
	for _, pv := range pvs {
		for d, x := range pv {
			dmean[d] += x / float64(len(pvs))
		}
	}
	score := map[int]float64{}
	size := map[int]int{}
	for i, l := range labels {
		size[l]++
		for d, x := range pvs[i] {
			if dmean[d] > 0 {
				score[l] += x / dmean[d] / float64(dims)
			}
		}
	}
	clusters := slices.Sorted(maps.Keys(size))
	slices.SortStableFunc(clusters, func(a, b int) int {
		return cmp.Compare(score[b]/float64(size[b]), score[a]/float64(size[a]))
	})
	level := map[int]int{}
	for i, c := range clusters {
		level[c] = i + 1
	}
	out := make([]int, len(labels))
	for i, l := range labels {
		out[i] = level[l]
	}
	return out
}
