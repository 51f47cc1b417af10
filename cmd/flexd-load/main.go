// Command flexd-load is a bounded load generator for a running flexd: many
// virtual clusters, each a fake shim (tests/shim) posting successive epochs
// at FLEX's half-second cadence or as fast as the server answers, for a
// fixed time or number of epochs. At the end it prints the epochs sent,
// errors by status, the achieved epochs per second and the latency
// distribution, and exits non-zero on any non-2xx answer unless
// --allow-errors. With --warmup it first sends for that long and reports
// those epochs on a line of their own, out of every other figure: a fresh
// server's first seconds (connections opened, memory touched for the first
// time) are not what it does afterwards.
//
//	go run ./cmd/flexd-load --url http://127.0.0.1:8080 --clusters 150 --jobs 200 --duration 20s --open
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

func main() {
	// The load tool shares the machine with the server it measures: collect
	// garbage at five times the live heap (a few MB) rather than twice, so
	// less of the machine goes to the tool. GOGC, when set, wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args, runs the load and prints the report; it returns the
// process's exit code: 0 ok, 1 errors seen (without --allow-errors), 2
// usage or setup problems.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "flexd-load:", err)
		return 2
	}
	rep, err := Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "flexd-load:", err)
		return 2
	}
	rep.Print(stdout)
	if rep.Errors() > 0 && !cfg.AllowErrors {
		fmt.Fprintf(stderr, "flexd-load: %d requests failed (use --allow-errors to accept)\n", rep.Errors())
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (Config, error) {
	var (
		cfg        Config
		tokensFile string
	)
	fs := flag.NewFlagSet("flexd-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.URL, "url", "http://127.0.0.1:8080", "flexd base URL")
	fs.IntVar(&cfg.Clusters, "clusters", 150, "virtual clusters, each posting its own epochs")
	fs.IntVar(&cfg.Jobs, "jobs", 200, "jobs per cluster, kept constant (finished jobs are replaced); both phases carry jobs")
	fs.DurationVar(&cfg.Duration, "duration", 20*time.Second, "how long to send and measure, after the warm-up (bounded: at most 1h)")
	fs.DurationVar(&cfg.Warmup, "warmup", 0, "send this long first, reported on a line of its own and left out of every other figure (a fresh server's first seconds are not its steady state)")
	fs.Int64Var(&cfg.MaxEpochs, "max-epochs", 0, "stop after this many epochs in all (0: only --duration bounds the run)")
	fs.IntVar(&cfg.Concurrency, "concurrency", 0, "requests in flight at most (0: one per cluster)")
	fs.DurationVar(&cfg.Interval, "interval", 500*time.Millisecond, "time between a cluster's epochs (FLEX's cadence); also the epoch_length sent")
	fs.BoolVar(&cfg.Open, "open", false, "open throttle: each cluster posts its next epoch as soon as the last is answered")
	fs.StringVar(&cfg.Token, "token", "", "bearer token for every cluster (an admin token); empty sends none (a server without tokens)")
	fs.StringVar(&tokensFile, "tokens-file", "", `file of "cluster token" lines giving each cluster its own token; clusters are named by it`)
	fs.StringVar(&cfg.Prefix, "prefix", "", "cluster name prefix (default load-<hex unix nanoseconds>-, so reruns on one database never collide)")
	fs.IntVar(&cfg.MapSlots, "map-slots", 0, "map slots per cluster (0: jobs)")
	fs.IntVar(&cfg.ReduceSlots, "reduce-slots", 0, "reduce slots per cluster (0: jobs/2)")
	fs.StringVar(&cfg.Policy, "policy", "flex", "policy sent with every epoch")
	fs.StringVar(&cfg.RatioMode, "ratio-mode", "", "ratio.mode sent with every epoch (empty: the server's default, static)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "workload seed")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Second, "per-request timeout")
	fs.BoolVar(&cfg.AllowErrors, "allow-errors", false, "exit 0 even when some requests failed")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if tokensFile != "" {
		toks, err := readTokens(tokensFile)
		if err != nil {
			return cfg, err
		}
		cfg.ClusterTokens = toks
	}
	if cfg.Prefix == "" {
		cfg.Prefix = fmt.Sprintf("load-%x-", time.Now().UnixNano())
	}
	return cfg, cfg.Validate()
}

// readTokens reads "cluster token" lines; blank lines and # comments are
// skipped.
func readTokens(path string) ([]ClusterToken, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading --tokens-file: %w", err)
	}
	defer f.Close()
	var out []ClusterToken
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want \"cluster token\", got %d fields", path, n, len(fields))
		}
		out = append(out, ClusterToken{Cluster: fields[0], Token: fields[1]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return out, nil
}
