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
	"time"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store/memory"
	"github.com/flexd/flexd/store/pgtest"
	"github.com/flexd/flexd/store/postgres"
	"github.com/flexd/flexd/store/resilient"
	"github.com/flexd/flexd/tests/shim"
)

// BenchmarkEpochPost drives the whole epoch path in process, without a
// network: decode, validate, decide (both phases), encode, save, for
// clusters of the load test's shape (200 jobs in both phases). Only the
// server's part is timed: the shim writing the next body and applying the
// answer runs with the timer stopped. It reports epochs/s (server wall
// time; with PostgreSQL that includes waiting on it) and, with the memory
// store, cpu-ms/epoch: this process's CPU time over the timed parts, GC
// included. (With PostgreSQL the process's CPU time mostly measures the Go
// scheduler spinning while one request at a time waits on the database, so
// it is left out.) It is the place to profile the server:
//
//	bash scripts/test.sh -run '^$' -bench EpochPost -cpuprofile /tmp/cpu.out ./tests/
//
// The memory-store variant separates the store's share from the rest;
// postgres+spool is serve's default (the spool in front of PostgreSQL), to
// set beside postgres: what the spool costs while the database is healthy.
func BenchmarkEpochPost(b *testing.B) {
	for _, jobs := range []int{50, 200} {
		for _, backend := range []string{"memory", "postgres", "postgres+spool"} {
			b.Run(fmt.Sprintf("jobs=%d/store=%s", jobs, backend), func(b *testing.B) {
				switch backend {
				case "postgres":
					benchEpochs(b, postgres.New(pgtest.NewPool(b)), jobs, false)
				case "postgres+spool":
					// What serve runs by default: the spool in front of a
					// healthy database, where it should cost nothing.
					rs, err := resilient.New(postgres.New(pgtest.NewPool(b)), resilient.Config{
						Dir: b.TempDir(), MaxBytes: 1 << 30, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
					})
					if err != nil {
						b.Fatal(err)
					}
					defer rs.Close()
					benchEpochs(b, rs, jobs, false)
				default:
					benchEpochs(b, memory.New(memory.Config{}), jobs, true)
				}
			})
		}
	}
}

// benchEpochs posts epochs to a server on st; cpu says whether to report
// cpu-ms/epoch.
func benchEpochs(b *testing.B, st httpapi.Store, jobs int, cpu bool) {
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
	var (
		reqBytes, respBytes int64
		used                time.Duration
	)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		sh := shims[i%clusters]
		i++
		body, err := json.Marshal(sh.Request())
		if err != nil {
			b.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "/v1/clusters/"+sh.Name()+"/epochs", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		cpu0 := processCPU()
		b.StartTimer()

		srv.ServeHTTP(rec, req)

		b.StopTimer()
		used += processCPU() - cpu0
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
		b.StartTimer()
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "epochs/s")
	if cpu && used > 0 {
		b.ReportMetric(used.Seconds()*1000/float64(i), "cpu-ms/epoch")
	}
	b.ReportMetric(float64(reqBytes)/float64(i), "req-bytes/epoch")
	b.ReportMetric(float64(respBytes)/float64(i), "resp-bytes/epoch")
}
