package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flexd/flexd/store"
)

// metrics are the Prometheus collectors of one Server.
type metrics struct {
	requestSeconds *prometheus.HistogramVec
	solveSeconds   *prometheus.HistogramVec
	epochJobs      prometheus.Histogram
	storeSeconds   *prometheus.HistogramVec
	// inFlight counts the requests being handled; inFlightBytes the body
	// bytes reserved against Config.InFlightBytes.
	inFlight      prometheus.Gauge
	inFlightBytes prometheus.Gauge
	// waiting counts the requests waiting for a deciding slot
	// (Config.MaxDeciding).
	waiting prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "flexd_http_request_duration_seconds",
			Help:    "HTTP request latency by chi route pattern, method and status (\"client_closed\" when the client disconnected before the answer).",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method", "status"}),
		solveSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "flexd_solve_duration_seconds",
			Help: "Solver wall time by policy and phase (phase \"solve\" for /v1/solve).",
			// Solves range from microseconds (a few jobs) to seconds (10^5 jobs).
			Buckets: prometheus.ExponentialBuckets(1e-5, 4, 12),
		}, []string{"policy", "phase"}),
		epochJobs: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "flexd_epoch_jobs",
			Help:    "Jobs per decided epoch.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 10),
		}),
		storeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "flexd_store_duration_seconds",
			Help:    "Store call latency by operation and outcome.",
			Buckets: prometheus.DefBuckets,
		}, []string{"op", "outcome"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flexd_http_requests_in_flight",
			Help: "Requests being handled.",
		}),
		inFlightBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flexd_http_body_bytes_in_flight",
			Help: "Request body bytes reserved against --max-in-flight-bytes (a request without a declared length reserves the whole body limit).",
		}),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flexd_http_requests_waiting",
			Help: "Requests that decide (solve, epochs, slot-config plans) waiting for one of the --max-deciding slots.",
		}),
	}
	for _, c := range []prometheus.Collector{m.requestSeconds, m.solveSeconds, m.epochJobs, m.storeSeconds, m.inFlight, m.inFlightBytes, m.waiting} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("httpapi: registering metrics: %w", err)
		}
	}
	return m, nil
}

func (s *Server) promHandler() http.Handler {
	return promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{ErrorLog: nil})
}

// instrumentedStore times every store call. Expected outcomes (not found,
// conflict, stale) are labelled apart from failures.
type instrumentedStore struct {
	Store
	m   *metrics
	now func() time.Time
}

func instrumentStore(st Store, m *metrics, now func() time.Time) Store {
	return &instrumentedStore{Store: st, m: m, now: now}
}

func (s *instrumentedStore) time(op string, start time.Time, err error) {
	outcome := "ok"
	switch {
	case err == nil:
	case errors.Is(err, store.ErrNotFound):
		outcome = "not_found"
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrStaleState):
		outcome = "conflict"
	default:
		outcome = "error"
	}
	s.m.storeSeconds.WithLabelValues(op, outcome).Observe(s.now().Sub(start).Seconds())
}

func (s *instrumentedStore) SaveEpoch(ctx context.Context, rec store.Record, prevStateEpoch int64) (store.Record, bool, error) {
	start := s.now()
	out, replay, err := s.Store.SaveEpoch(ctx, rec, prevStateEpoch)
	s.time("save_epoch", start, err)
	return out, replay, err
}

func (s *instrumentedStore) GetEpoch(ctx context.Context, cluster string, epoch int64) (store.Record, error) {
	start := s.now()
	rec, err := s.Store.GetEpoch(ctx, cluster, epoch)
	s.time("get_epoch", start, err)
	return rec, err
}

func (s *instrumentedStore) ListEpochs(ctx context.Context, cluster string, q store.Query) ([]store.Record, *int64, error) {
	start := s.now()
	recs, next, err := s.Store.ListEpochs(ctx, cluster, q)
	s.time("list_epochs", start, err)
	return recs, next, err
}

// StreamEpochs is timed as a whole, the time the client took to read
// included: it says how long exports hold the store.
func (s *instrumentedStore) StreamEpochs(ctx context.Context, cluster string, from, to *int64, fn func(store.Record) error) error {
	start := s.now()
	err := s.Store.StreamEpochs(ctx, cluster, from, to, fn)
	s.time("stream_epochs", start, err)
	return err
}

func (s *instrumentedStore) LatestState(ctx context.Context, cluster string) (store.State, error) {
	start := s.now()
	st, err := s.Store.LatestState(ctx, cluster)
	s.time("latest_state", start, err)
	return st, err
}

func (s *instrumentedStore) StartEpoch(ctx context.Context, cluster string, epoch int64) (store.Start, error) {
	start := s.now()
	st, err := s.Store.StartEpoch(ctx, cluster, epoch)
	s.time("start_epoch", start, err)
	return st, err
}

func (s *instrumentedStore) LookupToken(ctx context.Context, hash string) (store.Token, error) {
	start := s.now()
	t, err := s.Store.LookupToken(ctx, hash)
	s.time("lookup_token", start, err)
	return t, err
}

func (s *instrumentedStore) HasTokens(ctx context.Context) (bool, error) {
	start := s.now()
	ok, err := s.Store.HasTokens(ctx)
	s.time("has_tokens", start, err)
	return ok, err
}

func (s *instrumentedStore) Ping(ctx context.Context) error {
	start := s.now()
	err := s.Store.Ping(ctx)
	s.time("ping", start, err)
	return err
}
