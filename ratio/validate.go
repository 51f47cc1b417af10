package ratio

import (
	"fmt"
	"math"
	"strconv"
)

// FieldError is one problem with one field, located by its JSON path as
// docs/api.md names it ("ratio.borrow_map", "omo.bandwidth",
// "jobs[3].pool"). The HTTP layer turns a list of them into a 422.
type FieldError struct {
	// Field is the JSON path of the offending value.
	Field string
	// JobID is the job concerned, when there is one.
	JobID string
	// Message says what is wrong, for a person.
	Message string
}

// Error renders the problem as "field (job \"id\"): message".
func (e FieldError) Error() string {
	if e.JobID != "" {
		return fmt.Sprintf("%s (job %q): %s", e.Field, e.JobID, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Message)
}

type problems []FieldError

func (ps *problems) add(field, jobID, format string, args ...any) {
	*ps = append(*ps, FieldError{Field: field, JobID: jobID, Message: fmt.Sprintf(format, args...)})
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate checks the configuration alone and returns every problem, or
// nil. Zero values that have defaults are accepted.
func (c Config) Validate() []FieldError {
	var ps problems
	switch c.Mode {
	case "", ModeStatic, ModePIDHSA, ModePDDHSA, ModeFresh:
	default:
		ps.add("ratio.mode", "", "must be one of static, pi_dhsa, pd_dhsa, fresh; got %q", c.Mode)
	}
	unit := func(field string, v float64) {
		if !finite(v) || v < 0 || v > 1 {
			ps.add(field, "", "must be in [0,1], got %v", v)
		}
	}
	unit("ratio.borrow_map", c.BorrowMap)
	unit("ratio.borrow_reduce", c.BorrowReduce)
	if !finite(c.ReduceSlotWeight) || c.ReduceSlotWeight < 0 {
		ps.add("ratio.reduce_slot_weight", "", "must be a positive number, got %v", c.ReduceSlotWeight)
	}
	// Zero selects the default, so only (0,1] plus 0 is accepted.
	tau := func(field string, v float64) {
		if !finite(v) || v < 0 || v > 1 {
			ps.add(field, "", "must be in (0,1], got %v", v)
		}
	}
	tau("ratio.tau1", c.Tau1)
	tau("ratio.tau2", c.Tau2)
	seen := map[string]bool{}
	for i, p := range c.Pools {
		if p.Name == "" {
			ps.add(fmt.Sprintf("ratio.pools[%d].name", i), "", "must be non-empty")
		} else if seen[p.Name] {
			ps.add(fmt.Sprintf("ratio.pools[%d].name", i), "", "duplicate pool %q", p.Name)
		}
		seen[p.Name] = true
		if !finite(p.Weight) || p.Weight < 0 {
			ps.add(fmt.Sprintf("ratio.pools[%d].weight", i), "", "must be a positive number, got %v", p.Weight)
		}
	}
	if !finite(c.OMO.Bandwidth) || c.OMO.Bandwidth < 0 {
		ps.add("omo.bandwidth", "", "must be a non-negative number of bytes per second, got %v", c.OMO.Bandwidth)
	} else if c.OMO.LazyStart && c.OMO.Bandwidth == 0 {
		ps.add("omo.bandwidth", "", "must be positive when lazy_start is on (shuffle time d*m/(B*r), OMO 4.3.2.2)")
	}
	if !finite(c.OMO.Alpha) || c.OMO.Alpha < 0 || c.OMO.Alpha > 1 {
		ps.add("omo.ema_alpha", "", "must be in (0,1], got %v", c.OMO.Alpha)
	}
	if c.OMO.Enabled() && (c.Mode == "" || c.Mode == ModeStatic) {
		ps.add("omo", "", "OMO needs fungible slots: choose ratio.mode pi_dhsa, pd_dhsa or fresh, not static")
	}
	return ps
}

// Validate checks a configuration together with an epoch's input and
// returns every problem, or nil. Budgets does not panic on input that fails
// it, but its answer is then only best effort.
func Validate(c Config, in Input) []FieldError {
	ps := problems(c.Validate())
	if in.Cluster.MapSlots < 0 {
		ps.add("slots.map", "", "must be >= 0, got %d", in.Cluster.MapSlots)
	}
	if in.Cluster.ReduceSlots < 0 {
		ps.add("slots.reduce", "", "must be >= 0, got %d", in.Cluster.ReduceSlots)
	}
	if in.Cluster.MapSlots >= 0 && in.Cluster.ReduceSlots >= 0 && in.Cluster.Total() < 1 {
		ps.add("slots", "", "the cluster needs at least one slot")
	}
	if in.ReleasedSlots < 0 {
		ps.add("released_slots", "", "must be >= 0, got %d", in.ReleasedSlots)
	}
	if !finite(in.EpochLength) || in.EpochLength < 0 {
		ps.add("epoch_length", "", "must be a non-negative number of seconds, got %v", in.EpochLength)
	}
	declared := map[string]bool{}
	for _, p := range c.Pools {
		declared[p.Name] = true
	}
	ids := map[string]bool{}
	for i, j := range in.Jobs {
		// at names a field of job i; built only for a problem, since a
		// valid epoch (every one but a few) would pay for it per job.
		at := func(field string) string { return "jobs[" + strconv.Itoa(i) + "]." + field }
		if j.ID == "" {
			ps.add(at("id"), "", "must be non-empty")
		} else if ids[j.ID] {
			ps.add(at("id"), j.ID, "duplicate job id")
		}
		ids[j.ID] = true
		if len(c.Pools) > 0 && !declared[j.pool()] {
			ps.add(at("pool"), j.ID, "unknown pool %q: not in ratio.pools", j.pool())
		}
		if !finite(j.Submitted) {
			ps.add(at("submitted"), j.ID, "must be a finite number")
		}
		if !finite(j.OutputBytesPerMapTask) || j.OutputBytesPerMapTask < 0 {
			ps.add(at("map.output_bytes_per_task"), j.ID, "must be a non-negative number, got %v", j.OutputBytesPerMapTask)
		}
		for _, ph := range []struct {
			name string
			d    PhaseDemand
		}{{"map", j.Map}, {"reduce", j.Reduce}} {
			if ph.d.Pending < 0 {
				ps.add(at(ph.name+".pending"), j.ID, "must be >= 0, got %d", ph.d.Pending)
			}
			if ph.d.Running < 0 {
				ps.add(at(ph.name+".running"), j.ID, "must be >= 0, got %d", ph.d.Running)
			}
			if ph.d.Tasks < 0 {
				ps.add(at(ph.name+".tasks"), j.ID, "must be >= 0, got %d", ph.d.Tasks)
			} else if ph.d.Tasks > 0 && ph.d.Pending >= 0 && ph.d.Running >= 0 && ph.d.Demand() > ph.d.Tasks {
				ps.add(at(ph.name+".tasks"), j.ID, "pending + running (%d) exceed the task count %d", ph.d.Demand(), ph.d.Tasks)
			}
			if !finite(ph.d.Work) || ph.d.Work < 0 {
				ps.add(at(ph.name+".work"), j.ID, "must be a non-negative number, got %v", ph.d.Work)
			}
			if !finite(ph.d.AvgTaskTime) || ph.d.AvgTaskTime < 0 {
				ps.add(at(ph.name+".avg_task_time"), j.ID, "must be a non-negative number, got %v", ph.d.AvgTaskTime)
			}
		}
	}
	return ps
}
