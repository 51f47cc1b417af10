package ratio

import (
	"fmt"
	"math"
	"testing"
)

// FuzzBudgets feeds Budgets arbitrary input built from the fuzzer's bytes.
// It must never panic; when the input passes Validate, budgets are
// non-negative and within the cluster: for DHSA, in map-slot units, map +
// w*reduce <= map slots + w*reduce slots (a lent slot never buys more than
// it is worth), which for w = 1 is map + reduce <= S; FRESH and static
// split exactly S. Pool budgets fit their phase, batch-finish minima fit
// the budget, and the same input gives the same answer.
func FuzzBudgets(f *testing.F) {
	f.Add(uint8(1), uint16(10), uint16(6), 1.0, 1.0, 1.0, uint8(0), []byte{4, 0, 10, 0, 1, 2})
	f.Add(uint8(2), uint16(6), uint16(6), 0.5, 1.0, 2.0, uint8(3), []byte{1, 1, 0, 5, 2, 4, 4, 3, 0, 0, 7, 9})
	f.Add(uint8(3), uint16(2), uint16(2), 1.0, 0.0, 0.5, uint8(3), []byte{13, 0, 1, 0, 0, 0, 9, 9, 9})
	f.Add(uint8(0), uint16(1), uint16(0), 0.0, 0.0, 1.0, uint8(0), []byte{})
	f.Add(uint8(1), uint16(10), uint16(6), 1.0, 1.0, 1e300, uint8(0), []byte{20, 0, 1, 0, 1, 2, 4, 0, 10, 0, 1, 2})
	f.Add(uint8(2), uint16(10), uint16(6), 1.0, 1.0, 1e-300, uint8(0), []byte{1, 0, 1, 0, 1, 2, 4, 0, 10, 0, 100, 2})
	f.Fuzz(func(t *testing.T, mode uint8, ms, rs uint16, pm, pr, w float64, omo uint8, data []byte) {
		modes := []Mode{ModeStatic, ModePIDHSA, ModePDDHSA, ModeFresh}
		cfg := Config{
			Mode: modes[int(mode)%len(modes)], BorrowMap: pm, BorrowReduce: pr, ReduceSlotWeight: w,
			OMO: OMOConfig{LazyStart: omo&1 != 0, BatchFinish: omo&2 != 0, Bandwidth: float64(omo) * 1e3},
		}
		in := Input{Cluster: Cluster{MapSlots: int(ms % 2000), ReduceSlots: int(rs % 2000)}, ReleasedSlots: int(omo), EpochLength: float64(omo % 5)}
		for i := 0; i+5 < len(data) && len(in.Jobs) < 40; i += 6 {
			d := data[i : i+6]
			j := Job{
				ID: fmt.Sprintf("j%d", i), Pool: fmt.Sprintf("p%d", d[0]%3), Submitted: float64(d[1]),
				Map:                   PhaseDemand{Pending: int(d[2]), Running: int(d[3] % 16), Work: float64(d[2]) * 3, AvgTaskTime: float64(d[4] % 7)},
				Reduce:                PhaseDemand{Pending: int(d[4]), Running: int(d[5] % 8), Work: float64(d[5]), AvgTaskTime: float64(d[1] % 5)},
				OutputBytesPerMapTask: float64(d[5]) * 1e6, ReduceStarted: d[0]&8 != 0,
			}
			j.Map.Tasks = j.Map.Demand() + int(d[1]%20)
			j.Reduce.Tasks = j.Reduce.Demand()
			in.Jobs = append(in.Jobs, j)
		}
		res, next := Budgets(cfg, in, State{ReleaseRate: float64(ms % 50), AvailableSlots: float64(rs % 60), Windows: int(omo % 3)})
		if len(Validate(cfg, in)) > 0 {
			return // only "never panics" is promised
		}
		res2, next2 := Budgets(cfg, in, State{ReleaseRate: float64(ms % 50), AvailableSlots: float64(rs % 60), Windows: int(omo % 3)})
		if res.String() != res2.String() || next != next2 || res.Map != res2.Map || res.Reduce != res2.Reduce {
			t.Fatalf("not deterministic")
		}
		M, R := in.Cluster.MapSlots, in.Cluster.ReduceSlots
		if res.Map < 0 || res.Reduce < 0 {
			t.Fatalf("negative budget: %+v", res)
		}
		wt := cfg.withDefaults().ReduceSlotWeight
		switch cfg.Mode {
		case ModePIDHSA, ModePDDHSA:
			if float64(res.Map)+wt*float64(res.Reduce) > float64(M)+wt*float64(R)+1e-9 {
				t.Fatalf("weighted budget %d + %v*%d exceeds %d + %v*%d\n%s", res.Map, wt, res.Reduce, M, wt, R, res)
			}
			if wt == 1 && res.Map+res.Reduce > M+R {
				t.Fatalf("budgets %d+%d exceed %d slots", res.Map, res.Reduce, M+R)
			}
		default:
			if res.Map+res.Reduce != M+R {
				t.Fatalf("budgets %d+%d do not split %d slots", res.Map, res.Reduce, M+R)
			}
		}
		sumM, sumR := 0, 0
		for _, p := range res.Pools {
			if p.Map < 0 || p.Reduce < 0 {
				t.Fatalf("negative pool budget %+v", p)
			}
			sumM += p.Map
			sumR += p.Reduce
		}
		if sumM > res.Map || sumR > res.Reduce {
			t.Fatalf("pool budgets %d/%d exceed phase budgets %d/%d", sumM, sumR, res.Map, res.Reduce)
		}
		for _, o := range res.Overrides {
			if o.MapMin < 0 || o.MapMin > res.Map {
				t.Fatalf("override %+v outside map budget %d", o, res.Map)
			}
		}
		if math.IsNaN(next.ReleaseRate) || math.IsNaN(next.AvailableSlots) || math.IsNaN(res.Theta) {
			t.Fatalf("NaN in state %+v or theta %v", next, res.Theta)
		}
	})
}
