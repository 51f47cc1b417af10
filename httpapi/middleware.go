package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"
)

type requestIDKey struct{}

// requestIDFrom returns the request's id ("" outside the middleware).
func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// validRequestID accepts a caller's X-Request-Id only when it is short and
// plain, since it is echoed in headers and written to logs.
func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// requestID tags every request with an id (the caller's X-Request-Id when
// sane, else a fresh UUIDv7) and returns it on every response.
func (s *Server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			u, err := uuid.NewV7()
			if err != nil {
				// The random source failed; fall back to v4's own draw
				// rather than serving a request with no id.
				u = uuid.New()
			}
			id = u.String()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// recoverer turns a handler's panic into a logged 500 problem. Panics are
// bugs; the caller gets the request id to report, never the panic value.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler { //nolint:errorlint // sentinel compared as net/http does
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "panic serving request", "request_id", requestIDFrom(r.Context()), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			s.problem(w, r, fmt.Errorf("panic: %v", v))
		}()
		next.ServeHTTP(w, r)
	})
}

// observe writes the access log line and the request metrics, labelled by
// chi's route pattern (bounded cardinality) rather than the raw path. The
// line's duration_seconds is in seconds; probes log at debug level.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.cfg.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		s.metrics.inFlight.Inc()
		defer s.metrics.inFlight.Dec()
		defer func() {
			elapsed := s.cfg.Now().Sub(start)
			status := ww.Status()
			if status == 0 {
				status = http.StatusOK
			}
			route := "unmatched"
			if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
				route = rc.RoutePattern()
			}
			label, level := strconv.Itoa(status), slog.LevelInfo
			if isProbe(r.URL.Path) {
				// Load balancers and Prometheus call these every few
				// seconds: their lines would drown the requests.
				level = slog.LevelDebug
			}
			if status == StatusClientClosed {
				// Not an outcome of flexd's: kept apart from the 5xx and
				// logged only when debugging.
				label, level = "client_closed", slog.LevelDebug
			}
			s.metrics.requestSeconds.WithLabelValues(route, r.Method, label).Observe(elapsed.Seconds())
			s.log.Log(r.Context(), level, "request",
				"request_id", requestIDFrom(r.Context()),
				"method", r.Method, "path", r.URL.Path, "route", route,
				"status", status, "bytes", ww.BytesWritten(),
				"duration_seconds", elapsed.Seconds(),
				"remote", r.RemoteAddr)
		}()
		next.ServeHTTP(ww, r)
	})
}

// isProbe reports whether path is one of the probes (/healthz, /readyz,
// /metrics), whose access log lines are written at debug level.
func isProbe(path string) bool {
	return path == "/healthz" || path == "/readyz" || path == "/metrics"
}

// drain answers 503 once StartDrain was called, except for the probes,
// which must keep telling the load balancer what is happening.
func (s *Server) drain(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() && r.URL.Path != "/healthz" && r.URL.Path != "/readyz" {
			s.problem(w, r, errShuttingDown)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// timeout bounds the request's context; store calls observe it. A solve is
// bounded by its effort limits instead, since it cannot be interrupted.
func (s *Server) timeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// limitBody caps the body; reading past the cap fails with
// *http.MaxBytesError, which the error table maps to 413. A declared
// Content-Length over the cap is refused before reading anything.
//
// It also bounds the body bytes in flight (Config.InFlightBytes): a request
// reserves its declared length (the body cap when it declares none) before
// it is read, and past the bound it is refused with 503 and Retry-After at
// once, before any decoding; a large epoch costs tens of times its body in
// memory while it is decided, so the bound is what keeps memory bounded
// under many concurrent large requests.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.cfg.BodyLimit {
			s.problem(w, r, &http.MaxBytesError{Limit: s.cfg.BodyLimit})
			return
		}
		if s.inFlight != nil {
			n := r.ContentLength
			if n <= 0 {
				n = s.cfg.BodyLimit
			}
			if !s.inFlight.TryAcquire(n) {
				s.problem(w, r, errBusy)
				return
			}
			s.metrics.inFlightBytes.Add(float64(n))
			defer func() {
				s.metrics.inFlightBytes.Sub(float64(n))
				s.inFlight.Release(n)
			}()
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.BodyLimit)
		next.ServeHTTP(w, r)
	})
}

// admit lets a request that decides run once one of the Config.MaxDeciding
// slots is free; until then it waits, in the order requests came
// (semaphore.Weighted is first come, first served), and gives up when its
// context ends: its timeout (504) or its client gone (499). It runs after
// limitBody, so a waiting request keeps its body bytes reserved and the
// in-flight bound also bounds the queue. The slot is given back when the
// handler returns, or earlier by leaveDeciding.
func (s *Server) admit(next http.Handler) http.Handler {
	if s.deciding == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.deciding.TryAcquire(1) {
			s.metrics.waiting.Inc()
			err := s.deciding.Acquire(r.Context(), 1)
			s.metrics.waiting.Dec()
			if err != nil {
				s.problem(w, r, fmt.Errorf("waiting for a deciding slot: %w", err))
				return
			}
		}
		var once sync.Once
		release := func() { once.Do(func() { s.deciding.Release(1) }) }
		defer release()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), decidingKey{}, release)))
	})
}

// decidingKey is the context key of the function that gives back a
// request's deciding slot (admit).
type decidingKey struct{}

// leaveDeciding gives back r's deciding slot, if it holds one, before the
// end of the request (see postEpoch: an epoch's save while the store
// spools).
func leaveDeciding(r *http.Request) {
	if release, ok := r.Context().Value(decidingKey{}).(func()); ok {
		release()
	}
}

// errBusy refuses a request while too many body bytes are in flight.
var errBusy = &apiError{status: http.StatusServiceUnavailable, detail: "too many large requests in flight; retry shortly"}
