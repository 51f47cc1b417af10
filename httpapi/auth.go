package httpapi

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/flexd/flexd/store"
)

// principal is who a request acts as.
type principal struct {
	// key identifies the caller for rate limiting: the token's hash, or ""
	// for anonymous callers when auth is off.
	key     string
	admin   bool
	cluster string
}

type principalKey struct{}

// HashToken returns the hex SHA-256 of a token, the only form stored.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// authenticate resolves the bearer token. When no token exists at all,
// access control is off and every caller is an anonymous admin (cmd/flexd
// then refuses to listen beyond loopback unless --insecure).
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var p principal
		auth := r.Header.Get("Authorization")
		if auth == "" {
			any, err := s.hasTokens(ctx)
			if err != nil {
				s.problem(w, r, fmt.Errorf("checking whether tokens exist: %w", err))
				return
			}
			if any || s.cfg.RequireTokens {
				s.problem(w, r, errUnauthorized)
				return
			}
			p = principal{admin: true}
		} else {
			scheme, token, ok := strings.Cut(auth, " ")
			token = strings.TrimSpace(token)
			if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
				s.problem(w, r, errUnauthorized)
				return
			}
			hash := HashToken(token)
			if s.authLimiter != nil && !s.tokenKnown(hash) && s.authLimiter.exhausted(clientAddr(r)) {
				// A flood of made-up tokens would cost a database query
				// each: an address whose failures used up its budget
				// waits; a valid token never spends it.
				s.problem(w, r, errRateLimited)
				return
			}
			t, err := s.lookupToken(ctx, hash)
			if errors.Is(err, store.ErrNotFound) {
				if s.authLimiter != nil {
					s.authLimiter.allow(clientAddr(r))
				}
				s.problem(w, r, errUnauthorized)
				return
			}
			if err != nil {
				s.problem(w, r, fmt.Errorf("looking up a token: %w", err))
				return
			}
			// Expiry is checked against the clock on every request, so
			// an expired token fails from its expiry exactly; revocation
			// is seen when the cached lookup is refreshed, within
			// TokenCacheTTL.
			if st := t.State(s.cfg.Now()); st != store.TokenActive {
				s.problem(w, r, &apiError{status: http.StatusUnauthorized,
					detail: "the bearer token is " + st + "; ask an operator for a new one (flexd token create)"})
				return
			}
			p = principal{key: hash, admin: t.Admin, cluster: t.Cluster}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, principalKey{}, p)))
	})
}

// hasTokens is the store's HasTokens through the cache.
func (s *Server) hasTokens(ctx context.Context) (bool, error) {
	if s.tokens == nil {
		return s.store.HasTokens(ctx)
	}
	if ok, hit := s.tokens.any(); hit {
		return ok, nil
	}
	ok, err := s.store.HasTokens(ctx)
	if err != nil {
		return false, err
	}
	s.tokens.setAny(ok)
	return ok, nil
}

// lookupToken is the store's LookupToken through the cache. Unknown hashes
// are cached too, or a caller repeating a bad token would cost a query per
// request.
func (s *Server) lookupToken(ctx context.Context, hash string) (store.Token, error) {
	if s.tokens == nil {
		t, err := s.store.LookupToken(ctx, hash)
		if err == nil {
			s.touchToken(ctx, t)
		}
		return t, err
	}
	if t, found, hit := s.tokens.get(hash); hit {
		if !found {
			return store.Token{}, fmt.Errorf("lookup token (cached): %w", store.ErrNotFound)
		}
		return t, nil
	}
	t, err := s.store.LookupToken(ctx, hash)
	switch {
	case err == nil:
		s.tokens.put(hash, t, true)
		s.touchToken(ctx, t)
	case errors.Is(err, store.ErrNotFound):
		s.tokens.put(hash, store.Token{}, false)
	}
	return t, err
}

// TokenToucher is implemented by stores that record when a token was last
// used (store/memory, store/postgres, store/resilient). The server records
// a use whenever it looks a token up in the store: once per token cache
// lifetime per token (on every request when the cache is off).
type TokenToucher interface {
	TouchToken(ctx context.Context, hash string, at time.Time) error
}

// touchToken records t's use now, when the store keeps it; a failure is
// logged, never the request's.
func (s *Server) touchToken(ctx context.Context, t store.Token) {
	tt, ok := s.cfg.Store.(TokenToucher)
	if !ok || t.State(s.cfg.Now()) != store.TokenActive {
		return
	}
	if err := tt.TouchToken(ctx, t.Hash, s.cfg.Now()); err != nil {
		s.log.DebugContext(ctx, "recording a token's use failed", "request_id", requestIDFrom(ctx), "error", err)
	}
}

// tokenCache remembers token lookups for ttl. It holds at most
// tokenCacheCap entries and is emptied when full, which bounds memory
// whatever tokens callers present.
type tokenCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	anyOK   bool
	anyAt   time.Time
	anySet  bool
	entries map[string]tokenEntry
}

type tokenEntry struct {
	tok   store.Token
	found bool
	at    time.Time
}

// tokenCacheCap bounds the cached token lookups.
const tokenCacheCap = 10_000

func newTokenCache(ttl time.Duration, now func() time.Time) *tokenCache {
	return &tokenCache{ttl: ttl, now: now, entries: make(map[string]tokenEntry)}
}

func (c *tokenCache) any() (ok, hit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.anySet || c.now().Sub(c.anyAt) >= c.ttl {
		return false, false
	}
	return c.anyOK, true
}

func (c *tokenCache) setAny(ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.anyOK, c.anyAt, c.anySet = ok, c.now(), true
}

func (c *tokenCache) get(hash string) (t store.Token, found, hit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[hash]
	if !ok || c.now().Sub(e.at) >= c.ttl {
		return store.Token{}, false, false
	}
	return e.tok, e.found, true
}

func (c *tokenCache) put(hash string, t store.Token, found bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= tokenCacheCap {
		clear(c.entries)
	}
	c.entries[hash] = tokenEntry{tok: t, found: found, at: c.now()}
}

// authorizeCluster returns the path's cluster when the caller may use it.
// Another cluster's paths answer 404, as if absent, so a token cannot
// probe which clusters exist.
func (s *Server) authorizeCluster(r *http.Request) (string, error) {
	cluster, err := clusterParam(r)
	if err != nil {
		return "", err
	}
	p, ok := r.Context().Value(principalKey{}).(principal)
	if !ok {
		return "", errors.New("authorizeCluster called outside authenticate")
	}
	if !p.admin && p.cluster != cluster {
		return "", errNotFound
	}
	return cluster, nil
}

// rateLimit applies the per-token token bucket.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.limiter != nil {
			p, _ := r.Context().Value(principalKey{}).(principal)
			if !s.limiter.allow(limitKey(p, r)) {
				s.problem(w, r, errRateLimited)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// limitKey is the rate limiter's key for a request: its token, or, without
// one (no token exists, so access control is off), the cluster the path
// names, else the caller's address. Anonymous callers used to share one
// bucket: 40 shims at the half-second cadence got a quarter of their
// epochs refused (issue 16, item 8). A cluster's shim is the caller that
// matters, and it names its cluster in every epoch's path.
func limitKey(p principal, r *http.Request) string {
	if p.key != "" {
		return p.key
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/v1/clusters/"); ok {
		if cluster, _, _ := strings.Cut(rest, "/"); cluster != "" {
			return "cluster:" + cluster
		}
	}
	return clientAddr(r)
}

// clientAddr is a rate limiter key for the caller's address.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// tokenKnown reports whether hash is cached as a valid token.
func (s *Server) tokenKnown(hash string) bool {
	if s.tokens == nil {
		return false
	}
	_, found, hit := s.tokens.get(hash)
	return hit && found
}

// rateLimiter keeps one token bucket per key, at most cap of them: past
// that the least recently used is dropped (it starts full again when next
// seen), so memory is bounded whatever tokens callers present.
type rateLimiter struct {
	mu      sync.Mutex
	limit   rate.Limit
	burst   int
	cap     int
	entries map[string]*list.Element
	lru     *list.List // front: most recently used
}

type limiterEntry struct {
	key string
	lim *rate.Limiter
}

func newRateLimiter(perSecond float64, burst, capacity int) *rateLimiter {
	return &rateLimiter{
		limit: rate.Limit(perSecond), burst: burst, cap: capacity,
		entries: make(map[string]*list.Element), lru: list.New(),
	}
}

func (l *rateLimiter) allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if el, ok := l.entries[key]; ok {
		l.lru.MoveToFront(el)
		return el.Value.(*limiterEntry).lim.Allow()
	}
	if l.lru.Len() >= l.cap {
		oldest := l.lru.Back()
		l.lru.Remove(oldest)
		delete(l.entries, oldest.Value.(*limiterEntry).key)
	}
	e := &limiterEntry{key: key, lim: rate.NewLimiter(l.limit, l.burst)}
	l.entries[key] = l.lru.PushFront(e)
	return e.lim.Allow()
}

// exhausted reports whether key's bucket is empty now, without taking
// from it (a key never seen has a full bucket).
func (l *rateLimiter) exhausted(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.entries[key]
	return ok && el.Value.(*limiterEntry).lim.Tokens() < 1
}
