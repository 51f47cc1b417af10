package ratio

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidate names the field of every bad input, with the JSON paths of
// docs/api.md, and accepts good input.
func TestValidate(t *testing.T) {
	good := func() (Config, Input) {
		return Config{Mode: ModeFresh, BorrowMap: 1, BorrowReduce: 1, OMO: OMOConfig{LazyStart: true, Bandwidth: 125e6}},
			Input{Cluster: Cluster{MapSlots: 4, ReduceSlots: 2}, EpochLength: 1, ReleasedSlots: 3,
				Jobs: []Job{{ID: "j1", Pool: "default", Map: PhaseDemand{Pending: 2, Running: 1, Tasks: 5, Work: 30}}}}
	}
	cases := map[string]struct {
		edit   func(*Config, *Input)
		fields []string
	}{
		"valid":                        {func(*Config, *Input) {}, nil},
		"zero config is valid":         {func(c *Config, _ *Input) { *c = Config{} }, nil},
		"unknown mode":                 {func(c *Config, _ *Input) { c.Mode = "magic" }, []string{"ratio.mode"}},
		"borrow_map above 1":           {func(c *Config, _ *Input) { c.BorrowMap = 1.5 }, []string{"ratio.borrow_map"}},
		"borrow_map negative":          {func(c *Config, _ *Input) { c.BorrowMap = -0.1 }, []string{"ratio.borrow_map"}},
		"borrow_reduce NaN":            {func(c *Config, _ *Input) { c.BorrowReduce = math.NaN() }, []string{"ratio.borrow_reduce"}},
		"tau1 above 1":                 {func(c *Config, _ *Input) { c.Tau1 = 1.01 }, []string{"ratio.tau1"}},
		"tau1 negative":                {func(c *Config, _ *Input) { c.Tau1 = -0.5 }, []string{"ratio.tau1"}},
		"tau2 infinite":                {func(c *Config, _ *Input) { c.Tau2 = math.Inf(1) }, []string{"ratio.tau2"}},
		"reduce slot weight < 0":       {func(c *Config, _ *Input) { c.ReduceSlotWeight = -2 }, []string{"ratio.reduce_slot_weight"}},
		"negative bandwidth":           {func(c *Config, _ *Input) { c.OMO.Bandwidth = -1 }, []string{"omo.bandwidth"}},
		"lazy start without bandwidth": {func(c *Config, _ *Input) { c.OMO.Bandwidth = 0 }, []string{"omo.bandwidth"}},
		"ema alpha above 1":            {func(c *Config, _ *Input) { c.OMO.Alpha = 2 }, []string{"omo.ema_alpha"}},
		"OMO on a static split":        {func(c *Config, _ *Input) { c.Mode = ModeStatic }, []string{"omo"}},
		"OMO on the default split":     {func(c *Config, _ *Input) { c.Mode = "" }, []string{"omo"}},
		"unknown pool":                 {func(c *Config, _ *Input) { c.Pools = []Pool{{Name: "prod", Weight: 2}} }, []string{"jobs[0].pool"}},
		"duplicate pool":               {func(c *Config, _ *Input) { c.Pools = []Pool{{Name: "default"}, {Name: "default"}} }, []string{"ratio.pools[1].name"}},
		"negative pool weight":         {func(c *Config, _ *Input) { c.Pools = []Pool{{Name: "default", Weight: -1}} }, []string{"ratio.pools[0].weight"}},
		"no slots":                     {func(_ *Config, in *Input) { in.Cluster = Cluster{} }, []string{"slots"}},
		"negative map slots":           {func(_ *Config, in *Input) { in.Cluster.MapSlots = -1 }, []string{"slots.map"}},
		"negative released":            {func(_ *Config, in *Input) { in.ReleasedSlots = -1 }, []string{"released_slots"}},
		"NaN epoch length":             {func(_ *Config, in *Input) { in.EpochLength = math.NaN() }, []string{"epoch_length"}},
		"duplicate job":                {func(_ *Config, in *Input) { in.Jobs = append(in.Jobs, in.Jobs[0]) }, []string{"jobs[1].id"}},
		"empty job id":                 {func(_ *Config, in *Input) { in.Jobs[0].ID = "" }, []string{"jobs[0].id"}},
		"negative pending":             {func(_ *Config, in *Input) { in.Jobs[0].Reduce.Pending = -1 }, []string{"jobs[0].reduce.pending"}},
		"demand above tasks":           {func(_ *Config, in *Input) { in.Jobs[0].Map.Pending = 9 }, []string{"jobs[0].map.tasks"}},
		"negative work":                {func(_ *Config, in *Input) { in.Jobs[0].Map.Work = -3 }, []string{"jobs[0].map.work"}},
		"negative output size":         {func(_ *Config, in *Input) { in.Jobs[0].OutputBytesPerMapTask = -1 }, []string{"jobs[0].map.output_bytes_per_task"}},
		"several at once": {func(c *Config, in *Input) { c.BorrowMap = 2; c.Tau2 = 3; in.ReleasedSlots = -4 },
			[]string{"ratio.borrow_map", "ratio.tau2", "released_slots"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, in := good()
			c.edit(&cfg, &in)
			var got []string
			for _, p := range Validate(cfg, in) {
				got = append(got, p.Field)
			}
			if d := cmp.Diff(c.fields, got); d != "" {
				t.Errorf("fields (-want +got):\n%s", d)
			}
		})
	}
}
