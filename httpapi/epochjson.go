package httpapi

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/flexd/flexd/internal/wirejson"
)

// The epoch endpoint's JSON without reflection. An epoch of 200 jobs is a
// 50 KB body in and a 50 KB decision out (plus the canonical request it
// stores); encoding/json spent more CPU on those than the solver did. The
// decoder is a fast path: what it does not handle (escapes, duplicate,
// misspelt or unknown keys, wrong types, nulls at the top) makes it give up
// and decodeStrict decode the body instead, so every error and every
// corner of encoding/json's behaviour is still encoding/json's. The
// encoders write byte for byte what encoding/json.Marshal writes. A field
// added to a wire type without a line here is caught by the tests
// comparing both with encoding/json on random values (epochjson_test.go);
// on the decoding side such a field only costs the fast path.

// decodeEpochFast decodes body into v if it is plain JSON of an
// EpochRequest, exactly as encoding/json would, and reports whether it did.
// On false v holds junk: decode into a fresh value.
func decodeEpochFast(body []byte, v *EpochRequest) bool {
	ok, _ := decodeEpochFastEpoch(body, v, math.MaxInt)
	return ok
}

// decodeEpochFastEpoch is decodeEpochFast that also reports whether the
// body holds an epoch number (not absent, not null), which encoding/json
// cannot tell from 0. It gives up at the maxJobs+1st job, so that an
// oversized list costs no more than the limit (the strict path then
// refuses it, as soon as it counts past the limit).
func decodeEpochFastEpoch(body []byte, v *EpochRequest, maxJobs int) (ok, hasEpoch bool) {
	r := wirejson.NewReader(body)
	// A top-level null is valid for encoding/json; it is not worth a fast path.
	if !r.BeginObject() {
		return false, false
	}
	// A job takes about 250 bytes: enough room for all of them at once.
	hasEpoch = readEpochRequest(&r, v, min(len(body)/200, maxJobs), maxJobs)
	return r.AtEnd(), hasEpoch
}

// seen marks field bit i of a struct as read, failing r on a second
// occurrence: encoding/json merges duplicates, the fast path leaves them
// to it.
func seen(r *wirejson.Reader, mask *uint32, i uint) {
	if *mask&(1<<i) != 0 {
		r.Fail()
	}
	*mask |= 1 << i
}

// readEpochRequest reads the members of an EpochRequest after its '{'.
// sizeHint is the number of jobs to make room for.
func readEpochRequest(r *wirejson.Reader, v *EpochRequest, sizeHint, maxJobs int) (hasEpoch bool) {
	var mask uint32
	for i := 0; r.NextMember(i); i++ {
		switch string(r.Key()) {
		case "cluster":
			seen(r, &mask, 0)
			v.Cluster = r.String()
		case "epoch":
			seen(r, &mask, 1)
			if !r.Null() {
				v.Epoch = r.Int64()
				hasEpoch = true
			}
		case "now":
			seen(r, &mask, 2)
			v.Now = r.Float64()
		case "epoch_length":
			seen(r, &mask, 3)
			v.EpochLength = r.Float64()
		case "objective":
			seen(r, &mask, 4)
			v.Objective = r.String()
		case "policy":
			seen(r, &mask, 5)
			v.Policy = r.String()
		case "phase_policy":
			seen(r, &mask, 6)
			if r.BeginObject() {
				v.PhasePolicy = new(PhasePolicy)
				readPhasePolicy(r, v.PhasePolicy)
			}
		case "fair_variant":
			seen(r, &mask, 7)
			v.FairVariant = r.String()
		case "slots":
			seen(r, &mask, 8)
			if r.BeginObject() {
				readPhaseSlots(r, &v.Slots)
			}
		case "ratio":
			seen(r, &mask, 9)
			if r.BeginObject() {
				v.Ratio = new(RatioConfig)
				readRatioConfig(r, v.Ratio)
			}
		case "omo":
			seen(r, &mask, 10)
			if r.BeginObject() {
				v.OMO = new(OMOConfig)
				readOMOConfig(r, v.OMO)
			}
		case "released_slots":
			seen(r, &mask, 11)
			v.ReleasedSlots = r.Int()
		case "effort":
			seen(r, &mask, 13)
			if !r.Null() {
				e := r.Int()
				v.Effort = &e
			}
		case "estimate":
			seen(r, &mask, 14)
			if r.BeginObject() {
				v.Estimate = new(EstimateConfig)
				readEstimateConfig(r, v.Estimate)
			}
		case "plan":
			seen(r, &mask, 15)
			v.Plan = r.String()
		case "jobs":
			seen(r, &mask, 12)
			if r.BeginArray() {
				v.Jobs = readEpochJobs(r, sizeHint, maxJobs)
			}
		default:
			r.Fail()
		}
	}
	return hasEpoch
}

func readEstimateConfig(r *wirejson.Reader, v *EstimateConfig) {
	var mask uint32
	for i := 0; r.NextMember(i); i++ {
		switch string(r.Key()) {
		case "work":
			seen(r, &mask, 0)
			v.Work = r.String()
		case "default_task_time":
			seen(r, &mask, 1)
			v.DefaultTaskTime = r.Float64Ptr()
		case "min_one":
			seen(r, &mask, 2)
			v.MinOne = r.String()
		default:
			r.Fail()
		}
	}
}

func readPhasePolicy(r *wirejson.Reader, v *PhasePolicy) {
	var mask uint32
	for i := 0; r.NextMember(i); i++ {
		switch string(r.Key()) {
		case "map":
			seen(r, &mask, 0)
			v.Map = r.String()
		case "reduce":
			seen(r, &mask, 1)
			v.Reduce = r.String()
		default:
			r.Fail()
		}
	}
}

func readPhaseSlots(r *wirejson.Reader, v *PhaseSlots) {
	var mask uint32
	for i := 0; r.NextMember(i); i++ {
		switch string(r.Key()) {
		case "map":
			seen(r, &mask, 0)
			v.Map = r.Int()
		case "reduce":
			seen(r, &mask, 1)
			v.Reduce = r.Int()
		default:
			r.Fail()
		}
	}
}

func readRatioConfig(r *wirejson.Reader, v *RatioConfig) {
	var mask uint32
	for i := 0; r.NextMember(i); i++ {
		switch string(r.Key()) {
		case "mode":
			seen(r, &mask, 0)
			v.Mode = r.String()
		case "borrow_map":
			seen(r, &mask, 1)
			v.BorrowMap = r.Float64Ptr()
		case "borrow_reduce":
			seen(r, &mask, 2)
			v.BorrowReduce = r.Float64Ptr()
		case "tau1":
			seen(r, &mask, 3)
			v.Tau1 = r.Float64Ptr()
		case "tau2":
			seen(r, &mask, 4)
			v.Tau2 = r.Float64Ptr()
		case "reduce_slot_weight":
			seen(r, &mask, 5)
			v.ReduceSlotWeight = r.Float64()
		case "pools":
			seen(r, &mask, 6)
			if r.BeginArray() {
				v.Pools = []PoolConfig{}
				for k := 0; r.NextElement(k); k++ {
					var p PoolConfig
					if r.BeginObject() {
						readPoolConfig(r, &p)
					}
					v.Pools = append(v.Pools, p)
				}
			}
		default:
			r.Fail()
		}
	}
}

func readPoolConfig(r *wirejson.Reader, v *PoolConfig) {
	var mask uint32
	for i := 0; r.NextMember(i); i++ {
		switch string(r.Key()) {
		case "name":
			seen(r, &mask, 0)
			v.Name = r.String()
		case "weight":
			seen(r, &mask, 1)
			v.Weight = r.Float64()
		default:
			r.Fail()
		}
	}
}

func readOMOConfig(r *wirejson.Reader, v *OMOConfig) {
	var mask uint32
	for i := 0; r.NextMember(i); i++ {
		switch string(r.Key()) {
		case "lazy_start":
			seen(r, &mask, 0)
			v.LazyStart = r.Bool()
		case "batch_finish":
			seen(r, &mask, 1)
			v.BatchFinish = r.Bool()
		case "bandwidth":
			seen(r, &mask, 2)
			v.Bandwidth = r.Float64()
		case "ema_alpha":
			seen(r, &mask, 3)
			v.EMAAlpha = r.Float64()
		default:
			r.Fail()
		}
	}
}

// readEpochJobs reads the elements of the jobs array after its '[', making
// room for sizeHint jobs first; an empty array is an empty, non-nil slice,
// as in encoding/json.
func readEpochJobs(r *wirejson.Reader, sizeHint, maxJobs int) []EpochJob {
	jobs := make([]EpochJob, 0, sizeHint)
	// The jobs' phases and optional numbers are carved from shared
	// blocks: a few allocations instead of several per job.
	phases := slab[PhaseState]{size: 2 * sizeHint}
	floats := slab[float64]{size: 3 * sizeHint}
	floatPtr := func() *float64 {
		if r.Null() {
			return nil
		}
		p := floats.next()
		*p = r.Float64()
		return p
	}
	var pool, objective string
	for k := 0; r.NextElement(k); k++ {
		if k >= maxJobs {
			r.Fail()
			break
		}
		jobs = append(jobs, EpochJob{})
		j := &jobs[len(jobs)-1]
		if !r.BeginObject() {
			continue
		}
		var mask uint32
		for i := 0; r.NextMember(i); i++ {
			switch string(r.Key()) {
			case "id":
				seen(r, &mask, 0)
				j.ID = r.String()
			case "pool":
				seen(r, &mask, 1)
				j.Pool = r.StringReusing(pool)
				pool = j.Pool
			case "submitted":
				seen(r, &mask, 2)
				j.Submitted = r.Float64()
			case "weight":
				seen(r, &mask, 3)
				j.Weight = floatPtr()
			case "deadline":
				seen(r, &mask, 4)
				j.Deadline = floatPtr()
			case "sla":
				seen(r, &mask, 5)
				if r.BeginArray() {
					j.SLA = readSLA(r)
				}
			case "objective":
				seen(r, &mask, 6)
				j.Objective = r.StringReusing(objective)
				objective = j.Objective
			case "consumed_slot_seconds":
				seen(r, &mask, 7)
				j.ConsumedSlotSeconds = floatPtr()
			case "map":
				seen(r, &mask, 8)
				if r.BeginObject() {
					j.Map = phases.next()
					readPhaseState(r, j.Map)
				}
			case "reduce":
				seen(r, &mask, 9)
				if r.BeginObject() {
					j.Reduce = phases.next()
					readPhaseState(r, j.Reduce)
				}
			default:
				r.Fail()
			}
		}
	}
	return jobs
}

// slab hands out pointers to zero values carved from blocks of size
// values (clamped to [8, 512]): a full block is left where it is (its
// values are pointed at) and a fresh one started.
type slab[T any] struct {
	size  int
	block []T
}

func (s *slab[T]) next() *T {
	if len(s.block) == cap(s.block) {
		s.block = make([]T, 0, min(max(s.size, 8), 512))
	}
	s.block = s.block[:len(s.block)+1]
	return &s.block[len(s.block)-1]
}

func readSLA(r *wirejson.Reader) []SLAStep {
	steps := []SLAStep{}
	for k := 0; r.NextElement(k); k++ {
		var st SLAStep
		if r.BeginObject() {
			var mask uint32
			for i := 0; r.NextMember(i); i++ {
				switch string(r.Key()) {
				case "deadline":
					seen(r, &mask, 0)
					st.Deadline = r.Float64()
				case "penalty":
					seen(r, &mask, 1)
					st.Penalty = r.Float64()
				default:
					r.Fail()
				}
			}
		}
		steps = append(steps, st)
	}
	return steps
}

func readPhaseState(r *wirejson.Reader, v *PhaseState) {
	var mask uint32
	for i := 0; r.NextMember(i); i++ {
		switch string(r.Key()) {
		case "min":
			seen(r, &mask, 0)
			v.Min = r.Int()
		case "max":
			seen(r, &mask, 1)
			v.Max = r.Int()
		case "work":
			seen(r, &mask, 2)
			v.Work = r.Float64()
		case "total_work":
			seen(r, &mask, 3)
			v.TotalWork = r.Float64()
		case "pending":
			seen(r, &mask, 4)
			v.Pending = r.Int()
		case "running":
			seen(r, &mask, 5)
			v.Running = r.Int()
		case "tasks":
			seen(r, &mask, 6)
			v.Tasks = r.Int()
		case "avg_task_time":
			seen(r, &mask, 7)
			v.AvgTaskTime = r.Float64()
		case "output_bytes_per_task":
			seen(r, &mask, 8)
			v.OutputBytesPerTask = r.Float64()
		case "started":
			seen(r, &mask, 9)
			v.Started = r.BoolPtr()
		case "running_elapsed":
			seen(r, &mask, 10)
			v.RunningElapsed = r.Float64()
		default:
			r.Fail()
		}
	}
}

// errNotFinite is what encoding/json fails with on NaN and infinities,
// which JSON cannot carry.
func errNotFinite(field string, f float64) error {
	return &json.UnsupportedValueError{Str: fmt.Sprintf("%s: %v", field, f)}
}

// jsonWriter accumulates an encoding and the first non-finite number met.
type jsonWriter struct {
	b   []byte
	err error
	// keys is scratch space for sorting map keys.
	keys []string
}

func (w *jsonWriter) raw(s string) { w.b = append(w.b, s...) }

func (w *jsonWriter) str(s string) { w.b = wirejson.AppendString(w.b, s) }

func (w *jsonWriter) int(n int64) { w.b = wirejson.AppendInt(w.b, n) }

func (w *jsonWriter) bool(v bool) { w.b = wirejson.AppendBool(w.b, v) }

func (w *jsonWriter) float(field string, f float64) {
	if !wirejson.Finite(f) {
		if w.err == nil {
			w.err = errNotFinite(field, f)
		}
		f = 0
	}
	w.b = wirejson.AppendFloat(w.b, f)
}

// AppendJSON appends the request's JSON to b: byte for byte what
// encoding/json.Marshal writes, without its reflection. Like Marshal it
// fails on a NaN or infinite number.
func (v *EpochRequest) AppendJSON(b []byte) ([]byte, error) {
	w := jsonWriter{b: b}
	w.epochRequest(v)
	if w.err != nil {
		return b, fmt.Errorf("encoding an epoch request: %w", w.err)
	}
	return w.b, nil
}

func (w *jsonWriter) epochRequest(v *EpochRequest) {
	w.raw("{")
	if v.Cluster != "" {
		w.raw(`"cluster":`)
		w.str(v.Cluster)
		w.raw(",")
	}
	w.raw(`"epoch":`)
	w.int(v.Epoch)
	w.raw(`,"now":`)
	w.float("now", v.Now)
	w.raw(`,"epoch_length":`)
	w.float("epoch_length", v.EpochLength)
	if v.Objective != "" {
		w.raw(`,"objective":`)
		w.str(v.Objective)
	}
	if v.Policy != "" {
		w.raw(`,"policy":`)
		w.str(v.Policy)
	}
	if p := v.PhasePolicy; p != nil {
		w.raw(`,"phase_policy":{`)
		sep := ""
		if p.Map != "" {
			w.raw(`"map":`)
			w.str(p.Map)
			sep = ","
		}
		if p.Reduce != "" {
			w.raw(sep + `"reduce":`)
			w.str(p.Reduce)
		}
		w.raw("}")
	}
	if v.FairVariant != "" {
		w.raw(`,"fair_variant":`)
		w.str(v.FairVariant)
	}
	w.raw(`,"slots":`)
	w.phaseSlots(v.Slots)
	if rc := v.Ratio; rc != nil {
		w.raw(`,"ratio":`)
		w.ratioConfig(rc)
	}
	if o := v.OMO; o != nil {
		w.raw(`,"omo":{"lazy_start":`)
		w.bool(o.LazyStart)
		w.raw(`,"batch_finish":`)
		w.bool(o.BatchFinish)
		if o.Bandwidth != 0 {
			w.raw(`,"bandwidth":`)
			w.float("omo.bandwidth", o.Bandwidth)
		}
		if o.EMAAlpha != 0 {
			w.raw(`,"ema_alpha":`)
			w.float("omo.ema_alpha", o.EMAAlpha)
		}
		w.raw("}")
	}
	if v.ReleasedSlots != 0 {
		w.raw(`,"released_slots":`)
		w.int(int64(v.ReleasedSlots))
	}
	if v.Effort != nil {
		w.raw(`,"effort":`)
		w.int(int64(*v.Effort))
	}
	if e := v.Estimate; e != nil {
		w.raw(`,"estimate":{`)
		sep := ""
		if e.Work != "" {
			w.raw(`"work":`)
			w.str(e.Work)
			sep = ","
		}
		if e.DefaultTaskTime != nil {
			w.raw(sep + `"default_task_time":`)
			w.float("estimate.default_task_time", *e.DefaultTaskTime)
			sep = ","
		}
		if e.MinOne != "" {
			w.raw(sep + `"min_one":`)
			w.str(e.MinOne)
		}
		w.raw("}")
	}
	w.raw(`,"jobs":`)
	if v.Jobs == nil {
		w.raw("null")
	} else {
		w.raw("[")
		for i := range v.Jobs {
			if i > 0 {
				w.raw(",")
			}
			w.epochJob(&v.Jobs[i])
		}
		w.raw("]")
	}
	w.taskStateJSON(v)
	if v.Plan != "" {
		w.raw(`,"plan":`)
		w.str(v.Plan)
	}
	w.raw("}")
}

func (w *jsonWriter) phaseSlots(s PhaseSlots) {
	w.raw(`{"map":`)
	w.int(int64(s.Map))
	w.raw(`,"reduce":`)
	w.int(int64(s.Reduce))
	w.raw("}")
}

// optFloat writes ,"name":f for an omitempty float member after the first.
func (w *jsonWriter) optFloat(member, field string, f float64) {
	if f != 0 {
		w.raw(member)
		w.float(field, f)
	}
}

// ptrFloat writes ,"name":*f for an omitempty *float64 member after the first.
func (w *jsonWriter) ptrFloat(member, field string, f *float64) {
	if f != nil {
		w.raw(member)
		w.float(field, *f)
	}
}

func (w *jsonWriter) ratioConfig(rc *RatioConfig) {
	// Every member is optional: each writes the separator before it.
	sep := "{"
	member := func(name string) {
		w.raw(sep + `"` + name + `":`)
		sep = ","
	}
	if rc.Mode != "" {
		member("mode")
		w.str(rc.Mode)
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"borrow_map", rc.BorrowMap}, {"borrow_reduce", rc.BorrowReduce}, {"tau1", rc.Tau1}, {"tau2", rc.Tau2}} {
		if f.v != nil {
			member(f.name)
			w.float("ratio."+f.name, *f.v)
		}
	}
	if rc.ReduceSlotWeight != 0 {
		member("reduce_slot_weight")
		w.float("ratio.reduce_slot_weight", rc.ReduceSlotWeight)
	}
	if len(rc.Pools) > 0 {
		member("pools")
		w.raw("[")
		for i, p := range rc.Pools {
			if i > 0 {
				w.raw(",")
			}
			w.raw(`{"name":`)
			w.str(p.Name)
			w.optFloat(`,"weight":`, "ratio.pools.weight", p.Weight)
			w.raw("}")
		}
		w.raw("]")
	}
	if sep == "{" {
		w.raw("{")
	}
	w.raw("}")
}

func (w *jsonWriter) epochJob(j *EpochJob) {
	w.raw(`{"id":`)
	w.str(j.ID)
	if j.Pool != "" {
		w.raw(`,"pool":`)
		w.str(j.Pool)
	}
	w.raw(`,"submitted":`)
	w.float("jobs.submitted", j.Submitted)
	w.ptrFloat(`,"weight":`, "jobs.weight", j.Weight)
	w.ptrFloat(`,"deadline":`, "jobs.deadline", j.Deadline)
	if len(j.SLA) > 0 {
		w.raw(`,"sla":[`)
		for i, s := range j.SLA {
			if i > 0 {
				w.raw(",")
			}
			w.raw(`{"deadline":`)
			w.float("jobs.sla.deadline", s.Deadline)
			w.raw(`,"penalty":`)
			w.float("jobs.sla.penalty", s.Penalty)
			w.raw("}")
		}
		w.raw("]")
	}
	if j.Objective != "" {
		w.raw(`,"objective":`)
		w.str(j.Objective)
	}
	w.ptrFloat(`,"consumed_slot_seconds":`, "jobs.consumed_slot_seconds", j.ConsumedSlotSeconds)
	if j.Map != nil {
		w.raw(`,"map":`)
		w.phaseState(j.Map)
	}
	if j.Reduce != nil {
		w.raw(`,"reduce":`)
		w.phaseState(j.Reduce)
	}
	w.raw("}")
}

func (w *jsonWriter) phaseState(p *PhaseState) {
	w.raw(`{"min":`)
	w.int(int64(p.Min))
	w.raw(`,"max":`)
	w.int(int64(p.Max))
	w.raw(`,"work":`)
	w.float("jobs.work", p.Work)
	w.optFloat(`,"total_work":`, "jobs.total_work", p.TotalWork)
	if p.Pending != 0 {
		w.raw(`,"pending":`)
		w.int(int64(p.Pending))
	}
	if p.Running != 0 {
		w.raw(`,"running":`)
		w.int(int64(p.Running))
	}
	if p.Tasks != 0 {
		w.raw(`,"tasks":`)
		w.int(int64(p.Tasks))
	}
	w.optFloat(`,"avg_task_time":`, "jobs.avg_task_time", p.AvgTaskTime)
	w.optFloat(`,"output_bytes_per_task":`, "jobs.output_bytes_per_task", p.OutputBytesPerTask)
	if p.Started != nil {
		w.raw(`,"started":`)
		w.bool(*p.Started)
	}
	w.optFloat(`,"running_elapsed":`, "jobs.running_elapsed", p.RunningElapsed)
	if len(p.LocalPending) > 0 {
		// A map, keys sorted: encoding/json's form.
		b, err := json.Marshal(p.LocalPending)
		if err != nil && w.err == nil {
			w.err = err
		}
		w.raw(`,"local_pending":`)
		w.b = append(w.b, b...)
	}
	w.raw("}")
}

// AppendJSON appends the decision's JSON to b: byte for byte what
// encoding/json.Marshal writes, without its reflection. Like Marshal it
// fails on a NaN or infinite number.
func (v *EpochResponse) AppendJSON(b []byte) ([]byte, error) {
	w := jsonWriter{b: b}
	w.epochResponse(v)
	if w.err != nil {
		return b, fmt.Errorf("encoding an epoch decision: %w", w.err)
	}
	return w.b, nil
}

func (w *jsonWriter) epochResponse(v *EpochResponse) {
	w.raw(`{"cluster":`)
	w.str(v.Cluster)
	w.raw(`,"epoch":`)
	w.int(v.Epoch)
	w.raw(`,"decision_id":`)
	w.str(v.DecisionID)
	w.raw(`,"budgets":`)
	w.budgets(&v.Budgets)
	w.raw(`,"phases":`)
	w.epochPhases(&v.Phases)
	if len(v.PoolPhases) > 0 {
		w.raw(`,"pool_phases":`)
		w.b, w.keys = wirejson.AppendMap(w.b, v.PoolPhases, w.keys, func(b []byte, ph EpochPhases) []byte {
			// A nested writer: the outer one's key scratch is in use.
			inner := jsonWriter{b: b}
			inner.epochPhases(&ph)
			if inner.err != nil && w.err == nil {
				w.err = inner.err
			}
			return inner.b
		})
	}
	if o := v.OMO; o != nil {
		w.raw(`,"omo":{"start_reduce":`)
		w.b = wirejson.AppendStrings(w.b, o.StartReduce)
		if o.BatchFinish != "" {
			w.raw(`,"batch_finish":`)
			w.str(o.BatchFinish)
		}
		w.raw(`,"release_rate":`)
		w.float("omo.release_rate", o.ReleaseRate)
		w.raw(`,"available_slots":`)
		w.float("omo.available_slots", o.AvailableSlots)
		w.raw("}")
	}
	w.raw(`,"allocations":`)
	if v.Allocations == nil {
		w.raw("null")
	} else {
		w.raw("[")
		for i := range v.Allocations {
			a := &v.Allocations[i]
			if i > 0 {
				w.raw(",")
			}
			w.raw(`{"id":`)
			w.str(a.ID)
			w.raw(`,"map":`)
			w.int(int64(a.Map))
			w.raw(`,"reduce":`)
			w.int(int64(a.Reduce))
			w.raw(`,"map_reason":`)
			w.str(a.MapReason)
			w.raw(`,"reduce_reason":`)
			w.str(a.ReduceReason)
			w.raw("}")
		}
		w.raw("]")
	}
	w.ptrFloat(`,"fairness":`, "fairness", v.Fairness)
	w.raw(`,"why":`)
	w.b = wirejson.AppendStrings(w.b, v.Why)
	if len(v.Estimates) > 0 {
		w.raw(`,"estimates":[`)
		for i := range v.Estimates {
			e := &v.Estimates[i]
			if i > 0 {
				w.raw(",")
			}
			w.raw(`{"id":`)
			w.str(e.ID)
			w.phaseEstimate(`,"map":`, e.Map)
			w.phaseEstimate(`,"reduce":`, e.Reduce)
			w.raw("}")
		}
		w.raw("]")
	}
	if v.Speculation != nil {
		// The advice is not on a plain epoch's path: encoding/json.
		b, err := json.Marshal(v.Speculation)
		if err != nil && w.err == nil {
			w.err = err
		}
		w.raw(`,"speculation":`)
		w.b = append(w.b, b...)
	}
	if v.Preschedule != nil {
		b, err := json.Marshal(v.Preschedule)
		if err != nil && w.err == nil {
			w.err = err
		}
		w.raw(`,"preschedule":`)
		w.b = append(w.b, b...)
	}
	w.raw("}")
}

func (w *jsonWriter) phaseEstimate(member string, p *PhaseEstimate) {
	if p == nil {
		return
	}
	w.raw(member + `{"work":`)
	w.float("estimates.work", p.Work)
	w.raw(`,"source":`)
	w.str(p.Source)
	w.raw(`,"task_time":`)
	w.float("estimates.task_time", p.TaskTime)
	w.raw(`,"tasks_left":`)
	w.int(int64(p.TasksLeft))
	w.raw(`,"min_raised":`)
	w.bool(p.MinRaised)
	w.raw("}")
}

func (w *jsonWriter) budgets(b *Budgets) {
	w.raw(`{"mode":`)
	w.str(b.Mode)
	w.raw(`,"map":`)
	w.int(int64(b.Map))
	w.raw(`,"reduce":`)
	w.int(int64(b.Reduce))
	w.raw(`,"borrowed":{"reduce_to_map":`)
	w.int(int64(b.Borrowed.ReduceToMap))
	w.raw(`,"map_to_reduce":`)
	w.int(int64(b.Borrowed.MapToReduce))
	w.raw(`},"pools":`)
	w.b, w.keys = wirejson.AppendMap(w.b, b.Pools, w.keys, func(b []byte, s PhaseSlots) []byte {
		b = append(b, `{"map":`...)
		b = wirejson.AppendInt(b, int64(s.Map))
		b = append(b, `,"reduce":`...)
		b = wirejson.AppendInt(b, int64(s.Reduce))
		return append(b, '}')
	})
	w.raw(`,"theta":`)
	w.float("budgets.theta", b.Theta)
	w.raw("}")
}

func (w *jsonWriter) epochPhases(p *EpochPhases) {
	w.raw(`{"map":`)
	w.solveResponse(&p.Map)
	w.raw(`,"reduce":`)
	w.solveResponse(&p.Reduce)
	w.raw("}")
}

func (w *jsonWriter) solveResponse(s *SolveResponse) {
	w.raw(`{"policy":`)
	w.str(s.Policy)
	w.raw(`,"objective":{"metric":`)
	w.str(s.Objective.Metric)
	w.raw(`,"aggregate":`)
	w.str(s.Objective.Aggregate)
	w.raw(`,"value":`)
	w.float("objective.value", s.Objective.Value)
	w.raw(`,"mean":`)
	w.float("objective.mean", s.Objective.Mean)
	w.raw(`},"allocations":`)
	if s.Allocations == nil {
		w.raw("null")
	} else {
		w.raw("[")
		for i := range s.Allocations {
			a := &s.Allocations[i]
			if i > 0 {
				w.raw(",")
			}
			w.raw(`{"id":`)
			w.str(a.ID)
			w.raw(`,"slots":`)
			w.int(int64(a.Slots))
			w.raw(`,"reason":`)
			w.str(a.Reason)
			w.raw("}")
		}
		w.raw("]")
	}
	w.raw(`,"plan":`)
	w.plan(&s.Plan)
	w.raw(`,"ordering":{"scheme":`)
	w.str(s.Ordering.Scheme)
	w.raw(`,"jobs":`)
	w.b = wirejson.AppendStrings(w.b, s.Ordering.Jobs)
	w.raw(`},"normalized_minima":`)
	w.bool(s.NormalizedMinima)
	if ex := s.Explain; ex != nil {
		w.raw(`,"explain":{"candidates":`)
		if ex.Candidates == nil {
			w.raw("null")
		} else {
			w.raw("[")
			for i, c := range ex.Candidates {
				if i > 0 {
					w.raw(",")
				}
				w.raw(`{"scheme":`)
				w.str(c.Scheme)
				w.raw(`,"value":`)
				w.float("explain.candidates.value", c.Value)
				w.raw("}")
			}
			w.raw("]")
		}
		if len(ex.FairShares) > 0 {
			w.raw(`,"fair_shares":`)
			w.b, w.keys = wirejson.AppendMap(w.b, ex.FairShares, w.keys, w.floatValue("explain.fair_shares"))
		}
		w.raw("}")
	}
	w.raw(`,"solve_micros":`)
	w.int(s.SolveMicros)
	w.raw("}")
}

// floatValue is an AppendMap value writer for floats, recording a
// non-finite one as the writer's error.
func (w *jsonWriter) floatValue(field string) func([]byte, float64) []byte {
	return func(b []byte, f float64) []byte {
		if !wirejson.Finite(f) {
			if w.err == nil {
				w.err = errNotFinite(field, f)
			}
			f = 0
		}
		return wirejson.AppendFloat(b, f)
	}
}

func appendIntValue(b []byte, n int) []byte { return wirejson.AppendInt(b, int64(n)) }

func (w *jsonWriter) plan(p *Plan) {
	w.raw(`{"encoding":`)
	w.str(p.Encoding)
	w.raw(`,"intervals":`)
	if p.Intervals == nil {
		w.raw("null")
	} else {
		w.raw("[")
		for i := range p.Intervals {
			iv := &p.Intervals[i]
			if i > 0 {
				w.raw(",")
			}
			w.raw(`{"start":`)
			w.float("plan.intervals.start", iv.Start)
			w.raw(`,"end":`)
			w.float("plan.intervals.end", iv.End)
			w.raw(`,"slots":`)
			w.b, w.keys = wirejson.AppendMap(w.b, iv.Slots, w.keys, appendIntValue)
			w.raw("}")
		}
		w.raw("]")
	}
	w.raw(`,"completions":`)
	w.b, w.keys = wirejson.AppendMap(w.b, p.Completions, w.keys, w.floatValue("plan.completions"))
	w.raw("}")
}
