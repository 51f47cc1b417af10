package httpapi_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/plan"
)

// dhsaBody is an epoch whose map phase is overloaded (50 tasks on 10 map
// slots) and whose reduce phase is nearly idle (1 task on 10 reduce
// slots), so every fungible mode moves reduce slots to map. RATIO is
// replaced by the ratio member.
const dhsaBody = `{"epoch": 1, "now": 100, "epoch_length": 1, "slots": {"map": 10, "reduce": 10}, RATIO
	"jobs": [
	{"id": "job_1", "pool": "a", "submitted": 0, "map": {"min": 1, "max": 30, "work": 400, "pending": 30, "running": 0, "tasks": 30}},
	{"id": "job_2", "pool": "b", "submitted": 10, "map": {"min": 0, "max": 20, "work": 50, "pending": 20, "running": 0},
	 "reduce": {"min": 1, "max": 2, "work": 30, "pending": 1, "tasks": 1, "started": true}}]}`

func dhsa(ratio string) string {
	if ratio != "" {
		ratio += ","
	}
	return strings.Replace(dhsaBody, "RATIO", ratio, 1)
}

// postEpoch posts body to cluster c, checks the answer against the spec
// and decodes it (with its raw members, to see what is present).
func postEpoch(t *testing.T, e *env, c, body string) (httpapi.EpochResponse, map[string]json.RawMessage) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v1/clusters/"+c+"/epochs", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200; body %.1000s", rec.Code, rec.Body.Bytes())
	}
	checkContract(t, specRouter(t), req, rec)
	var resp httpapi.EpochResponse
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatalf("decoding %s: %v", rec.Body.Bytes(), err)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
		t.Fatalf("decoding %s: %v", rec.Body.Bytes(), err)
	}
	return resp, raw
}

// TestEpochRatioModes: every ratio mode through POST .../epochs answers
// its budgets in the documented shape (checked against api/openapi.yaml),
// and the request's ratio settings reach the ratio stage.
func TestEpochRatioModes(t *testing.T) {
	type budget struct{ m, r, r2m, m2r int }
	cases := []struct {
		name  string
		body  string
		mode  string
		want  budget
		pools map[string]httpapi.PhaseSlots // nil: budgets.pools must be {}
		check func(t *testing.T, resp httpapi.EpochResponse)
	}{
		{name: "default is static", body: dhsa(""), mode: "static", want: budget{10, 10, 0, 0}},
		{name: "static", body: dhsa(`"ratio": {"mode": "static"}`), mode: "static", want: budget{10, 10, 0, 0}},
		// DynamicMR case 4: map borrows floor(pct x 9 unused reduce slots).
		{name: "pi_dhsa", body: dhsa(`"ratio": {"mode": "pi_dhsa"}`), mode: "pi_dhsa", want: budget{19, 1, 9, 0}},
		{name: "pi_dhsa borrow_reduce", body: dhsa(`"ratio": {"mode": "pi_dhsa", "borrow_reduce": 0.5}`), mode: "pi_dhsa", want: budget{14, 6, 4, 0}},
		{name: "pi_dhsa borrow_reduce 0", body: dhsa(`"ratio": {"mode": "pi_dhsa", "borrow_reduce": 0}`), mode: "pi_dhsa", want: budget{10, 10, 0, 0}},
		{name: "pi_dhsa null borrow is default", body: dhsa(`"ratio": {"mode": "pi_dhsa", "borrow_map": null, "borrow_reduce": null}`), mode: "pi_dhsa", want: budget{19, 1, 9, 0}},
		// Each of the 9 lent reduce slots is worth 2 map slots.
		{name: "pi_dhsa reduce_slot_weight", body: dhsa(`"ratio": {"mode": "pi_dhsa", "reduce_slot_weight": 2}`), mode: "pi_dhsa", want: budget{28, 1, 9, 0}},
		{
			name: "pd_dhsa undeclared pools", body: dhsa(`"ratio": {"mode": "pd_dhsa"}`), mode: "pd_dhsa", want: budget{19, 1, 9, 0},
			pools: map[string]httpapi.PhaseSlots{"a": {Map: 10, Reduce: 0}, "b": {Map: 9, Reduce: 1}},
			check: checkPoolPhases,
		},
		{
			name: "pd_dhsa weighted pools", body: dhsa(`"ratio": {"mode": "pd_dhsa", "pools": [{"name": "a"}, {"name": "b", "weight": 3}]}`), mode: "pd_dhsa", want: budget{19, 1, 9, 0},
			pools: map[string]httpapi.PhaseSlots{"a": {Map: 6, Reduce: 0}, "b": {Map: 13, Reduce: 1}},
			check: checkPoolPhases,
		},
		{
			// All 20 slots are fungible; the reduce phase has 30 of 430
			// slot-seconds left, so theta is high and map takes most.
			name: "fresh", body: dhsa(`"ratio": {"mode": "fresh", "tau1": 0.9, "tau2": 0.5}`), mode: "fresh", want: budget{-1, -1, -1, -1},
			check: func(t *testing.T, resp httpapi.EpochResponse) {
				b := resp.Budgets
				if b.Map+b.Reduce != 20 {
					t.Errorf("fresh budgets %d + %d, want all 20 slots", b.Map, b.Reduce)
				}
				if !(b.Theta > 0.5 && b.Theta <= 1) {
					t.Errorf("theta = %v, want the map phase's large share in (0.5, 1]", b.Theta)
				}
				if want := int(math.Round(b.Theta * 20)); abs(b.Map-want) > 1 {
					t.Errorf("map budget %d, want about theta x 20 = %d", b.Map, want)
				}
			},
		},
	}
	e := newEnv(t, nil)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, raw := postEpoch(t, e, fmt.Sprintf("modes%d", i), c.body)
			b := resp.Budgets
			if b.Mode != c.mode {
				t.Errorf("budgets.mode = %q, want %q", b.Mode, c.mode)
			}
			if c.want.m >= 0 {
				got := budget{b.Map, b.Reduce, b.Borrowed.ReduceToMap, b.Borrowed.MapToReduce}
				if got != c.want {
					t.Errorf("budgets (map, reduce, reduce_to_map, map_to_reduce) = %v, want %v", got, c.want)
				}
			}
			if c.mode != "fresh" && b.Theta != 0 {
				t.Errorf("theta = %v outside fresh, want 0", b.Theta)
			}
			if c.pools == nil {
				var budgets map[string]json.RawMessage
				if err := json.Unmarshal(raw["budgets"], &budgets); err != nil {
					t.Fatal(err)
				}
				if string(budgets["pools"]) != "{}" {
					t.Errorf("budgets.pools = %s, want {}", budgets["pools"])
				}
				if _, ok := raw["pool_phases"]; ok {
					t.Errorf("pool_phases present outside pd_dhsa")
				}
			} else if !maps.Equal(b.Pools, c.pools) {
				t.Errorf("budgets.pools = %v, want %v", b.Pools, c.pools)
			}
			if c.mode != "static" && len(resp.Why) == 0 {
				t.Errorf("why is empty for mode %s", c.mode)
			}
			if _, ok := raw["omo"]; ok {
				t.Errorf("omo present with OMO off")
			}
			// The phases' policies shared exactly the budgets out.
			if s := sumSlots(resp.Phases.Map); s > b.Map {
				t.Errorf("map allocations total %d over the budget %d", s, b.Map)
			}
			if s := sumSlots(resp.Phases.Reduce); s > b.Reduce {
				t.Errorf("reduce allocations total %d over the budget %d", s, b.Reduce)
			}
			if c.check != nil {
				c.check(t, resp)
			}
		})
	}
}

// checkPoolPhases: pd_dhsa answers each pool's phases, each within its
// pool's budget, and a merged map phase spanning both pools.
func checkPoolPhases(t *testing.T, resp httpapi.EpochResponse) {
	t.Helper()
	if got, want := slices.Sorted(maps.Keys(resp.PoolPhases)), slices.Sorted(maps.Keys(resp.Budgets.Pools)); !slices.Equal(got, want) {
		t.Fatalf("pool_phases pools %v, want the budgeted pools %v", got, want)
	}
	for name, ph := range resp.PoolPhases {
		pb := resp.Budgets.Pools[name]
		if s := sumSlots(ph.Map); s > pb.Map || s == 0 {
			t.Errorf("pool %s map allocations total %d, want 1..%d", name, s, pb.Map)
		}
		if s := sumSlots(ph.Reduce); s > pb.Reduce {
			t.Errorf("pool %s reduce allocations total %d, over %d", name, s, pb.Reduce)
		}
	}
	if got := resp.Phases.Map.Ordering.Scheme; got != "per_pool" {
		t.Errorf("merged map phase ordering scheme %q, want per_pool", got)
	}
}

func sumSlots(r httpapi.SolveResponse) int {
	s := 0
	for _, a := range r.Allocations {
		s += a.Slots
	}
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// omoBody is a fresh-mode epoch with OMO on. job_1 has 20 pending map
// tasks and a short shuffle: lazy start holds its reduce phase. job_2 has
// 2 pending map tasks and a long shuffle (1e9 bytes x 30 map tasks over 2
// reduce tasks at 1e8 B/s = 150 s): its reduce phase starts now. job_3's
// reduce phase has started and 5 map tasks are pending: finishing them in a
// batch gains time (Eq. 4.4-4.5). Running map tasks total 12, the
// available slots; released_slots / epoch_length = 4/s.
const omoBody = `{"epoch": EPOCH, "now": 100, "epoch_length": 1, "released_slots": RELEASED,
	"slots": {"map": 10, "reduce": 10}, "ratio": {"mode": "fresh"},
	"omo": {"lazy_start": true, "batch_finish": true, "bandwidth": 1e8, "ema_alpha": 0.5},
	"jobs": [
	{"id": "job_1", "submitted": 0, "map": {"min": 1, "max": 30, "work": 400, "pending": 20, "running": 10, "tasks": 40, "avg_task_time": 10, "output_bytes_per_task": 1e8},
	 "reduce": {"min": 1, "max": 5, "work": 100, "pending": 5, "tasks": 5, "started": false}},
	{"id": "job_2", "submitted": 10, "map": {"min": 0, "max": 20, "work": 20, "pending": 2, "running": 1, "tasks": 30, "avg_task_time": 10, "output_bytes_per_task": 1e9},
	 "reduce": {"min": 1, "max": 2, "work": 30, "pending": 2, "tasks": 2, "started": false}},
	{"id": "job_3", "submitted": 20, "map": {"min": 0, "max": 20, "work": 50, "pending": 5, "running": 1, "tasks": 10, "avg_task_time": 10},
	 "reduce": {"min": 1, "max": 2, "work": 30, "pending": 2, "tasks": 2, "started": true}}]}`

func omoEpoch(n, released int) string {
	return strings.NewReplacer("EPOCH", fmt.Sprint(n), "RELEASED", fmt.Sprint(released)).Replace(omoBody)
}

// TestEpochOMO: with OMO on the decision carries OMO's choices and its
// moving averages (Eq. 4.1 with alpha 0.5 across epochs), the held reduce
// phase answers reason "held", and the next epoch's averages continue from
// this one's.
func TestEpochOMO(t *testing.T) {
	e := newEnv(t, nil)
	resp, raw := postEpoch(t, e, "omo", omoEpoch(1, 4))
	if _, ok := raw["omo"]; !ok || resp.OMO == nil {
		t.Fatalf("omo missing with OMO on: %s", raw["omo"])
	}
	o := resp.OMO
	if !slices.Equal(o.StartReduce, []string{"job_2"}) {
		t.Errorf("start_reduce = %v, want [job_2]", o.StartReduce)
	}
	if o.BatchFinish != "job_3" {
		t.Errorf("batch_finish = %q, want job_3", o.BatchFinish)
	}
	// The first window seeds the averages: 4 released / 1 s, 12 running.
	if o.ReleaseRate != 4 || o.AvailableSlots != 12 {
		t.Errorf("release_rate, available_slots = %v, %v; want 4, 12", o.ReleaseRate, o.AvailableSlots)
	}
	reasons := map[string]string{}
	for _, a := range resp.Allocations {
		reasons[a.ID] = a.ReduceReason
	}
	if reasons["job_1"] != string(epoch.ReasonHeld) {
		t.Errorf("job_1 reduce_reason = %q, want held", reasons["job_1"])
	}
	if reasons["job_2"] == string(epoch.ReasonHeld) || reasons["job_3"] == string(epoch.ReasonHeld) {
		t.Errorf("a started reduce phase is held: %v", reasons)
	}

	// Epoch 2 releases 8: F = 0.5 x 8 + 0.5 x 4 = 6; A stays 12.
	resp, _ = postEpoch(t, e, "omo", omoEpoch(2, 8))
	if resp.OMO == nil || resp.OMO.ReleaseRate != 6 || resp.OMO.AvailableSlots != 12 {
		t.Errorf("epoch 2 omo = %+v, want release_rate 6, available_slots 12", resp.OMO)
	}

	// OMO also runs on DHSA's fungible slots; switched off, it is absent.
	resp, _ = postEpoch(t, e, "omo-pi", strings.Replace(omoEpoch(1, 4), `"mode": "fresh"`, `"mode": "pi_dhsa"`, 1))
	if resp.OMO == nil || resp.OMO.ReleaseRate != 4 {
		t.Errorf("pi_dhsa with OMO: omo = %+v", resp.OMO)
	}
	off := strings.Replace(omoEpoch(1, 4), `"lazy_start": true, "batch_finish": true`, `"lazy_start": false, "batch_finish": false`, 1)
	if _, raw := postEpoch(t, e, "omo-off", off); raw["omo"] != nil {
		t.Errorf("omo present with OMO off: %s", raw["omo"])
	}
}

// TestEpochRatioBadInput: bad ratio and OMO settings answer 422 naming the
// field, never a 5xx or a "not implemented".
func TestEpochRatioBadInput(t *testing.T) {
	cases := map[string]struct {
		body  string
		field string
	}{
		"borrow_map above 1":      {dhsa(`"ratio": {"mode": "pi_dhsa", "borrow_map": 1.5}`), "ratio.borrow_map"},
		"borrow_reduce negative":  {dhsa(`"ratio": {"mode": "pi_dhsa", "borrow_reduce": -0.1}`), "ratio.borrow_reduce"},
		"tau1 zero":               {dhsa(`"ratio": {"mode": "fresh", "tau1": 0}`), "ratio.tau1"},
		"tau1 above 1":            {dhsa(`"ratio": {"mode": "fresh", "tau1": 1.2}`), "ratio.tau1"},
		"tau2 negative":           {dhsa(`"ratio": {"mode": "fresh", "tau2": -1}`), "ratio.tau2"},
		"reduce_slot_weight":      {dhsa(`"ratio": {"mode": "pi_dhsa", "reduce_slot_weight": -2}`), "ratio.reduce_slot_weight"},
		"unknown mode":            {dhsa(`"ratio": {"mode": "magic"}`), "ratio.mode"},
		"duplicate pool":          {dhsa(`"ratio": {"mode": "pd_dhsa", "pools": [{"name": "a"}, {"name": "a"}, {"name": "b"}]}`), "ratio.pools[1].name"},
		"negative pool weight":    {dhsa(`"ratio": {"mode": "pd_dhsa", "pools": [{"name": "a", "weight": -1}, {"name": "b"}]}`), "ratio.pools[0].weight"},
		"unknown pool reference":  {dhsa(`"ratio": {"mode": "pd_dhsa", "pools": [{"name": "b"}]}`), "jobs[0].pool"},
		"negative bandwidth":      {dhsa(`"ratio": {"mode": "fresh"}, "omo": {"batch_finish": true, "bandwidth": -1}`), "omo.bandwidth"},
		"lazy start without bw":   {dhsa(`"ratio": {"mode": "fresh"}, "omo": {"lazy_start": true}`), "omo.bandwidth"},
		"ema_alpha above 1":       {dhsa(`"ratio": {"mode": "fresh"}, "omo": {"batch_finish": true, "ema_alpha": 2}`), "omo.ema_alpha"},
		"omo on a static split":   {dhsa(`"omo": {"lazy_start": true, "bandwidth": 1e8}`), "omo"},
		"omo on explicit static":  {dhsa(`"ratio": {"mode": "static"}, "omo": {"batch_finish": true}`), "omo"},
		"pool name empty":         {dhsa(`"ratio": {"mode": "pd_dhsa", "pools": [{"name": ""}, {"name": "a"}, {"name": "b"}]}`), "ratio.pools[0].name"},
		"pools wrong type is 400": {dhsa(`"ratio": {"mode": "pd_dhsa", "pools": {"a": 1}}`), "ratio.pools"},
	}
	e := newEnv(t, nil)
	router := specRouter(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/v1/clusters/bad/epochs", strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			e.srv.ServeHTTP(rec, req)
			want := http.StatusUnprocessableEntity
			if strings.HasSuffix(name, "is 400") {
				want = http.StatusBadRequest
			}
			if rec.Code != want {
				t.Fatalf("status %d, want %d; body %.500s", rec.Code, want, rec.Body.Bytes())
			}
			checkContract(t, router, req, rec)
			p := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}.problem(t)
			var fields []string
			for _, f := range p.Errors {
				fields = append(fields, f.Field)
				if strings.Contains(strings.ToLower(f.Message), "not implemented") {
					t.Errorf("%s: %q", f.Field, f.Message)
				}
			}
			if !slices.Contains(fields, c.field) {
				t.Errorf("problem lists %v, want %q among them", fields, c.field)
			}
		})
	}
}

// TestEpochRequestDomain: every ratio and OMO field of the wire request
// reaches epoch.Request, and absent optional ones stay nil or zero (epoch
// applies the defaults).
func TestEpochRequestDomain(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	cases := map[string]struct {
		body  string
		ratio epoch.Ratio
		omo   epoch.OMO
	}{
		"absent": {`{}`, epoch.Ratio{}, epoch.OMO{}},
		"every field": {
			`{"ratio": {"mode": "pd_dhsa", "borrow_map": 0.25, "borrow_reduce": 0.75, "tau1": 0.9, "tau2": 0.4,
			  "reduce_slot_weight": 1.5, "pools": [{"name": "a", "weight": 2}, {"name": "b"}]},
			  "omo": {"lazy_start": true, "batch_finish": true, "bandwidth": 1e6, "ema_alpha": 0.2}}`,
			epoch.Ratio{Mode: "pd_dhsa", BorrowMap: f(0.25), BorrowReduce: f(0.75), Tau1: f(0.9), Tau2: f(0.4),
				ReduceSlotWeight: 1.5, Pools: []epoch.Pool{{Name: "a", Weight: 2}, {Name: "b"}}},
			epoch.OMO{LazyStart: true, BatchFinish: true, Bandwidth: 1e6, EMAAlpha: 0.2},
		},
		"borrow absent stays nil": {`{"ratio": {"mode": "pi_dhsa"}}`, epoch.Ratio{Mode: "pi_dhsa"}, epoch.OMO{}},
		"explicit zero borrow":    {`{"ratio": {"borrow_map": 0}}`, epoch.Ratio{BorrowMap: f(0)}, epoch.OMO{}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var w httpapi.EpochRequest
			if err := json.Unmarshal([]byte(c.body), &w); err != nil {
				t.Fatal(err)
			}
			got := w.Domain()
			if g, w := fmt.Sprintf("%+v", deref(got.Ratio)), fmt.Sprintf("%+v", deref(c.ratio)); g != w {
				t.Errorf("ratio = %s, want %s", g, w)
			}
			if got.OMO != c.omo {
				t.Errorf("omo = %+v, want %+v", got.OMO, c.omo)
			}
		})
	}
}

// deref shows a Ratio's pointers by value (nil as <nil>) for comparison.
func deref(r epoch.Ratio) []any {
	p := func(x *float64) any {
		if x == nil {
			return nil
		}
		return *x
	}
	return []any{r.Mode, p(r.BorrowMap), p(r.BorrowReduce), p(r.Tau1), p(r.Tau2), r.ReduceSlotWeight, r.Pools}
}

// TestPlanSlotConfig: POST /v1/plan/slot-config answers plan.SlotConfig's
// result (the best split, its makespan, the whole curve), bad values 422
// naming the field, malformed bodies 400; all as api/openapi.yaml says.
func TestPlanSlotConfig(t *testing.T) {
	e := newEnv(t, nil)
	router := specRouter(t)
	post := func(t *testing.T, body string) response {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "/v1/plan/slot-config", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, req)
		checkContract(t, router, req, rec)
		return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	}

	t.Run("best split", func(t *testing.T) {
		res := post(t, planBody)
		if res.status != http.StatusOK {
			t.Fatalf("status %d; body %s", res.status, res.body)
		}
		var got plan.SlotConfigResponse
		res.decode(t, &got)
		var in plan.SlotConfigRequest
		if err := json.Unmarshal([]byte(planBody), &in); err != nil {
			t.Fatal(err)
		}
		want, err := plan.SlotConfig(in)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("answer %+v, want plan.SlotConfig's %+v", got, want)
		}
		// The answer is the curve's minimum, fewest map slots on a tie,
		// and the curve covers every split of the 6 slots.
		if len(got.Curve) != in.Slots-1 {
			t.Fatalf("curve has %d points, want %d", len(got.Curve), in.Slots-1)
		}
		best := got.Curve[0]
		for i, p := range got.Curve {
			if p.MapSlots != i+1 || p.MapSlots+p.ReduceSlots != in.Slots {
				t.Errorf("curve[%d] = %+v, want map %d of %d slots", i, p, i+1, in.Slots)
			}
			if p.Makespan < best.Makespan {
				best = p
			}
		}
		if got.MapSlots != best.MapSlots || got.ReduceSlots != best.ReduceSlots || got.Makespan != best.Makespan || !(got.Makespan > 0) {
			t.Errorf("answer %d/%d in %v, want the curve's minimum %+v", got.MapSlots, got.ReduceSlots, got.Makespan, best)
		}
	})

	bad := map[string]struct {
		body   string
		status int
		fields []string
	}{
		"malformed":       {`{"slots": 6,`, 400, nil},
		"wrong type":      {`{"slots": "six", "k": 1, "jobs": []}`, 400, []string{"slots"}},
		"unknown field":   {`{"slots": 6, "k": 1, "jobs": [{"map_taskz": 1}]}`, 400, []string{"jobs[0].map_taskz"}},
		"too few slots":   {`{"slots": 1, "k": 1, "jobs": [{"map_tasks": 1, "map_time": 1}]}`, 422, []string{"slots"}},
		"every problem":   {`{"slots": 0, "k": 0, "jobs": []}`, 422, []string{"slots", "k", "jobs"}},
		"negative values": {`{"slots": 4, "k": 1, "jobs": [{"map_tasks": 1, "map_time": -1}, {"reduce_tasks": -2}]}`, 422, []string{"jobs[0].map_time", "jobs[1].reduce_tasks"}},
		"over the limits": {fmt.Sprintf(`{"slots": %d, "k": 1, "jobs": [{"map_tasks": 1}]}`, plan.MaxSlots+1), 422, []string{"slots"}},
		"work overflows":  {`{"slots": 4, "k": 1, "jobs": [{"map_tasks": 1000000000, "map_time": 1.7e308}]}`, 422, []string{"jobs[0].map_time"}},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			res := post(t, c.body)
			if res.status != c.status {
				t.Fatalf("status %d, want %d; body %s", res.status, c.status, res.body)
			}
			p := res.problem(t)
			var fields []string
			for _, f := range p.Errors {
				fields = append(fields, f.Field)
			}
			for _, f := range c.fields {
				if !slices.Contains(fields, f) {
					t.Errorf("problem lists %v, want %q among them", fields, f)
				}
			}
		})
	}
}
