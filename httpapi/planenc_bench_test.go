package httpapi

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/solver"
)

// BenchmarkAnswerBytes measures a /v1/solve answer's size against J for
// each plan encoding: the answer converted and marshalled as the server
// writes it (writeJSON: encoding/json, plus the newline), on a FLEX 4.1
// base-case problem (S = 10 J, 80% small jobs, slack 0.75, seed 1,
// instance 0), for flex and fair. The solve runs once per policy and J,
// before the timer; the time per op is the conversion and encoding.
// bytes/answer and bytes/job are the figures; encoding_dense is 1 when the
// answer is dense (a dense request past MaxDensePlanEntries is answered
// delta, and says so) and dense_entries counts the (interval, job) entries
// a dense plan has.
//
//	go test ./httpapi -run '^$' -bench BenchmarkAnswerBytes -benchtime 1x
func BenchmarkAnswerBytes(b *testing.B) {
	for _, policy := range []string{"flex", "fair"} {
		for _, jobs := range []int{10, 100, 1000, 10000} {
			var res solver.Result
			var entries int // a dense plan's (interval, job) entries
			solved := false
			for _, enc := range []string{planDelta, planDense, planNone} {
				b.Run(fmt.Sprintf("policy=%s/jobs=%d/plan=%s", policy, jobs, enc), func(b *testing.B) {
					if !solved {
						p := sim.GenerateInstance(sim.Workload{Jobs: jobs, Slots: 10 * jobs, Small: 0.8, Slack: 0.75}, 1, 0)
						s, _ := solver.ByName(policy)
						var err error
						if res, err = s.Solve(p); err != nil {
							b.Fatal(err)
						}
						solved = true
						res.Plan.Each(func(_ int, _, _ float64, slots []int) {
							for _, s := range slots {
								if s != 0 {
									entries++
								}
							}
						})
					}
					var size int
					var dense bool
					b.ResetTimer()
					for b.Loop() {
						resp := newSolveResponse(res, false, 0, enc)
						out, err := json.Marshal(resp)
						if err != nil {
							b.Fatal(err)
						}
						size = len(out) + 1
						dense = resp.Plan.Encoding == planDense
					}
					b.ReportMetric(float64(size), "bytes/answer")
					b.ReportMetric(float64(size)/float64(jobs), "bytes/job")
					b.ReportMetric(float64(len(res.Plan.Intervals)), "intervals")
					b.ReportMetric(float64(entries), "dense_entries")
					if dense {
						b.ReportMetric(1, "encoding_dense")
					} else {
						b.ReportMetric(0, "encoding_dense")
					}
				})
			}
		}
	}
}
