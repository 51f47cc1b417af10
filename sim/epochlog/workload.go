package epochlog

import (
	"cmp"
	"slices"

	"github.com/flexd/flexd/epoch"
)

// Workload is the work behind a log, as its requests reveal it: what a
// closed-loop simulator needs to run the same jobs under another policy.
type Workload struct {
	// Clusters summarises each cluster of the log, by name.
	Clusters []Cluster
	// Jobs lists every job once, in order of first appearance in the log
	// (line, then position in the request).
	Jobs []Job
}

// Cluster summarises one cluster's part of the log.
type Cluster struct {
	// Name is the lines' "cluster" ("" for lines without one).
	Name string
	// FirstEpoch and LastEpoch bound the logged epochs; Epochs counts them
	// (LastEpoch - FirstEpoch + 1, since Read rejects gaps).
	FirstEpoch, LastEpoch int64
	Epochs                int
	// Start and End are the first and last epochs' now.
	Start, End float64
	// Slots are the cluster's slots in its first logged epoch.
	Slots epoch.Slots
}

// Job is one job of the workload, as first seen.
type Job struct {
	// Cluster and ID identify the job (ids are unique per cluster only).
	Cluster, ID string
	// Arrival is the job's submission time ("submitted").
	Arrival float64
	// FirstSeen is the now of the first epoch listing the job and
	// FirstEpoch that epoch; a job submitted between epochs is first seen
	// after it arrives. LastEpoch is the last epoch listing it.
	FirstSeen             float64
	FirstEpoch, LastEpoch int64
	// Weight is the job's weight (1 when the log leaves it out).
	Weight float64
	// Pool is the job's pool ("" for the default pool).
	Pool string
	// Deadline is the job's deadline, meaningful only when HasDeadline.
	Deadline    float64
	HasDeadline bool
	// Map and Reduce are the phases when first seen with work.
	Map, Reduce Phase
}

// Phase is one job's phase the first time the log shows it with work to
// do. A reduce phase is often absent from a job's first epochs (not
// started yet), so each phase is taken from its own first sighting.
type Phase struct {
	// Seen is false when no epoch showed the phase with work; the other
	// fields are then zero (a map-only job has no reduce phase).
	Seen bool
	// Epoch is the epoch of that first sighting.
	Epoch int64
	// Work is the remaining work then (slot-seconds); TotalWork the
	// phase's whole work as reported, or Work when the log leaves it out
	// (a phase first seen mid-way has done TotalWork - Work already).
	Work, TotalWork float64
	// Tasks is the phase's task count as reported (0 when unknown).
	Tasks int
	// Min and Max are the job's slot bounds in the phase then.
	Min, Max int
}

// Reconstruct recovers the workload of a log read by Read: one Job per
// (cluster, id), with its arrival, its weight, pool and deadline from the
// first epoch listing it, and each phase from the first epoch showing it
// with work. Clusters come sorted by name.
func Reconstruct(entries []Entry) Workload {
	type key struct{ cluster, id string }
	index := map[key]int{}
	clusters := map[string]*Cluster{}
	var w Workload
	for _, e := range entries {
		req := e.Request
		c := clusters[e.Cluster]
		if c == nil {
			c = &Cluster{Name: e.Cluster, FirstEpoch: req.Epoch, Start: req.Now, Slots: req.Slots}
			clusters[e.Cluster] = c
		}
		c.LastEpoch, c.End = req.Epoch, req.Now
		c.Epochs++
		for _, j := range req.Jobs {
			k := key{e.Cluster, j.ID}
			i, ok := index[k]
			if !ok {
				i = len(w.Jobs)
				index[k] = i
				job := Job{
					Cluster: e.Cluster, ID: j.ID, Arrival: j.Submitted,
					FirstSeen: req.Now, FirstEpoch: req.Epoch,
					Weight: 1, Pool: j.Pool,
					Deadline: j.Deadline, HasDeadline: j.HasDeadline,
				}
				if j.Weight != nil {
					job.Weight = *j.Weight
				}
				w.Jobs = append(w.Jobs, job)
			}
			job := &w.Jobs[i]
			job.LastEpoch = req.Epoch
			firstSight(&job.Map, j.Map, req.Epoch)
			firstSight(&job.Reduce, j.Reduce, req.Epoch)
		}
	}
	for _, c := range clusters {
		w.Clusters = append(w.Clusters, *c)
	}
	slices.SortFunc(w.Clusters, func(a, b Cluster) int { return cmp.Compare(a.Name, b.Name) })
	return w
}

// firstSight records p into dst unless dst already holds an earlier
// sighting or p has no work.
func firstSight(dst *Phase, p *epoch.Phase, ep int64) {
	if dst.Seen || p == nil || !(p.Work > 0) {
		return
	}
	*dst = Phase{
		Seen: true, Epoch: ep, Work: p.Work, TotalWork: cmp.Or(p.TotalWork, p.Work),
		Tasks: p.Tasks, Min: p.Min, Max: p.Max,
	}
}
