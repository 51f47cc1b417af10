package memory_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/memory"
	"github.com/flexd/flexd/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.RunSuite(t, func(*testing.T) storetest.Store { return memory.New(memory.Config{}) })
}

func record(cluster string, epoch int64) store.Record {
	return store.Record{
		Cluster: cluster, Epoch: epoch, DecisionID: "d", RequestHash: fmt.Sprint(epoch),
		Request: json.RawMessage(`{}`), Decision: json.RawMessage(`{}`),
	}
}

// TestBounds saves a sequence of (cluster, epoch) in order and checks what
// each bounded store still holds.
func TestBounds(t *testing.T) {
	type save struct {
		cluster string
		epoch   int64
	}
	tests := map[string]struct {
		cfg   memory.Config
		saves []save
		want  map[string][]int64 // cluster: epochs kept, newest first
	}{
		"per cluster keeps the newest": {
			cfg:   memory.Config{MaxEpochsPerCluster: 2},
			saves: []save{{"a", 1}, {"a", 2}, {"b", 1}, {"a", 3}, {"a", 4}},
			want:  map[string][]int64{"a": {4, 3}, "b": {1}},
		},
		"total evicts the earliest saved": {
			cfg:   memory.Config{MaxEpochs: 3},
			saves: []save{{"a", 1}, {"b", 1}, {"a", 2}, {"b", 2}, {"b", 3}},
			want:  map[string][]int64{"a": {2}, "b": {3, 2}},
		},
		"both bounds": {
			cfg:   memory.Config{MaxEpochsPerCluster: 2, MaxEpochs: 3},
			saves: []save{{"a", 1}, {"a", 2}, {"a", 3}, {"b", 1}, {"b", 2}, {"c", 1}},
			// a1 goes for the per-cluster bound, then a2 and a3 for the total.
			want: map[string][]int64{"a": {}, "b": {2, 1}, "c": {1}},
		},
		"long run stays bounded": {
			cfg: memory.Config{MaxEpochsPerCluster: 5, MaxEpochs: 7},
			saves: func() []save {
				var out []save
				for e := int64(1); e <= 500; e++ {
					out = append(out, save{"a", e}, save{"b", e})
				}
				return out
			}(),
			want: map[string][]int64{"a": {500, 499, 498}, "b": {500, 499, 498, 497}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := memory.New(tc.cfg)
			prev := map[string]int64{}
			for _, sv := range tc.saves {
				if _, _, err := s.SaveEpoch(t.Context(), record(sv.cluster, sv.epoch), prev[sv.cluster]); err != nil {
					t.Fatalf("SaveEpoch(%s, %d): %v", sv.cluster, sv.epoch, err)
				}
				prev[sv.cluster] = sv.epoch
			}
			got := map[string][]int64{}
			for cluster := range tc.want {
				page, _, err := s.ListEpochs(t.Context(), cluster, store.Query{Limit: store.MaxLimit})
				if err != nil {
					t.Fatalf("ListEpochs: %v", err)
				}
				got[cluster] = []int64{}
				for _, r := range page {
					got[cluster] = append(got[cluster], r.Epoch)
				}
				// Eviction never forgets the latest state.
				if st, err := s.LatestState(t.Context(), cluster); err != nil || st.Epoch != prev[cluster] {
					t.Errorf("LatestState(%s) = %+v, %v; want epoch %d", cluster, st, err, prev[cluster])
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("kept epochs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoAliasing checks the store copies what it is given and returns.
func TestNoAliasing(t *testing.T) {
	s := memory.New(memory.Config{})
	r := record("a", 1)
	r.Request = json.RawMessage(`{"x":1}`)
	r.Allocations = []store.Allocation{{JobID: "j", Phase: "map", Slots: 1, Reason: "min"}}
	if _, _, err := s.SaveEpoch(t.Context(), r, 0); err != nil {
		t.Fatalf("SaveEpoch: %v", err)
	}
	r.Request[5] = '2'
	r.Allocations[0].Slots = 9
	got, err := s.GetEpoch(t.Context(), "a", 1)
	if err != nil {
		t.Fatalf("GetEpoch: %v", err)
	}
	got.Request[5] = '3'
	again, err := s.GetEpoch(t.Context(), "a", 1)
	if err != nil {
		t.Fatalf("GetEpoch: %v", err)
	}
	if string(again.Request) != `{"x":1}` || again.Allocations[0].Slots != 1 {
		t.Errorf("stored record changed through an alias: %s, slots %d", again.Request, again.Allocations[0].Slots)
	}
}

func TestDefaultsAndClock(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 6789, time.FixedZone("X", 3600))
	s := memory.New(memory.Config{Now: func() time.Time { return at }})
	if per, total := s.Limits(); per != memory.DefaultMaxEpochsPerCluster || total != memory.DefaultMaxEpochs {
		t.Errorf("Limits() = %d, %d; want defaults", per, total)
	}
	got, _, err := s.SaveEpoch(t.Context(), record("a", 1), 0)
	if err != nil {
		t.Fatalf("SaveEpoch: %v", err)
	}
	if want := at.UTC().Truncate(time.Microsecond); !got.CreatedAt.Equal(want) || got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt = %v, want %v", got.CreatedAt, want)
	}
}
