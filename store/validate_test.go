package store_test

import (
	"testing"

	"github.com/flexd/flexd/store"
)

func TestQueryPageSize(t *testing.T) {
	tests := map[string]struct{ limit, want int }{
		"zero means default":     {0, store.DefaultLimit},
		"negative means default": {-3, store.DefaultLimit},
		"one":                    {1, 1},
		"within bounds":          {250, 250},
		"at the maximum":         {store.MaxLimit, store.MaxLimit},
		"above the maximum":      {store.MaxLimit + 1, store.MaxLimit},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := (store.Query{Limit: tc.limit}).PageSize(); got != tc.want {
				t.Errorf("PageSize() = %d, want %d", got, tc.want)
			}
		})
	}
}
