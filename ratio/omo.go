package ratio

import (
	"math"
	"sort"
)

// Observe folds one epoch into OMO's moving averages (dissertation Eq. 4.1):
// f_t = R_t / T_w released slots per second and a_t available slots, then
// F_o = alpha*f_t + (1-alpha)*F_o and A_o likewise. The first window seeds
// both averages. Available slots (4.3.1) are the slots serving map tasks
// plus the slots serving reduce tasks of jobs whose map phase is over; the
// epoch sees them at its start, which stands for the window just ended. An
// epoch of length <= 0, or so short that the rate is not finite, carries no
// window and leaves the state unchanged.
func Observe(prev State, alpha float64, in Input) State {
	if !(in.EpochLength > 0) || math.IsInf(in.EpochLength, 0) {
		return prev
	}
	if !(alpha > 0 && alpha <= 1) {
		alpha = DefaultEMAAlpha
	}
	f := float64(max(in.ReleasedSlots, 0)) / in.EpochLength
	if !finite(f) {
		// A window too short to divide by (a subnormal epoch length) says
		// nothing about the release rate; an infinite rate would poison
		// every later average and cannot be written as JSON.
		return prev
	}
	a := float64(availableSlots(in.Jobs))
	if prev.Windows <= 0 || !finite(prev.ReleaseRate) || !finite(prev.AvailableSlots) {
		return State{ReleaseRate: f, AvailableSlots: a, Windows: 1}
	}
	return State{
		ReleaseRate:    alpha*f + (1-alpha)*prev.ReleaseRate,
		AvailableSlots: alpha*a + (1-alpha)*prev.AvailableSlots,
		Windows:        prev.Windows + 1,
	}
}

func availableSlots(jobs []Job) int {
	a := 0
	for _, j := range jobs {
		a += max(j.Map.Running, 0)
		if j.mapDone() {
			a += max(j.Reduce.Running, 0)
		}
	}
	return a
}

func activeJobs(jobs []Job) int {
	k := 0
	for _, j := range jobs {
		if j.active() {
			k++
		}
	}
	return k
}

// tasksOr is a phase's task count, or its demand plus completed tasks when
// the count is unknown.
func tasksOr(p PhaseDemand) int {
	if p.Tasks > 0 {
		return p.Tasks
	}
	return p.Demand()
}

// ShuffleTime is T_s = d*m/(B*r) (OMO 4.3.2.2): the estimated shuffle time
// of a job's last reduce task, with d its map output per task in bytes, m
// its map tasks, r its reduce tasks and B the bandwidth in bytes/s.
func ShuffleTime(j Job, bandwidth float64) float64 {
	r := tasksOr(j.Reduce)
	if bandwidth <= 0 || r <= 0 {
		return 0
	}
	return j.OutputBytesPerMapTask * float64(tasksOr(j.Map)) / (bandwidth * float64(r))
}

// LazyStartGap is alpha of Eq. 4.3 at x = the job's pending map tasks:
//
//	alpha = T_s(i) - (x*A_o*K / (F_o*(A_o - r_i)) + T_m(i)),
//
// the time from the end of the job's map phase to the end of its shuffle if
// its reduce phase started now, with K active jobs and s's averages F_o,
// A_o. With no pending map task the map phase ends after T_m; when the
// estimated release frequency F_o*(A_o - r_i)/(A_o*K) is not positive the
// pending tasks never finish and alpha is -Inf.
func LazyStartGap(j Job, s State, k int, bandwidth float64) float64 {
	ts := ShuffleTime(j, bandwidth)
	tm := j.Map.AvgTaskTime
	x := float64(max(j.Map.Pending, 0))
	if x == 0 {
		return ts - tm
	}
	ae := s.AvailableSlots - float64(tasksOr(j.Reduce))
	if s.ReleaseRate <= 0 || ae <= 0 || k <= 0 {
		return math.Inf(-1)
	}
	return ts - (x*s.AvailableSlots*float64(k)/(s.ReleaseRate*ae) + tm)
}

// lazyStart is Algorithm 4.3.1 with docs/algorithms.md's correction. As
// printed, a job is selected only when alpha at its pending count m'_i is no
// larger than alpha at every x in (m'_i, m_i]; alpha falls as x grows, so
// that never holds once a map task has run. The intent (4.3.2.2: "minimize
// the gap from the end of the map phase to the end of the shuffling phase")
// is to start the reduce phase as late as possible while the shuffle still
// ends no earlier than the map phase: start job i now when alpha(m'_i) >= 0.
// A job whose map phase is over starts at once: there is nothing left to
// overlap. Candidates are ordered as line 25 orders them: fewest occupied
// slots, then earlier submission, then id.
func lazyStart(jobs []Job, s State, bandwidth float64) []int {
	k := activeJobs(jobs)
	var out []int
	for i, j := range jobs {
		if j.reduceStarted() || j.Reduce.Demand() == 0 {
			continue
		}
		if j.mapDone() || LazyStartGap(j, s, k, bandwidth) >= 0 {
			out = append(out, i)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		ja, jb := jobs[out[a]], jobs[out[b]]
		oa := float64(ja.Map.Running + ja.Reduce.Running)
		ob := float64(jb.Map.Running + jb.Reduce.Running)
		return less(oa, ob, ja, jb)
	})
	return out
}

// BatchGain is t_fair - t_batch of Eq. 4.4-4.5 for a job with m'_i pending
// map tasks and r_i reduce tasks among K active jobs:
//
//	t_fair  = K*m'_i/F_o + T_m(i)                      (4.4)
//	s       = F_o*(K-1)/K * t_fair                      slots others get
//	t_batch = s*A_o / (F_o*(A_o + r_i))                 (4.5)
//
// A positive gain means finishing the job's pending map tasks in a batch
// gives the other jobs their s slots sooner. It is 0 when the job has no
// pending map task or the averages carry no estimate.
func BatchGain(j Job, s State, k int) float64 {
	mp := float64(max(j.Map.Pending, 0))
	if mp == 0 || s.ReleaseRate <= 0 || k <= 0 {
		return 0
	}
	K := float64(k)
	tFair := K*mp/s.ReleaseRate + j.Map.AvgTaskTime
	slots := s.ReleaseRate * (K - 1) / K * tFair
	den := s.ReleaseRate * (s.AvailableSlots + float64(tasksOr(j.Reduce)))
	if den <= 0 {
		return 0
	}
	return tFair - slots*s.AvailableSlots/den
}

// batchFinish is Algorithm 4.3.2: among running jobs whose reduce phase has
// started (before this epoch: a job lazy start starts now is not a
// candidate, Alg. 4.3.3 gives the slot to its reduce task) and that have
// pending map tasks, the one with the largest t_fair - t_batch > 0; ties by
// earlier submission, then id. -1 when none.
func batchFinish(jobs []Job, s State, starting map[int]bool) int {
	k := activeJobs(jobs)
	best, bestGain := -1, 0.0
	for i, j := range jobs {
		if !j.reduceStarted() || starting[i] || j.Map.Pending <= 0 {
			continue
		}
		g := BatchGain(j, s, k)
		if g <= 0 {
			continue
		}
		if best < 0 || g > bestGain || (g == bestGain && less(0, 0, j, jobs[best])) {
			best, bestGain = i, g
		}
	}
	return best
}
