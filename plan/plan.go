// Package plan holds the wire form of FRESH's static slot configuration
// (dissertation Alg. 3.3.1, ratio.SlotConfig): the body `flexd plan
// slot-config` reads and POST /v1/plan/slot-config takes, and the answer
// both print, so the CLI and the HTTP layer cannot drift apart.
//
// The package is pure: no I/O, clock, globals or logging.
package plan

import (
	"fmt"
	"math"
	"strings"

	"github.com/flexd/flexd/ratio"
)

// Limits on one slot-configuration request. SlotConfig simulates the batch
// once per split, O(slots x jobs^2), and answers one curve point per split,
// so both counts are bounded, and so is their product.
const (
	// MaxSlots is the most slots a request may split.
	MaxSlots = 100_000
	// MaxJobs is the most jobs in a batch.
	MaxJobs = 10_000
	// MaxCost bounds slots x jobs^2, about the simulation steps (a few
	// seconds of CPU).
	MaxCost = 2e9
)

// SlotConfigRequest is the body: a batch of job profiles to run on Slots
// interchangeable slots, at most K jobs in each phase at a time.
type SlotConfigRequest struct {
	// Slots is S, the slots to split between map and reduce (>= 2).
	Slots int `json:"slots" validate:"required"`
	// K is the most jobs running in each phase at once (>= 1).
	K int `json:"k"`
	// Jobs are the batch's profiles, in the order they enter the map
	// phase.
	Jobs []SlotConfigJob `json:"jobs" validate:"required"`
}

// SlotConfigJob is one job's profile.
type SlotConfigJob struct {
	// MapTasks and ReduceTasks count the job's tasks (>= 0).
	MapTasks    int `json:"map_tasks"`
	ReduceTasks int `json:"reduce_tasks"`
	// MapTime and ReduceTime are the mean task times in seconds (>= 0).
	MapTime    float64 `json:"map_time"`
	ReduceTime float64 `json:"reduce_time"`
}

// SlotConfigResponse is the answer: the best split, its predicted makespan
// and the makespan of every split.
type SlotConfigResponse struct {
	// MapSlots and ReduceSlots are the best split (ties: fewer map slots).
	MapSlots    int `json:"map_slots" validate:"required"`
	ReduceSlots int `json:"reduce_slots" validate:"required"`
	// Makespan is the batch's predicted makespan in seconds under it.
	Makespan float64 `json:"makespan" validate:"required"`
	// Curve holds every split from 1 map slot to Slots-1, in that order.
	Curve []CurvePoint `json:"curve" validate:"required"`
}

// CurvePoint is one split's predicted makespan.
type CurvePoint struct {
	MapSlots    int     `json:"map_slots" validate:"required"`
	ReduceSlots int     `json:"reduce_slots" validate:"required"`
	Makespan    float64 `json:"makespan" validate:"required"`
}

// SlotConfig validates the request and runs ratio.SlotConfig on it. A bad
// request yields a *ratio.ValidationError listing every problem at its
// wire path ("slots", "k", "jobs", "jobs[3].map_time"); the HTTP layer
// answers it with 422 and the CLI with exit status 2. No other error is
// returned.
func SlotConfig(req SlotConfigRequest) (SlotConfigResponse, error) {
	var problems []ratio.FieldError
	add := func(field, format string, args ...any) {
		problems = append(problems, ratio.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if req.Slots > MaxSlots {
		add("slots", "must be at most %d, got %d", MaxSlots, req.Slots)
	}
	if len(req.Jobs) > MaxJobs {
		add("jobs", "must hold at most %d jobs, got %d", MaxJobs, len(req.Jobs))
	}
	if n := float64(len(req.Jobs)); len(problems) == 0 && float64(req.Slots)*n*n > MaxCost {
		add("jobs", "slots x jobs^2 must be at most %.0e, got %d x %d^2", MaxCost, req.Slots, len(req.Jobs))
	}
	profiles := make([]ratio.Profile, len(req.Jobs))
	for i, j := range req.Jobs {
		profiles[i] = ratio.Profile{MapTasks: j.MapTasks, ReduceTasks: j.ReduceTasks, MapTime: j.MapTime, ReduceTime: j.ReduceTime}
		// Work must stay finite for the makespans to be numbers.
		for _, w := range []struct {
			field string
			n     int
			t     float64
		}{{"map_time", j.MapTasks, j.MapTime}, {"reduce_time", j.ReduceTasks, j.ReduceTime}} {
			if w.n > 0 && w.t > 0 && math.IsInf(float64(w.n)*w.t, 1) {
				add(fmt.Sprintf("jobs[%d].%s", i, w.field), "tasks x time overflows")
			}
		}
	}
	if len(problems) > 0 {
		return SlotConfigResponse{}, &ratio.ValidationError{Problems: problems}
	}
	sp, err := ratio.SlotConfig(profiles, req.Slots, req.K)
	if err != nil {
		if ve, ok := err.(*ratio.ValidationError); ok {
			for i := range ve.Problems {
				ve.Problems[i].Field = wirePath(ve.Problems[i].Field)
			}
		}
		return SlotConfigResponse{}, err
	}
	resp := SlotConfigResponse{MapSlots: sp.MapSlots, ReduceSlots: sp.ReduceSlots, Makespan: sp.Makespan,
		Curve: make([]CurvePoint, len(sp.Curve))}
	for i, p := range sp.Curve {
		resp.Curve[i] = CurvePoint{MapSlots: p.MapSlots, ReduceSlots: req.Slots - p.MapSlots, Makespan: p.Makespan}
		if math.IsInf(p.Makespan, 0) || math.IsNaN(p.Makespan) {
			// The sum of finite workloads overflowed: no number to answer.
			return SlotConfigResponse{}, &ratio.ValidationError{Problems: []ratio.FieldError{{
				Field: "jobs", Message: "the batch's total work overflows",
			}}}
		}
	}
	return resp, nil
}

// wirePath renames ratio's "profiles" paths to the body's "jobs".
func wirePath(field string) string {
	if rest, ok := strings.CutPrefix(field, "profiles"); ok {
		return "jobs" + rest
	}
	return field
}
