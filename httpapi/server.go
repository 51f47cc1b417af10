package httpapi

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/semaphore"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/store"
)

// Store is the history the handlers need; store/memory and
// store/postgres implement it as they are. Errors are the store package's
// sentinels: store.ErrNotFound, store.ErrConflict, store.ErrStaleState.
type Store interface {
	// SaveEpoch stores rec and advances the cluster's state from
	// prevStateEpoch (0 for a cluster without state) in one transaction.
	// A (cluster, epoch) already stored with the same request hash returns
	// the stored record and replay true.
	SaveEpoch(ctx context.Context, rec store.Record, prevStateEpoch int64) (stored store.Record, replay bool, err error)
	// GetEpoch returns one stored epoch, or ErrNotFound.
	GetEpoch(ctx context.Context, cluster string, epoch int64) (store.Record, error)
	// ListEpochs returns one page, newest first, and the next page's
	// cursor (nil on the last page).
	ListEpochs(ctx context.Context, cluster string, q store.Query) ([]store.Record, *int64, error)
	// StreamEpochs calls fn for each stored epoch in [from, to], oldest first.
	StreamEpochs(ctx context.Context, cluster string, from, to *int64, fn func(store.Record) error) error
	// LatestState returns the cluster's state as last saved (Found false
	// for a cluster never saved).
	LatestState(ctx context.Context, cluster string) (store.State, error)
	// StartEpoch returns, in one call, the cluster's state and the epoch's
	// record if it is stored: all an epoch post reads before deciding.
	StartEpoch(ctx context.Context, cluster string, epoch int64) (store.Start, error)
	// LookupToken returns the token whose hex SHA-256 is hash, or ErrNotFound.
	LookupToken(ctx context.Context, hash string) (store.Token, error)
	// HasTokens reports whether any token exists: without one, access
	// control is off (and cmd/flexd listens on loopback only).
	HasTokens(ctx context.Context) (bool, error)
	// Ping checks the store is reachable.
	Ping(ctx context.Context) error
}

// MigrationChecker reports whether the schema is current; /readyz is not
// ready until it is. The postgres Migrator's Applied method fits.
type MigrationChecker interface {
	Applied(ctx context.Context) (bool, error)
}

// DegradedReporter is implemented by stores that spool records locally when
// the database is away; /readyz says "degraded" while they do.
type DegradedReporter interface {
	Degraded() bool
}

// spooling reports whether the store spools records locally now (a
// DegradedReporter saying so). It asks the configured store, not the
// instrumented wrapper, which hides the interface.
func (s *Server) spooling() bool {
	d, ok := s.cfg.Store.(DegradedReporter)
	return ok && d.Degraded()
}

// SpoolReporter is implemented by spooling stores that can say how much
// waits for the database: /readyz shows it beside "degraded".
type SpoolReporter interface {
	// SpoolDepth returns the records waiting and the age of the oldest.
	SpoolDepth() (records int, oldest time.Duration)
}

// Config configures a Server. The zero value of every field but Store is a
// usable default.
type Config struct {
	// Store holds history and tokens. Required.
	Store Store
	// Migrations, when set, is asked by /readyz whether the schema is
	// current; nil means the store has no schema (memory).
	Migrations MigrationChecker
	// Policies looks a policy up by name for /v1/solve and epochs; nil
	// means solver.ByName. Tests and the simulator plug fakes in here.
	Policies func(name string) (solver.Solver, bool)
	// Limits bound epoch requests (jobs, slots); zero means the solver's.
	Limits epoch.Limits
	// Logger receives access logs and internal errors; nil means
	// slog.Default().
	Logger *slog.Logger
	// Registerer receives the Prometheus collectors and Gatherer serves
	// them on /metrics; nil means a fresh registry private to the Server
	// (no package globals, so tests can build many servers).
	Registerer prometheus.Registerer
	Gatherer   prometheus.Gatherer
	// BodyLimit caps a request body in bytes; 0 means 8 MiB.
	BodyLimit int64
	// InFlightBytes bounds the request bodies being handled at once, in
	// bytes (each request counts its declared length, or BodyLimit when it
	// declares none); past it a request is refused with 503. 0 means twice
	// BodyLimit (with the default 8 MiB cap and serve's 1 GiB memory limit:
	// 32 concurrent 8 MiB epochs peaked at 640 MB of RSS, 2 decided and 30
	// refused); negative, no bound.
	InFlightBytes int64
	// MaxDeciding bounds the requests that decide at once (POST /v1/solve,
	// epochs and slot-config plans); the others wait for a slot in the
	// order they came, within their RequestTimeout, with their body
	// bytes reserved (InFlightBytes also bounds the queue). 0 means
	// DefaultMaxDeciding; negative, no bound. Why: deciding is CPU work,
	// and an epoch holds a database connection between its two calls;
	// with every request let in at once, those holding a connection
	// queued for the CPU behind the rest (150 clusters arriving within
	// half a second on 2 cores: 130 requests waiting for one of 16
	// connections while PostgreSQL sat idle).
	MaxDeciding int
	// RequestTimeout bounds a request's context (streams excepted); 0 means
	// 30 seconds.
	RequestTimeout time.Duration
	// ExportWriteTimeout bounds how long one line of the epochs.jsonl
	// export may take to leave (a reader that stops reading is cut off);
	// 0 means ExportWriteTimeout.
	ExportWriteTimeout time.Duration
	// RateLimit is requests per second allowed per token (or for all
	// anonymous callers together when auth is off); 0 means 50, negative
	// disables rate limiting. RateBurst is the bucket size; 0 means
	// 2*RateLimit rounded up, at least 1.
	RateLimit float64
	RateBurst int
	// RateLimiters bounds the per-token limiters kept in memory; 0 means
	// 10000. The oldest is dropped past it.
	RateLimiters int
	// TokenCacheTTL is how long token lookups (and whether any token
	// exists) are remembered, so that a request does not cost a database
	// round trip before its real work. A token created meanwhile may take
	// up to this long to work, and a deleted one up to this long to stop
	// working. 0 means DefaultTokenCacheTTL; negative disables the cache.
	TokenCacheTTL time.Duration
	// AuthLookupRate bounds, per client address, the failed token lookups
	// (each costs a database query): per second, with a burst of twice
	// that; an address past it gets 429 for tokens not known to be valid,
	// before any lookup. 0 means 10; negative disables the bound.
	AuthLookupRate float64
	// RequireTokens keeps access control on even when no token exists:
	// a request without a valid token is then refused (401) instead of
	// served as an administrator. flexd serve sets it when it listens
	// beyond loopback (without --insecure), so that deleting the last token
	// at runtime closes the service rather than opening it (issue 16).
	RequireTokens bool
	// StaleRetries is how many times an epoch is re-decided when another
	// replica saved the cluster's state in between; 0 means 3.
	StaleRetries int
	// Now is the clock used for latency measurements; nil means time.Now.
	Now func() time.Time
}

// Server serves the flexd API. Create it with New; it is an http.Handler.
type Server struct {
	// timedOut remembers the epochs whose decision ran out of time.
	timedOut timedOutSet
	cfg      Config
	log      *slog.Logger
	store    Store
	metrics  *metrics
	gatherer prometheus.Gatherer
	limiter  *rateLimiter
	// tokens caches token lookups; nil when the cache is off.
	tokens  *tokenCache
	handler http.Handler
	// draining is set by StartDrain: new requests answer 503.
	draining atomic.Bool
	// shuttingDown is set by BeginShutdown: /readyz answers 503
	// shutting_down, everything else is served as before.
	shuttingDown atomic.Bool
	// authLimiter bounds lookups of unknown tokens per address
	// (Config.AuthLookupRate); nil when unbounded.
	authLimiter *rateLimiter
	// deciding bounds the requests that decide (Config.MaxDeciding); nil
	// when unbounded.
	deciding *semaphore.Weighted
	// inFlight bounds the body bytes being handled (Config.InFlightBytes);
	// nil when unbounded.
	inFlight *semaphore.Weighted
}

// New validates cfg, applies defaults and builds the router.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("httpapi: Config.Store is required")
	}
	if cfg.Policies == nil {
		cfg.Policies = solver.ByName
	}
	if cfg.BodyLimit < 0 || cfg.RequestTimeout < 0 || cfg.RateBurst < 0 || cfg.RateLimiters < 0 || cfg.StaleRetries < 0 {
		return nil, errors.New("httpapi: negative limits are not allowed (except RateLimit, to disable it)")
	}
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	cfg.BodyLimit = cmp.Or(cfg.BodyLimit, DefaultBodyLimit)
	cfg.InFlightBytes = cmp.Or(cfg.InFlightBytes, 2*cfg.BodyLimit)
	cfg.MaxDeciding = cmp.Or(cfg.MaxDeciding, DefaultMaxDeciding())
	cfg.ExportWriteTimeout = cmp.Or(cfg.ExportWriteTimeout, ExportWriteTimeout)
	cfg.RequestTimeout = cmp.Or(cfg.RequestTimeout, 30*time.Second)
	cfg.RateLimit = cmp.Or(cfg.RateLimit, 50)
	cfg.AuthLookupRate = cmp.Or(cfg.AuthLookupRate, 10)
	cfg.RateLimiters = cmp.Or(cfg.RateLimiters, 10000)
	cfg.StaleRetries = cmp.Or(cfg.StaleRetries, 3)
	cfg.TokenCacheTTL = cmp.Or(cfg.TokenCacheTTL, DefaultTokenCacheTTL)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Registerer == nil && cfg.Gatherer == nil {
		reg := prometheus.NewRegistry()
		cfg.Registerer, cfg.Gatherer = reg, reg
	} else if cfg.Registerer == nil || cfg.Gatherer == nil {
		return nil, errors.New("httpapi: set both Config.Registerer and Config.Gatherer, or neither")
	}
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		store:    instrumentStore(cfg.Store, m, cfg.Now),
		metrics:  m,
		gatherer: cfg.Gatherer,
	}
	if cfg.TokenCacheTTL > 0 {
		s.tokens = newTokenCache(cfg.TokenCacheTTL, cfg.Now)
	}
	if cfg.InFlightBytes > 0 {
		// Never below one largest body, or a legal request could never run.
		s.inFlight = semaphore.NewWeighted(max(cfg.InFlightBytes, cfg.BodyLimit))
	}
	if cfg.MaxDeciding > 0 {
		s.deciding = semaphore.NewWeighted(int64(cfg.MaxDeciding))
	}
	if cfg.RateLimit > 0 {
		burst := cmp.Or(cfg.RateBurst, max(1, int(2*cfg.RateLimit+0.999)))
		s.limiter = newRateLimiter(cfg.RateLimit, burst, cfg.RateLimiters)
	}
	if cfg.AuthLookupRate > 0 {
		s.authLimiter = newRateLimiter(cfg.AuthLookupRate, max(1, int(2*cfg.AuthLookupRate)), cfg.RateLimiters)
	}
	s.handler = s.routes()
	return s, nil
}

// DefaultMaxDeciding is Config.MaxDeciding when it is zero: four requests
// per CPU the Go runtime may use, enough to keep the CPUs busy while some
// wait on the database. Measured with scripts/load.sh (150 clusters, 300
// epochs/s, 2 cores; docs/request-cost.md), three runs each, p99 in the
// first 10 s of a cold server 1.10-1.32 s unbounded, 0.53-0.76 s at 8;
// afterwards 108-153 ms, 61-78 ms.
func DefaultMaxDeciding() int { return 4 * runtime.GOMAXPROCS(0) }

// DefaultTokenCacheTTL is how long token lookups are cached when
// Config.TokenCacheTTL is zero.
const DefaultTokenCacheTTL = 5 * time.Second

// DefaultBodyLimit is the request body cap when Config.BodyLimit is zero.
const DefaultBodyLimit = 8 << 20

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// BeginShutdown is the first step of a graceful shutdown: /readyz answers
// 503 shutting_down, so load balancers stop sending, while every other
// request is still served as before. StartDrain is the second.
func (s *Server) BeginShutdown() { s.shuttingDown.Store(true) }

// StartDrain marks the server as shutting down: from now on new requests
// answer 503 and /readyz fails, so load balancers move away while
// http.Server.Shutdown lets in-flight requests finish.
func (s *Server) StartDrain() { s.draining.Store(true) }

func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	// observe sits outside recoverer so a recovered panic is counted and
	// logged with the 500 it became.
	r.Use(s.requestID, s.observe, s.recoverer, s.drain)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.problem(w, r, errNotFound)
	})
	root := r
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		// RFC 9110 section 15.5.6: a 405 names the methods the path has.
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if root.Match(chi.NewRouteContext(), m, r.URL.Path) {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
		}
		s.problem(w, r, &apiError{status: http.StatusMethodNotAllowed, detail: "method " + r.Method + " is not allowed here; allowed: " + strings.Join(allowed, ", ")})
	})

	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Method(http.MethodGet, "/metrics", s.promHandler())
	r.Get("/openapi.yaml", s.openapi)
	r.Get("/swagger", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/swagger/", http.StatusMovedPermanently)
	})
	r.Get("/swagger/*", s.swaggerUI())

	r.Route("/v1", func(r chi.Router) {
		r.Use(s.authenticate, s.rateLimit)
		// Streams are exempt from the request timeout: an export may
		// legitimately outlast it, and the client's disconnect ends it.
		r.Get("/clusters/{cluster}/epochs.jsonl", s.exportEpochs)
		r.Group(func(r chi.Router) {
			r.Use(s.timeout, s.limitBody)
			r.With(s.admit).Post("/solve", s.solve)
			r.With(s.admit).Post("/plan/slot-config", s.planSlotConfig)
			r.Get("/metrics", s.metricMenu)
			r.Get("/clusters", s.listClusters)
			r.With(s.admit).Post("/clusters/{cluster}/epochs", s.postEpoch)
			r.Get("/clusters/{cluster}/epochs", s.listEpochs)
			r.Get("/clusters/{cluster}/epochs/{epoch}", s.getEpoch)
		})
	})
	return r
}
