package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/internal/connlimit"
	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/memory"
	"github.com/flexd/flexd/store/postgres"
	"github.com/flexd/flexd/store/resilient"
)

// serveFlags are serve's settings; each flag has a FLEXD_* default.
type serveFlags struct {
	addr            string
	databaseURL     string
	insecure        bool
	bodyLimit       int64
	rateLimit       float64
	rateBurst       int
	retention       time.Duration
	requestTimeout  time.Duration
	shutdownTimeout time.Duration
	// shutdownDelay is how long /readyz answers 503 shutting_down, while
	// every other request is still served, before flexd stops accepting.
	shutdownDelay time.Duration
	// tokenCacheTTL is how long token lookups are remembered (0: off).
	tokenCacheTTL time.Duration
	// dbMaxConns sizes the PostgreSQL pool. pgx's default (4, or the CPU
	// count) queues saves behind one another at a few hundred epochs a
	// second; each save holds a connection for only a round trip or two.
	dbMaxConns int32
	// spoolDir and spoolMaxBytes configure the local spool that keeps
	// answered epochs while PostgreSQL is away (0 bytes: no spool).
	spoolDir      string
	spoolMaxBytes int64
	// inFlightBytes bounds the request bodies handled at once, memoryLimit
	// is the Go runtime's soft memory limit (0: none).
	inFlightBytes, memoryLimit int64
	// maxConns caps open client connections (0: from the open-files limit).
	maxConns int
	// maxDeciding bounds the requests that decide at once (0: no bound).
	maxDeciding int
	// onListen, when set, is told the bound address once the server
	// accepts connections; tests use it instead of polling.
	onListen func(net.Addr)
	// Test hooks, nil in production. signals replaces SIGINT and SIGTERM;
	// onShutdownBegin is called once /readyz answers shutting_down,
	// onStopAccepting once the listener is closed; wrap wraps the
	// handler.
	signals         <-chan os.Signal
	onShutdownBegin func()
	onStopAccepting func()
	wrap            func(http.Handler) http.Handler
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the flexd HTTP API",
		Long: "Serve the HTTP API of docs/api.md. Without --database-url history is kept in\n" +
			"memory (bounded, lost at exit). With it, flexd uses PostgreSQL and applies the\n" +
			"embedded migrations first. With no API token stored, access control is off and\n" +
			"flexd listens on loopback only unless --insecure.\n\n" +
			"Shutdown, on SIGTERM or SIGINT, in two steps: for --shutdown-delay /readyz\n" +
			"answers 503 shutting_down while every other request is still served, so a\n" +
			"load balancer stops sending before anything is refused; a second signal ends\n" +
			"the delay early. Then flexd stops accepting connections, finishes the requests\n" +
			"in flight (for --shutdown-timeout at most), flushes the spool and closes the\n" +
			"database pool.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on, host:port")
	fl.StringVar(&f.databaseURL, "database-url", "", "PostgreSQL URL; empty keeps history in memory")
	fl.BoolVar(&f.insecure, "insecure", false, "allow a non-loopback --addr while no API token exists (no access control)")
	fl.Int64Var(&f.bodyLimit, "body-limit", httpapi.DefaultBodyLimit, "largest request body, bytes")
	fl.Float64Var(&f.rateLimit, "rate-limit", 50, "requests per second per token; 0 disables rate limiting")
	fl.IntVar(&f.rateBurst, "rate-burst", 0, "requests a token may burst; 0 means twice --rate-limit")
	fl.DurationVar(&f.retention, "retention", store.DefaultRetention, "how long stored epochs are kept")
	fl.DurationVar(&f.requestTimeout, "request-timeout", 30*time.Second, "longest time a request may take (exports excepted)")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "longest wait for in-flight requests at shutdown")
	fl.DurationVar(&f.tokenCacheTTL, "token-cache-ttl", httpapi.DefaultTokenCacheTTL, "how long token lookups are remembered: a revoked token is refused within this time, a token's last use is recorded once per it (0: no cache, every request looks its token up)")
	fl.DurationVar(&f.shutdownDelay, "shutdown-delay", DefaultShutdownDelay, "at SIGTERM, how long /readyz answers 503 shutting_down while requests are still served, before flexd stops accepting (a second signal ends it early; 0: none)")
	fl.StringVar(&f.spoolDir, "spool-dir", defaultSpoolDir(), "with --database-url: directory of the local spool that keeps answered epochs while PostgreSQL is away (created 0700)")
	fl.Int64Var(&f.spoolMaxBytes, "spool-max-bytes", DefaultSpoolMaxBytes, "with --database-url: bound of the spool in bytes, beyond which epochs are refused with 503; 0 turns the spool off (epochs then fail while the database is away)")
	fl.IntVar(&f.maxConns, "max-conns", 0, "client connections held open at most; at the cap a new one closes the longest idle (0: the open-files limit less 128)")
	fl.IntVar(&f.maxDeciding, "max-deciding", httpapi.DefaultMaxDeciding(), "requests that decide (solve, epochs, slot-config plans) at once; the others wait their turn, within --request-timeout (0: no bound; the default is 4 per CPU)")
	fl.Int64Var(&f.inFlightBytes, "max-in-flight-bytes", 0, "request bodies handled at once, bytes, beyond which requests get 503 (0: twice --body-limit)")
	fl.Int64Var(&f.memoryLimit, "memory-limit", DefaultMemoryLimit, "soft memory limit of the Go runtime, bytes (GOMEMLIMIT wins when set; 0: none)")
	fl.Int32Var(&f.dbMaxConns, "db-max-conns", DefaultDBMaxConns, "PostgreSQL connections at most; 0 leaves it to pgx (a pool_max_conns in --database-url wins)")
	return cmd
}

func runServe(ctx context.Context, f serveFlags) error {
	switch {
	case f.bodyLimit < 1:
		return usageError{fmt.Errorf("--body-limit %d: want at least 1 byte", f.bodyLimit)}
	case f.rateLimit < 0:
		return usageError{fmt.Errorf("--rate-limit %v: want >= 0", f.rateLimit)}
	case f.rateBurst < 0:
		return usageError{fmt.Errorf("--rate-burst %d: want >= 0", f.rateBurst)}
	case f.dbMaxConns < 0:
		return usageError{fmt.Errorf("--db-max-conns %d: want >= 0", f.dbMaxConns)}
	case f.inFlightBytes < 0, f.memoryLimit < 0, f.maxConns < 0, f.maxDeciding < 0:
		return usageError{errors.New("--max-in-flight-bytes, --memory-limit, --max-conns and --max-deciding must be >= 0")}
	case f.spoolMaxBytes < 0:
		return usageError{fmt.Errorf("--spool-max-bytes %d: want >= 0", f.spoolMaxBytes)}
	case f.spoolMaxBytes > 0 && f.databaseURL != "" && f.spoolDir == "":
		return usageError{errors.New("--spool-dir: empty; name a directory or pass --spool-max-bytes 0")}
	case f.retention <= 0, f.requestTimeout <= 0, f.shutdownTimeout <= 0:
		return usageError{errors.New("--retention, --request-timeout and --shutdown-timeout must be positive")}
	case f.tokenCacheTTL < 0:
		return usageError{fmt.Errorf("--token-cache-ttl %v: want >= 0 (0: off)", f.tokenCacheTTL)}
	case f.shutdownDelay < 0:
		return usageError{fmt.Errorf("--shutdown-delay %v: want >= 0", f.shutdownDelay)}
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usageError{fmt.Errorf("--addr %q: %w", f.addr, err)}
	}
	logger := newLogger()
	tuneGC(f.memoryLimit)
	sigs := f.signals
	if sigs == nil {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
		defer signal.Stop(ch)
		sigs = ch
	}
	// ctx ends when the process stops (after the drain delay): background
	// work (retention, the spool's drain, migrations) stops with it.
	ctx, stop := context.WithCancel(ctx)
	defer stop()

	cfg := httpapi.Config{
		Logger:         logger,
		BodyLimit:      f.bodyLimit,
		RequestTimeout: f.requestTimeout,
		RateLimit:      f.rateLimit,
		RateBurst:      f.rateBurst,
		InFlightBytes:  f.inFlightBytes,
		MaxDeciding:    f.maxDeciding,
		TokenCacheTTL:  f.tokenCacheTTL,
		// Beyond loopback a token is always needed: the check at start is
		// not enough, tokens can be deleted while flexd runs.
		RequireTokens: !isLoopback(f.addr) && !f.insecure,
	}
	if f.rateLimit == 0 {
		cfg.RateLimit = -1 // the flag's 0 means off; Config's 0 means default
	}
	if f.maxDeciding == 0 {
		cfg.MaxDeciding = -1 // likewise
	}
	if f.tokenCacheTTL == 0 {
		cfg.TokenCacheTTL = -1 // likewise
	}
	// /metrics: the server's own series, the Go runtime's and the
	// process's (memory, goroutines, open files against the limit).
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return fmt.Errorf("registering runtime metrics: %w", err)
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return fmt.Errorf("registering process metrics: %w", err)
	}
	cfg.Registerer, cfg.Gatherer = reg, reg
	var pruner store.Pruner
	if f.databaseURL == "" {
		mem := memory.New(memory.Config{})
		perCluster, total := mem.Limits()
		logger.Warn("no --database-url: history is kept in memory, bounded and lost at exit",
			"max_epochs_per_cluster", perCluster, "max_epochs", total)
		cfg.Store, pruner = mem, mem
	} else {
		spooling := f.spoolMaxBytes > 0
		pool, err := openDatabaseConns(ctx, f.databaseURL, f.dbMaxConns, logger)
		var ue usageError
		switch {
		case err == nil:
		case !spooling || errors.As(err, &ue):
			return err
		default:
			// Answering the shim matters more than recording the answer:
			// serve from the spool and migrate once the database answers.
			logger.Warn("the database is unreachable at start: serving, spooling history until it answers", "error", err)
			if pool, err = connectLazy(f.databaseURL, f.dbMaxConns); err != nil {
				return err
			}
			go migrateWhenUp(ctx, pool, logger)
		}
		defer pool.Close()
		migrator, err := postgres.NewMigrator(pool, postgres.MigratorConfig{})
		if err != nil {
			return fmt.Errorf("preparing the readiness check of migrations: %w", err)
		}
		defer func() {
			if err := migrator.Close(); err != nil {
				logger.Error("closing migrator", "error", err)
			}
		}()
		pg := postgres.New(pool)
		cfg.Store, cfg.Migrations, pruner = pg, migrator, pg
		if spooling {
			rs, err := resilient.New(pg, resilient.Config{Dir: f.spoolDir, MaxBytes: f.spoolMaxBytes, Logger: logger})
			if err != nil {
				return fmt.Errorf("opening the spool: %w", err)
			}
			defer func() {
				if err := rs.Close(); err != nil {
					logger.Error("closing the spool", "error", err)
				}
			}()
			if err := registerSpoolMetrics(reg, rs); err != nil {
				return err
			}
			cfg.Store = rs
			drainCtx, stopDrain := context.WithCancel(ctx)
			drained := make(chan struct{})
			go func() {
				defer close(drained)
				rs.Drain(drainCtx, time.Second, 30*time.Second)
			}()
			defer func() {
				stopDrain()
				<-drained
			}()
			logger.Info("spool ready: epochs answered while PostgreSQL is away are kept here", "dir", f.spoolDir, "max_bytes", f.spoolMaxBytes)
		}
	}

	hasTokens, err := cfg.Store.HasTokens(ctx)
	switch {
	case errors.Is(err, store.ErrUnavailable):
		// A first start while the database is away: whether tokens exist
		// is unknown, so requests wait for the database (503) rather than
		// run without access control.
		if !isLoopback(f.addr) && !f.insecure {
			return usageError{fmt.Errorf("--addr %s is not a loopback address, and whether API tokens exist is unknown until the database answers: "+
				"start once with the database up, or pass --insecure", f.addr)}
		}
		logger.Warn("whether API tokens exist is unknown until the database answers; requests get 503 until then")
		hasTokens = true
	case err != nil:
		return fmt.Errorf("checking for API tokens: %w", err)
	}
	if !hasTokens {
		if !isLoopback(f.addr) && !f.insecure {
			return usageError{fmt.Errorf("--addr %s is not a loopback address and no API token exists, so anyone could use flexd: "+
				"create one with `flexd token create` or pass --insecure", f.addr)}
		}
		logger.Warn("no API token exists: access control is off", "addr", f.addr)
	}

	srv, err := httpapi.New(cfg)
	if err != nil {
		return fmt.Errorf("building the HTTP server: %w", err)
	}
	raw, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", f.addr, err)
	}
	maxConns := f.maxConns
	if maxConns == 0 {
		maxConns = connsFromFileLimit()
	}
	ln := connlimit.New(raw, maxConns)
	var handler http.Handler = srv
	if f.wrap != nil {
		handler = f.wrap(srv)
	}
	hs := &http.Server{
		ConnState:         ln.ConnState,
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// Bodies are capped at --body-limit; give slow clients time to
		// send one, but not forever.
		ReadTimeout: f.requestTimeout,
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}

	retentionCtx, stopRetention := context.WithCancel(ctx)
	retentionDone := make(chan struct{})
	go func() {
		defer close(retentionDone)
		store.RunRetention(retentionCtx, pruner, store.RetentionConfig{Keep: f.retention, Logger: logger})
	}()
	defer func() {
		stopRetention()
		<-retentionDone
	}()

	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	logger.Info("flexd serving", "addr", ln.Addr().String(), "store", storeKind(f.databaseURL))
	if f.onListen != nil {
		f.onListen(ln.Addr())
	}

	if f.onStopAccepting != nil {
		hs.RegisterOnShutdown(f.onStopAccepting) // run once the listener is closed
	}
	select {
	case err := <-serveErr:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	case sig := <-sigs:
		logger.Info("signal received", "signal", sig.String())
	}
	// Step 1: tell the load balancer, keep serving.
	srv.BeginShutdown()
	logger.Info("shutting down: /readyz answers 503 shutting_down while requests are still served", "delay", f.shutdownDelay)
	if f.onShutdownBegin != nil {
		f.onShutdownBegin()
	}
	if f.shutdownDelay > 0 {
		delay := time.NewTimer(f.shutdownDelay)
		select {
		case <-delay.C:
		case sig := <-sigs:
			delay.Stop()
			logger.Info("second signal: ending the shutdown delay early", "signal", sig.String())
		case err := <-serveErr:
			delay.Stop()
			return fmt.Errorf("serving: %w", err)
		}
	}
	// Step 2: stop accepting, finish what is in flight.
	logger.Info("shutting down: no new connections, finishing in-flight requests", "timeout", f.shutdownTimeout)
	srv.StartDrain()
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	logger.Info("stopped")
	return nil
}

func storeKind(url string) string {
	if url == "" {
		return "memory"
	}
	return "postgres"
}

// openDatabase builds the pool, checks the database answers and applies the
// embedded migrations (goose's session lock lets replicas start together).
func openDatabase(ctx context.Context, url string, logger *slog.Logger) (*pgxpool.Pool, error) {
	return openDatabaseConns(ctx, url, 0, logger)
}

// serveGCPercent is serve's GOGC unless the environment sets one. Each
// epoch of 200 jobs allocates about 2 MB while the live heap stays in the
// tens of MB, so Go's default (collect when the heap doubles) collects
// dozens of times a second at hundreds of epochs a second, each time
// marking the whole live heap; collecting at five times the live heap cuts
// that CPU by about four for some tens of MB of memory.
const serveGCPercent = 400

// tuneGC applies serveGCPercent unless GOGC is set, and memoryLimit as
// the runtime's soft memory limit unless GOMEMLIMIT is.
func tuneGC(memoryLimit int64) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	// GOGC=400 trades memory for CPU; the soft limit makes the collector
	// work harder instead once the heap nears it, so a burst of large
	// requests does not take the process to gigabytes.
	if os.Getenv("GOMEMLIMIT") == "" && memoryLimit > 0 {
		debug.SetMemoryLimit(memoryLimit)
	}
}

// connsFromFileLimit is the default connection cap: the open-files limit
// (which Go raises to the hard limit at start) less 128 for the database
// pool, the spool and the rest, and at least 64.
func connsFromFileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<20 {
		return 1 << 20
	}
	return max(64, int(rl.Cur)-128)
}

// DefaultShutdownDelay is how long /readyz reports shutting_down before
// flexd stops accepting: a few of a load balancer's probe intervals.
const DefaultShutdownDelay = 5 * time.Second

// DefaultMemoryLimit is serve's soft memory limit: 1 GiB.
const DefaultMemoryLimit = 1 << 30

// DefaultDBMaxConns is serve's pool size when neither --db-max-conns nor the
// URL's pool_max_conns says otherwise.
const DefaultDBMaxConns = 16

// openDatabaseConns is openDatabase with the pool capped at maxConns
// connections (0: the URL's pool_max_conns or pgx's default).
func openDatabaseConns(ctx context.Context, url string, maxConns int32, logger *slog.Logger) (*pgxpool.Pool, error) {
	pool, err := connectConns(ctx, url, maxConns)
	if err != nil {
		return nil, err
	}
	if err := postgres.Migrate(ctx, pool, postgres.MigratorConfig{Logger: logger}); err != nil {
		pool.Close()
		return nil, fmt.Errorf("applying migrations: %w", err)
	}
	return pool, nil
}

// DefaultSpoolMaxBytes bounds the spool: 1 GiB, about 10,000 epochs of
// 200 jobs (a record holds the request and the decision, about 100 kB):
// an hour and a half of one cluster at the half-second cadence, but only
// half a minute of 150 clusters; size it to the outage to ride out.
const DefaultSpoolMaxBytes = 1 << 30

// defaultSpoolDir is the spool's directory under the user's state
// directory ($XDG_STATE_HOME, else ~/.local/state), or "" when there is no
// home to put it in.
func defaultSpoolDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "flexd", "spool")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "state", "flexd", "spool")
}

// connectLazy builds the pool without reaching the database: pgx connects
// on first use, so the pool serves once the database answers.
func connectLazy(url string, maxConns int32) (*pgxpool.Pool, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, usageError{errors.New("--database-url: not a valid PostgreSQL connection string")}
	}
	if maxConns > 0 && !strings.Contains(url, "pool_max_conns") {
		pcfg.MaxConns = maxConns
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	if err != nil {
		return nil, fmt.Errorf("opening the database pool: %w", err)
	}
	return pool, nil
}

// migrateWhenUp applies the migrations once the database answers, retrying
// with a growing pause; it logs the first failure and the success only.
func migrateWhenUp(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) {
	wait := time.Second
	logged := false
	for {
		err := postgres.Migrate(ctx, pool, postgres.MigratorConfig{Logger: logger})
		if err == nil {
			logger.Info("the database answers: migrations applied")
			return
		}
		if !logged {
			logger.Warn("migrations wait for the database", "error", err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// registerSpoolMetrics exports the spool's state on /metrics.
func registerSpoolMetrics(reg prometheus.Registerer, rs *resilient.Store) error {
	status := func() resilient.Status { return rs.Status(time.Now()) }
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "flexd_spool_records", Help: "Epoch records waiting in the local spool for the database."},
			func() float64 { return float64(status().Records) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "flexd_spool_bytes", Help: "Size of the local spool file, bytes."},
			func() float64 { return float64(status().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "flexd_spool_oldest_age_seconds", Help: "Age of the oldest spooled record, seconds (0 when empty)."},
			func() float64 { return status().OldestAge.Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "flexd_spool_aside_records", Help: "Spooled records the database refused, kept aside."},
			func() float64 { return float64(status().Aside) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "flexd_spool_drained_total", Help: "Spooled records written to the database."},
			func() float64 { return float64(status().Drained) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "flexd_spool_drain_errors_total", Help: "Drains stopped by a database error."},
			func() float64 { return float64(status().DrainErrors) }),
	} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("registering spool metrics: %w", err)
		}
	}
	return nil
}

// connect builds a pgx pool and pings it. A malformed URL is the caller's
// fault (exit 2); an unreachable database is not.
func connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	return connectConns(ctx, url, 0)
}

// connectConns is connect with the pool capped at maxConns connections,
// unless maxConns is 0 or the URL sets pool_max_conns itself (an explicit
// URL setting is the more specific one).
func connectConns(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The parse error may quote the URL, password included; say only
		// that it is malformed.
		return nil, usageError{errors.New("--database-url: not a valid PostgreSQL connection string")}
	}
	if maxConns > 0 && !strings.Contains(url, "pool_max_conns") {
		pcfg.MaxConns = maxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("opening the database pool: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connecting to the database at %s: %w", pcfg.ConnConfig.Host, err)
	}
	return pool, nil
}

// isLoopback reports whether addr's host can only be reached from this
// machine: localhost or a loopback IP. An empty host, 0.0.0.0, :: and any
// other name listen beyond it.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
