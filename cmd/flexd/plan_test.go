package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/flexd/flexd/plan"
)

func TestPlanSlotConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		body      string
		wantUsage bool
		wantErr   string
		wantSplit [2]int
	}{
		"the best split of a one-job batch": {
			body:      `{"slots": 4, "k": 1, "jobs": [{"map_tasks": 4, "reduce_tasks": 2, "map_time": 1, "reduce_time": 2}]}`,
			wantSplit: [2]int{2, 2},
		},
		"an invalid request lists its problems": {
			body:      `{"slots": 1, "k": 0, "jobs": [{"map_tasks": -1}]}`,
			wantUsage: true,
			wantErr:   "jobs[0].map_tasks",
		},
		"an unknown field": {
			body:      `{"slots": 4, "k": 1, "jobs": [], "profiles": []}`,
			wantUsage: true,
			wantErr:   "unknown field",
		},
		"trailing data": {
			body:      `{"slots": 4, "k": 1, "jobs": [{"map_tasks": 1}]} {}`,
			wantUsage: true,
			wantErr:   "after the JSON object",
		},
		"not JSON": {
			body:      `slots=4`,
			wantUsage: true,
			wantErr:   "malformed",
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := newRootCmd()
			var out bytes.Buffer
			root.SetIn(strings.NewReader(tc.body))
			root.SetOut(&out)
			root.SetArgs([]string{"plan", "slot-config"})
			err := root.Execute()
			var ue usageError
			if got := errors.As(err, &ue); got != tc.wantUsage {
				t.Fatalf("error %v: usage error %v, want %v", err, got, tc.wantUsage)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("plan slot-config: %v", err)
			}
			var resp plan.SlotConfigResponse
			if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
				t.Fatalf("output %q: %v", out.String(), err)
			}
			if got := [2]int{resp.MapSlots, resp.ReduceSlots}; got != tc.wantSplit || len(resp.Curve) != 3 {
				t.Errorf("split %v with %d curve points, want %v and 3", got, len(resp.Curve), tc.wantSplit)
			}
		})
	}
}
