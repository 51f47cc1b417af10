package ratio_test

import (
	"fmt"

	"github.com/flexd/flexd/ratio"
)

// PI-DHSA case 4: map tasks need 15 slots of 10, reduce tasks 2 of 6, so
// the map phase borrows floor(0.5 x 4 unused reduce slots) = 2.
func ExampleBudgets() {
	cfg := ratio.DefaultConfig()
	cfg.Mode = ratio.ModePIDHSA
	cfg.BorrowReduce = 0.5
	in := ratio.Input{
		Cluster: ratio.Cluster{MapSlots: 10, ReduceSlots: 6},
		Jobs: []ratio.Job{{
			ID:     "job_1",
			Map:    ratio.PhaseDemand{Pending: 12, Running: 3, Tasks: 40, Work: 600},
			Reduce: ratio.PhaseDemand{Pending: 2, Tasks: 2, Work: 100},
		}},
	}
	if problems := ratio.Validate(cfg, in); len(problems) > 0 {
		fmt.Println(problems)
		return
	}
	res, _ := ratio.Budgets(cfg, in, ratio.State{})
	fmt.Println(res.Map, res.Reduce, res.Borrowed.ReduceToMap)
	// Output: 12 4 2
}

// FRESH's static configuration for one job with 4 unit map tasks and 2
// reduce tasks of 2 s on 4 slots: w_m/s_m + w_r/(4-s_m) is least at 2/2.
func ExampleSlotConfig() {
	plan, _ := ratio.SlotConfig([]ratio.Profile{{MapTasks: 4, ReduceTasks: 2, MapTime: 1, ReduceTime: 2}}, 4, 1)
	fmt.Println(plan.MapSlots, plan.ReduceSlots, plan.Makespan)
	// Output: 2 2 4
}
