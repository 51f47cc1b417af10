package postgres_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/flexd/flexd/store"

	"github.com/flexd/flexd/store/pgtest"
	"github.com/flexd/flexd/store/postgres"
	"github.com/flexd/flexd/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.RunSuite(t, func(t *testing.T) storetest.Store { return postgres.New(pgtest.NewPool(t)) })
}

// BenchmarkSaveEpoch saves a chain of epochs of one cluster, each carrying
// jobs allocations in two phases (the design's load: 200+ jobs at 300
// epochs/s per cluster), and reports epochs/s.
func BenchmarkSaveEpoch(b *testing.B) {
	for _, jobs := range []int{10, 200, 1000} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			s := postgres.New(pgtest.NewPool(b))
			allocs := make([]store.Allocation, 0, 2*jobs)
			for j := range jobs {
				id := fmt.Sprintf("job_%d", j)
				allocs = append(allocs,
					store.Allocation{JobID: id, Phase: "map", Slots: j % 17, Reason: "priority"},
					store.Allocation{JobID: id, Phase: "reduce", Slots: j % 5, Reason: "min"})
			}
			request := json.RawMessage(fmt.Sprintf(`{"jobs": %d, "slots": {"map": 100, "reduce": 50}}`, jobs))
			b.ResetTimer()
			for i := range b.N {
				epoch := int64(i + 1)
				r := store.Record{
					Cluster: "bench", Epoch: epoch, DecisionID: fmt.Sprint(epoch), RequestHash: fmt.Sprint(epoch),
					Request: request, Decision: request, State: json.RawMessage(`{"ema": 0.5}`), Allocations: allocs,
				}
				if _, _, err := s.SaveEpoch(b.Context(), r, epoch-1); err != nil {
					b.Fatalf("SaveEpoch: %v", err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "epochs/s")
		})
	}
}
