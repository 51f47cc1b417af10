// Package epochlogtest makes epoch logs for tests and examples: a small
// cluster whose shim follows flexd's decisions, so its epochs evolve the way
// a real log does (jobs arrive, maps finish, reduces start, jobs leave).
package epochlogtest

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/httpapi"
)

// Shape of the simulated cluster.
const (
	// MapSlots and ReduceSlots are the cluster's slots.
	MapSlots, ReduceSlots = 20, 8
	// EpochLength is the time between epochs, seconds.
	EpochLength = 10.0
	// Start is the first epoch's now.
	Start = 1000.0
)

// spec is one job of the workload: it arrives just before epoch arrive.
type spec struct {
	id                 string
	arrive             int64
	weight             float64
	mapWork, redWork   float64
	mapTasks, redTasks int
}

// jobs mixes large and small jobs, a map-only one and weights, so that
// FLEX and FAIR disagree in most epochs.
var jobs = []spec{
	{"job_1", 1, 1, 1200, 300, 40, 6},
	{"job_2", 1, 1, 150, 40, 10, 2},
	{"job_3", 3, 2, 2000, 0, 60, 0},
	{"job_4", 5, 1, 90, 60, 6, 3},
	{"job_5", 7, 1, 600, 200, 20, 4},
	{"job_6", 9, 1, 300, 100, 12, 4},
	{"job_7", 12, 1, 800, 150, 30, 5},
}

// state is one job's remaining work.
type state struct {
	spec
	mapLeft, redLeft float64
}

// Requests returns epochs 1..n of the cluster as wire requests, with
// "cluster" set to cluster when it is not empty. Between epochs every job
// works off what flexd allocated it (policy flex, avg_response_time), so
// each request follows from the decision before it.
func Requests(n int, cluster string) ([]httpapi.EpochRequest, error) {
	var live []*state
	next := 0
	out := make([]httpapi.EpochRequest, 0, n)
	for e := int64(1); e <= int64(n); e++ {
		now := Start + float64(e-1)*EpochLength
		for next < len(jobs) && jobs[next].arrive <= e {
			s := jobs[next]
			live = append(live, &state{spec: s, mapLeft: s.mapWork, redLeft: s.redWork})
			next++
		}
		req := httpapi.EpochRequest{
			Cluster: cluster, Epoch: e, Now: now, EpochLength: EpochLength,
			Objective: "avg_response_time", Policy: "flex",
			Slots: httpapi.PhaseSlots{Map: MapSlots, Reduce: ReduceSlots},
			Jobs:  []httpapi.EpochJob{},
		}
		for _, j := range live {
			w := j.weight
			ej := httpapi.EpochJob{ID: j.id, Submitted: Start + float64(j.arrive-1)*EpochLength - 3, Weight: &w}
			if j.mapLeft > 0 {
				ej.Map = phase(j.mapLeft, j.mapWork, j.mapTasks, 1, nil)
			} else if j.redLeft > 0 {
				started := true
				ej.Reduce = phase(j.redLeft, j.redWork, j.redTasks, 0, &started)
			}
			req.Jobs = append(req.Jobs, ej)
		}
		out = append(out, req)
		dec, _, err := epoch.Decide(req.Domain(), epoch.ClusterState{})
		if err != nil {
			return nil, fmt.Errorf("deciding generated epoch %d: %w", e, err)
		}
		kept := live[:0]
		for k, j := range live {
			a := dec.Allocations[k]
			j.mapLeft = math.Max(0, j.mapLeft-float64(a.Map)*EpochLength)
			j.redLeft = math.Max(0, j.redLeft-float64(a.Reduce)*EpochLength)
			if j.mapLeft > 0 || j.redLeft > 0 {
				kept = append(kept, j)
			}
		}
		live = kept
	}
	return out, nil
}

// phase is a phase with work left of total, its pending tasks in
// proportion.
func phase(left, total float64, tasks, min int, started *bool) *httpapi.PhaseState {
	pending := int(math.Ceil(float64(tasks) * left / total))
	return &httpapi.PhaseState{
		Min: min, Max: tasks, Work: left, TotalWork: total,
		Pending: pending, Tasks: tasks, AvgTaskTime: total / float64(tasks), Started: started,
	}
}

// Log returns Requests(n, cluster) as JSON Lines, the export's format.
func Log(n int, cluster string) ([]byte, error) {
	reqs, err := Requests(n, cluster)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, r := range reqs {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("encoding generated epoch %d: %w", r.Epoch, err)
		}
		out = append(append(out, b...), '\n')
	}
	return out, nil
}
