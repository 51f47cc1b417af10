package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/flexd/flexd/client"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/tests/shim"
)

// maxDuration bounds a run: a load tool that can be left running forever
// by a typo is a hazard on a shared machine.
const maxDuration = time.Hour

// ClusterToken is one cluster's name and bearer token.
type ClusterToken struct{ Cluster, Token string }

// Config is one load run.
type Config struct {
	URL           string
	Clusters      int
	Jobs          int
	Duration      time.Duration
	Warmup        time.Duration
	MaxEpochs     int64
	Concurrency   int
	Interval      time.Duration
	Open          bool
	Token         string
	ClusterTokens []ClusterToken
	Prefix        string
	MapSlots      int
	ReduceSlots   int
	Policy        string
	RatioMode     string
	Seed          uint64
	Timeout       time.Duration
	AllowErrors   bool
}

// Validate reports settings that cannot make a bounded run.
func (c Config) Validate() error {
	switch {
	case c.URL == "":
		return errors.New("--url is required")
	case c.Clusters < 1 && len(c.ClusterTokens) == 0:
		return fmt.Errorf("--clusters %d: want at least 1", c.Clusters)
	case c.Jobs < 1:
		return fmt.Errorf("--jobs %d: want at least 1", c.Jobs)
	case c.Duration <= 0 || c.Duration > maxDuration:
		return fmt.Errorf("--duration %v: want in (0, %v]", c.Duration, maxDuration)
	case c.Warmup < 0 || c.Warmup > maxDuration:
		return fmt.Errorf("--warmup %v: want in [0, %v]", c.Warmup, maxDuration)
	case c.MaxEpochs < 0:
		return fmt.Errorf("--max-epochs %d: want >= 0", c.MaxEpochs)
	case c.Concurrency < 0:
		return fmt.Errorf("--concurrency %d: want >= 0", c.Concurrency)
	case c.Interval <= 0:
		return fmt.Errorf("--interval %v: want > 0 (it is also the epoch_length sent)", c.Interval)
	case c.Timeout <= 0:
		return fmt.Errorf("--timeout %v: want > 0", c.Timeout)
	}
	return nil
}

// Run drives the load and returns what it measured. It returns an error
// only when the run could not start (server unreachable); failed requests
// are counted in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base := strings.TrimRight(cfg.URL, "/")
	clusters := cfg.ClusterTokens
	if len(clusters) == 0 {
		for i := range cfg.Clusters {
			clusters = append(clusters, ClusterToken{Cluster: fmt.Sprintf("%s%03d", cfg.Prefix, i), Token: cfg.Token})
		}
	}
	conc := cfg.Concurrency
	if conc == 0 {
		conc = len(clusters)
	}
	hc := &http.Client{
		Timeout: cfg.Timeout,
		Transport: &http.Transport{
			MaxIdleConns:        conc,
			MaxIdleConnsPerHost: conc,
			IdleConnTimeout:     90 * time.Second,
			// An epoch body is ~50 KB: sent in one or two writes rather
			// than a dozen through the default 4 KB buffer.
			WriteBufferSize: 64 << 10,
			ReadBufferSize:  64 << 10,
		},
	}
	defer hc.CloseIdleConnections()
	// The generated client (package client) builds the requests; the
	// answers are read here, with goccy/go-json, into only what the shim applies.
	api, err := client.NewClient(base, client.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("flexd at %s: %w", base, err)
	}
	if err := checkHealth(ctx, api, base); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithTimeout(ctx, cfg.Warmup+cfg.Duration)
	defer cancel()
	start := time.Now()
	l := &loader{
		cfg: cfg, api: api,
		sem:         make(chan struct{}, conc),
		budget:      cfg.MaxEpochs,
		measureFrom: start.Add(cfg.Warmup),
	}
	rep := newReport(len(clusters))
	var warm *Report
	if cfg.Warmup > 0 {
		warm = newReport(len(clusters))
	}
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for i, ct := range clusters {
		wg.Go(func() {
			r, w := l.cluster(ctx, i, ct)
			mu.Lock()
			rep.merge(r)
			if warm != nil {
				warm.merge(w)
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	end := time.Now()
	rep.Elapsed = max(0, end.Sub(l.measureFrom))
	rep.finish()
	if warm != nil {
		warm.Elapsed = min(cfg.Warmup, end.Sub(start))
		warm.finish()
		rep.Warmup = warm
	}
	return rep, nil
}

// newReport is an empty report of a run with the given clusters.
func newReport(clusters int) *Report {
	return &Report{Clusters: clusters, ErrorsBy: map[string]int64{}, FirstError: map[string]string{}}
}

// checkHealth fails fast when nothing answers at the URL.
func checkHealth(ctx context.Context, api *client.Client, base string) error {
	resp, err := api.Health(ctx)
	if err != nil {
		return fmt.Errorf("flexd at %s is not reachable: %w", base, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("flexd at %s: /healthz answered %d", base, resp.StatusCode)
	}
	return nil
}

// loader holds what the cluster goroutines share.
type loader struct {
	cfg Config
	api *client.Client
	sem chan struct{}
	// sent counts epochs claimed against budget (MaxEpochs, 0: none).
	sent   atomic.Int64
	budget int64
	// measureFrom ends the warm-up: a request sent before it counts in
	// the warm-up's report, not the run's.
	measureFrom time.Time
}

// claim reserves one epoch of the --max-epochs budget.
func (l *loader) claim() bool {
	if l.budget == 0 {
		return true
	}
	return l.sent.Add(1) <= l.budget
}

// cluster is one virtual cluster's loop: post the shim's next epoch, apply
// the decision, wait for the next tick (or not, with --open). It returns
// what it saw after the warm-up and during it.
func (l *loader) cluster(ctx context.Context, i int, ct ClusterToken) (measured, warmup *Report) {
	measured, warmup = newReport(0), newReport(0)
	mapSlots := l.cfg.MapSlots
	if mapSlots == 0 {
		mapSlots = l.cfg.Jobs
	}
	reduceSlots := l.cfg.ReduceSlots
	if reduceSlots == 0 {
		reduceSlots = max(1, l.cfg.Jobs/2)
	}
	sh := shim.New(shim.Config{
		Cluster: ct.Cluster, Seed: l.cfg.Seed + uint64(i), Jobs: l.cfg.Jobs, Replace: true,
		StaggerProgress: true, MapSlots: mapSlots, ReduceSlots: reduceSlots,
		EpochLength: l.cfg.Interval.Seconds(), Policy: l.cfg.Policy, RatioMode: l.cfg.RatioMode,
	})
	next := time.Now()
	if !l.cfg.Open {
		// Spread the clusters over the interval, as independent shims are.
		next = next.Add(time.Duration(rand.Int64N(int64(l.cfg.Interval))))
	}
	var (
		body []byte
		// answer is reused for every response: a cluster has one request
		// in flight at a time.
		answer bytes.Buffer
	)
	for {
		if !l.cfg.Open {
			if !sleepUntil(ctx, next) {
				return measured, warmup
			}
			next = next.Add(l.cfg.Interval)
			if now := time.Now(); next.Before(now) {
				next = now // behind: no catch-up burst
			}
		}
		if ctx.Err() != nil || !l.claim() {
			return measured, warmup
		}
		// The epoch counts where it is sent: in the warm-up or after.
		rep := measured
		if time.Now().Before(l.measureFrom) {
			rep = warmup
		}
		if body == nil {
			// A fresh buffer each epoch (the transport may still hold the
			// last one), sized by it.
			req := sh.Request()
			b, err := gojson.Marshal(&req)
			if err != nil {
				rep.countError("encode", err.Error())
				return measured, warmup
			}
			body = b
		}
		status, respBody, lat, err := l.post(ctx, ct.Cluster, ct.Token, body, &answer)
		if ctx.Err() != nil && err != nil {
			return measured, warmup // the run ended mid-request: not the server's fault
		}
		rep.Sent++
		rep.latencies = append(rep.latencies, lat)
		rep.BytesSent += int64(len(body))
		switch {
		case err != nil:
			rep.countError("transport", err.Error())
			continue // retry the same epoch
		case status/100 != 2:
			rep.countError(strconv.Itoa(status), fmt.Sprintf("%.200s", respBody))
			if status == http.StatusTooManyRequests || status >= 500 {
				continue // transient: retry the same epoch
			}
			return measured, warmup // 4xx: this cluster's sequence is broken
		}
		dec, err := readDecision(respBody)
		if err != nil {
			rep.countError("decode", err.Error())
			return measured, warmup
		}
		if err := sh.Apply(httpapi.EpochResponse{Cluster: dec.Cluster, Epoch: dec.Epoch, Allocations: dec.Allocations}); err != nil {
			rep.countError("decision", err.Error())
			return measured, warmup
		}
		rep.OK++
		rep.BytesReceived += int64(len(respBody))
		body = nil
	}
}

// appliedDecision is the part of an EpochResponse the shim uses.
type appliedDecision struct {
	Cluster     string                    `json:"cluster"`
	Epoch       int64                     `json:"epoch"`
	Allocations []httpapi.EpochAllocation `json:"allocations"`
}

// readDecision checks that an answer is one JSON object and decodes the
// part the shim applies. goccy/go-json skips the rest (the phases' plans
// and maps it never reads) without building it: the load tool shares the
// machine with the server, and work here is CPU taken from flexd.
func readDecision(body []byte) (appliedDecision, error) {
	var dec appliedDecision
	if err := gojson.Unmarshal(body, &dec); err != nil {
		return appliedDecision{}, fmt.Errorf("decoding a decision: %w", err)
	}
	return dec, nil
}

// post sends one epoch and returns the status, the answer (read into buf,
// valid until the next call with it) and the latency.
func (l *loader) post(ctx context.Context, cluster, token string, body []byte, buf *bytes.Buffer) (int, []byte, time.Duration, error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return 0, nil, 0, ctx.Err()
	}
	defer func() { <-l.sem }()
	start := time.Now()
	resp, err := l.api.DecideEpochWithBody(ctx, cluster, nil, "application/json", bytes.NewReader(body), client.BearerToken(token))
	if err != nil {
		return 0, nil, time.Since(start), fmt.Errorf("posting: %w", err)
	}
	buf.Reset()
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	lat := time.Since(start)
	if err != nil {
		return 0, nil, lat, fmt.Errorf("reading answer: %w", err)
	}
	return resp.StatusCode, buf.Bytes(), lat, nil
}

// sleepUntil waits for t or the end of ctx, reporting whether t came.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Report is what a run measured.
type Report struct {
	Clusters int
	Sent     int64 // requests sent, retries included
	OK       int64 // 2xx answers
	ErrorsBy map[string]int64
	// FirstError holds, by kind, the first error of that kind seen (by
	// some cluster): what went wrong, for the report.
	FirstError    map[string]string
	BytesSent     int64
	BytesReceived int64
	Elapsed       time.Duration
	latencies     []time.Duration
	// P50 .. Max are over every answered request, errors included.
	P50, P90, P99, Max, Mean time.Duration
	// Warmup is what the requests sent during --warmup saw, left out of
	// everything above (nil without a warm-up).
	Warmup *Report
}

// countError counts an error of kind, keeping detail if it is the first.
func (r *Report) countError(kind, detail string) {
	r.ErrorsBy[kind]++
	if _, ok := r.FirstError[kind]; !ok {
		r.FirstError[kind] = detail
	}
}

func (r *Report) merge(o *Report) {
	r.Sent += o.Sent
	r.OK += o.OK
	r.BytesSent += o.BytesSent
	r.BytesReceived += o.BytesReceived
	for k, v := range o.ErrorsBy {
		r.ErrorsBy[k] += v
	}
	for k, v := range o.FirstError {
		if _, ok := r.FirstError[k]; !ok {
			r.FirstError[k] = v
		}
	}
	r.latencies = append(r.latencies, o.latencies...)
}

// finish computes the percentiles: the samples are bounded by the run's
// duration and epoch budget, so sorting them all is exact and cheap.
func (r *Report) finish() {
	if len(r.latencies) == 0 {
		return
	}
	slices.Sort(r.latencies)
	r.P50, r.P90, r.P99 = percentile(r.latencies, 50), percentile(r.latencies, 90), percentile(r.latencies, 99)
	r.Max = r.latencies[len(r.latencies)-1]
	var sum time.Duration
	for _, d := range r.latencies {
		sum += d
	}
	r.Mean = sum / time.Duration(len(r.latencies))
}

// percentile is the nearest-rank percentile of sorted samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// Errors is the number of failed requests.
func (r *Report) Errors() int64 {
	var n int64
	for _, v := range r.ErrorsBy {
		n += v
	}
	return n
}

// EpochsPerSecond is the rate of answered epochs over the run.
func (r *Report) EpochsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.OK) / r.Elapsed.Seconds()
}

// Print writes the report for a human (and for grep).
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "clusters        %d\n", r.Clusters)
	fmt.Fprintf(w, "elapsed         %.2fs\n", r.Elapsed.Seconds())
	fmt.Fprintf(w, "epochs sent     %d\n", r.Sent)
	fmt.Fprintf(w, "epochs ok       %d\n", r.OK)
	fmt.Fprintf(w, "errors          %d", r.Errors())
	for _, k := range slices.Sorted(maps.Keys(r.ErrorsBy)) {
		fmt.Fprintf(w, "  %s:%d", k, r.ErrorsBy[k])
	}
	fmt.Fprintln(w)
	for _, k := range slices.Sorted(maps.Keys(r.FirstError)) {
		fmt.Fprintf(w, "first %-9s %s\n", k, r.FirstError[k])
	}
	fmt.Fprintf(w, "epochs/s        %.1f\n", r.EpochsPerSecond())
	fmt.Fprintf(w, "latency ms      p50 %.2f  p90 %.2f  p99 %.2f  max %.2f  mean %.2f\n",
		ms(r.P50), ms(r.P90), ms(r.P99), ms(r.Max), ms(r.Mean))
	if r.Sent > 0 {
		fmt.Fprintf(w, "bytes/epoch     request %d  response %d\n", r.BytesSent/r.Sent, r.BytesReceived/max(r.OK, 1))
	}
	if wu := r.Warmup; wu != nil {
		// One line, left out of the figures above: a server's first
		// seconds (connections opened, memory first touched) are not its
		// steady state.
		fmt.Fprintf(w, "warm-up         %.2fs  epochs ok %d  errors %d  p50 %.2f  p99 %.2f  max %.2f\n",
			wu.Elapsed.Seconds(), wu.OK, wu.Errors(), ms(wu.P50), ms(wu.P99), ms(wu.Max))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
