package plan_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/plan"
	"github.com/flexd/flexd/ratio"
)

func TestSlotConfig(t *testing.T) {
	// One job, 4 unit map tasks and 2 reduce tasks of 2 s on 4 slots:
	// 4/s_m + 4/(4-s_m) is 4+2, 2+2, 4/3+4 for s_m = 1, 2, 3.
	got, err := plan.SlotConfig(plan.SlotConfigRequest{Slots: 4, K: 1, Jobs: []plan.SlotConfigJob{
		{MapTasks: 4, ReduceTasks: 2, MapTime: 1, ReduceTime: 2},
	}})
	if err != nil {
		t.Fatalf("SlotConfig: %v", err)
	}
	want := plan.SlotConfigResponse{MapSlots: 2, ReduceSlots: 2, Makespan: 4, Curve: []plan.CurvePoint{
		{MapSlots: 1, ReduceSlots: 3, Makespan: 4 + 4.0/3},
		{MapSlots: 2, ReduceSlots: 2, Makespan: 4},
		{MapSlots: 3, ReduceSlots: 1, Makespan: 4.0/3 + 4},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

func TestSlotConfigRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		req  plan.SlotConfigRequest
		want []string
	}{
		"everything missing": {
			req:  plan.SlotConfigRequest{},
			want: []string{"slots", "k", "jobs"},
		},
		"bad profiles are named at the body's paths": {
			req: plan.SlotConfigRequest{Slots: 4, K: 1, Jobs: []plan.SlotConfigJob{
				{MapTasks: 1, MapTime: 1}, {MapTasks: -1, ReduceTime: -2},
			}},
			want: []string{"jobs[1].map_tasks", "jobs[1].reduce_time"},
		},
		"too many slots": {
			req:  plan.SlotConfigRequest{Slots: plan.MaxSlots + 1, K: 1, Jobs: []plan.SlotConfigJob{{MapTasks: 1}}},
			want: []string{"slots"},
		},
		"too much simulation": {
			req:  plan.SlotConfigRequest{Slots: plan.MaxSlots, K: 1, Jobs: make([]plan.SlotConfigJob, 200)},
			want: []string{"jobs"},
		},
		"overflowing work": {
			req: plan.SlotConfigRequest{Slots: 4, K: 1, Jobs: []plan.SlotConfigJob{
				{MapTasks: 10, MapTime: 1e308},
			}},
			want: []string{"jobs[0].map_time"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := plan.SlotConfig(tc.req)
			var ve *ratio.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v, want a *ratio.ValidationError", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Field)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}
