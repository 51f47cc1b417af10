package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store/memory"
	"github.com/flexd/flexd/store/pgtest"
	"github.com/flexd/flexd/store/postgres"
	"github.com/flexd/flexd/tests/shim"
)

// BenchmarkEpochPost drives the whole epoch path in process, without a
// network: decode, validate, decide (both phases), encode, save, for
// clusters of the load test's shape (200 jobs in both phases). It reports
// epochs/s and is the place to profile the server:
//
//	bash scripts/test.sh -run '^$' -bench EpochPost -cpuprofile /tmp/cpu.out ./tests/
//
// The memory-store variant separates the store's share from the rest.
func BenchmarkEpochPost(b *testing.B) {
	for _, jobs := range []int{50, 200} {
		for _, backend := range []string{"memory", "postgres"} {
			b.Run(fmt.Sprintf("jobs=%d/store=%s", jobs, backend), func(b *testing.B) {
				var st httpapi.Store
				if backend == "postgres" {
					st = postgres.New(pgtest.NewPool(b))
				} else {
					st = memory.New(memory.Config{})
				}
				benchEpochs(b, st, jobs)
			})
		}
	}
}

func benchEpochs(b *testing.B, st httpapi.Store, jobs int) {
	srv, err := httpapi.New(httpapi.Config{
		Store: st, RateLimit: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatalf("httpapi.New: %v", err)
	}
	// Several clusters, as on a real server; each is warm (mid-life jobs).
	const clusters = 8
	shims := make([]*shim.Cluster, clusters)
	for i := range shims {
		shims[i] = shim.New(shim.Config{
			Cluster: fmt.Sprintf("bench-%d", i), Seed: uint64(i), Jobs: jobs, Replace: true,
			StaggerProgress: true, MapSlots: jobs, ReduceSlots: jobs / 2,
		})
	}
	var reqBytes, respBytes int64
	i := 0
	for b.Loop() {
		sh := shims[i%clusters]
		i++
		body, err := json.Marshal(sh.Request())
		if err != nil {
			b.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "/v1/clusters/"+sh.Name()+"/epochs", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("epoch %d: status %d: %.300s", sh.Epoch(), rec.Code, rec.Body.Bytes())
		}
		var dec httpapi.EpochResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &dec); err != nil {
			b.Fatal(err)
		}
		if err := sh.Apply(dec); err != nil {
			b.Fatal(err)
		}
		reqBytes += int64(len(body))
		respBytes += int64(rec.Body.Len())
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "epochs/s")
	b.ReportMetric(float64(reqBytes)/float64(i), "req-bytes/epoch")
	b.ReportMetric(float64(respBytes)/float64(i), "resp-bytes/epoch")
}
