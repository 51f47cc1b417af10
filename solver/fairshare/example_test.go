package fairshare_test

import (
	"fmt"

	"github.com/flexd/flexd/solver/fairshare"
)

// Hadoop's YARN computation truncates each share at the upper end of its
// search bracket, so three equal queues on 10240 MB get 3414 each, 2 more
// than the cluster holds; Slots takes the excess back for a feasible
// allocation.
func ExampleCompute() {
	queue := fairshare.Schedulable{Weight: 1, Max: 1<<31 - 1}
	shares := fairshare.Compute(fairshare.YARN, []fairshare.Schedulable{queue, queue, queue}, 10240)
	fmt.Println(shares)

	jobs := []fairshare.Job{{ID: "a", Max: 10240, Weight: 1}, {ID: "b", Max: 10240, Weight: 1}, {ID: "c", Max: 10240, Weight: 1}}
	fmt.Println(fairshare.Slots(shares, jobs, 10240))
	// Output:
	// [3414 3414 3414]
	// [3414 3413 3413]
}

// The FAIR plan of three jobs on 10 slots: C completes first, then the two
// others share its slots, then B runs alone.
func ExamplePlan() {
	jobs := []fairshare.Job{
		{ID: "A", Max: 10, Weight: 1, Work: 20},
		{ID: "B", Max: 10, Weight: 1, Work: 60},
		{ID: "C", Max: 4, Weight: 1, Work: 8},
	}
	p := fairshare.Plan(fairshare.MRv1, jobs, 10, 0)
	p.Each(func(k int, start, end float64, slots []int) {
		fmt.Printf("[%.3f, %.3f) %v\n", start, end, slots)
	})
	fmt.Printf("completions %.3f\n", p.Completions)
	// Output:
	// [0.000, 2.667) [4 3 3]
	// [2.667, 4.533) [5 5 0]
	// [4.533, 8.800) [0 10 0]
	// completions [4.533 8.800 2.667]
}
