package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
)

func TestAuth(t *testing.T) {
	e := newEnv(t, nil)
	// Without tokens, auth is off: anyone may do anything (loopback only,
	// which cmd/flexd enforces).
	if res := e.post("/v1/clusters/c1/epochs", "", epochBody); res.status != http.StatusOK {
		t.Fatalf("auth off: %d %s", res.status, res.body)
	}
	c1 := e.addToken("tok-c1", "c1", false)
	c2 := e.addToken("tok-c2", "c2", false)
	admin := e.addToken("tok-admin", "", true)

	cases := map[string]struct {
		method, path, token, body string
		status                    int
	}{
		"no token":                    {"GET", "/v1/clusters/c1/epochs", "", "", 401},
		"unknown token":               {"GET", "/v1/clusters/c1/epochs", "nope", "", 401},
		"no token solve":              {"POST", "/v1/solve", "", solveBody, 401},
		"own cluster list":            {"GET", "/v1/clusters/c1/epochs", c1, "", 200},
		"own cluster get":             {"GET", "/v1/clusters/c1/epochs/1", c1, "", 200},
		"own cluster export":          {"GET", "/v1/clusters/c1/epochs.jsonl", c1, "", 200},
		"own cluster post":            {"POST", "/v1/clusters/c1/epochs", c1, epochN("2"), 200},
		"other cluster list is 404":   {"GET", "/v1/clusters/c1/epochs", c2, "", 404},
		"other cluster get is 404":    {"GET", "/v1/clusters/c1/epochs/1", c2, "", 404},
		"other cluster export is 404": {"GET", "/v1/clusters/c1/epochs.jsonl", c2, "", 404},
		"other cluster post is 404":   {"POST", "/v1/clusters/c1/epochs", c2, epochN("3"), 404},
		"cluster token may solve":     {"POST", "/v1/solve", c2, solveBody, 200},
		"cluster token reads menu":    {"GET", "/v1/metrics", c2, "", 200},
		"admin reads any cluster":     {"GET", "/v1/clusters/c1/epochs/1", admin, "", 200},
		"admin writes any cluster":    {"POST", "/v1/clusters/c9/epochs", admin, epochBody, 200},
		"probes need no token":        {"GET", "/healthz", "", "", 200},
		"prometheus needs no token":   {"GET", "/metrics", "", "", 200},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var res response
			if c.method == "POST" {
				res = e.post(c.path, c.token, c.body)
			} else {
				res = e.get(c.path, c.token)
			}
			if res.status != c.status {
				t.Fatalf("status %d, want %d; body %s", res.status, c.status, res.body)
			}
			if c.status >= 400 {
				res.problem(t)
			}
			if c.status == 401 && res.header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
		})
	}

	// A 404 for another cluster looks exactly like one for a missing
	// cluster: nothing to probe.
	other := e.get("/v1/clusters/c1/epochs/1", c2).problem(t)
	missing := e.get("/v1/clusters/c2/epochs/1", c2).problem(t)
	if other.Detail != missing.Detail || other.Title != missing.Title {
		t.Errorf("cross-cluster 404 %+v differs from a missing epoch's %+v", other, missing)
	}

	for name, header := range map[string]string{
		"basic scheme":    "Basic dG9rLWMxOg==",
		"empty bearer":    "Bearer ",
		"no scheme":       "tok-c1",
		"lowercase ok":    "bearer tok-c1",
		"extra spaces ok": "Bearer   tok-c1",
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, "/v1/clusters/c1/epochs", nil)
			req.Header.Set("Authorization", header)
			rec := newRecorder()
			e.srv.ServeHTTP(rec, req)
			want := http.StatusUnauthorized
			if name == "lowercase ok" || name == "extra spaces ok" {
				want = http.StatusOK
			}
			if rec.Code != want {
				t.Errorf("Authorization %q: %d, want %d", header, rec.Code, want)
			}
		})
	}
}

func TestRateLimit(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.RateLimit, c.RateBurst = 0.001, 3 })
	a := e.addToken("tok-a", "a", false)
	b := e.addToken("tok-b", "b", false)
	var got []int
	for range 5 {
		got = append(got, e.get("/v1/metrics", a).status)
	}
	want := []int{200, 200, 200, 429, 429}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("token a statuses %v, want %v", got, want)
		}
	}
	res := e.get("/v1/metrics", a)
	if res.problem(t).Status != 429 || res.header.Get("Retry-After") == "" {
		t.Errorf("429 without problem or Retry-After")
	}
	// Another token has its own bucket.
	if res := e.get("/v1/metrics", b); res.status != http.StatusOK {
		t.Errorf("token b limited by a's requests: %d", res.status)
	}
	// Probes are never limited.
	if res := e.get("/healthz", ""); res.status != http.StatusOK {
		t.Errorf("healthz limited: %d", res.status)
	}
}

// TestRateLimiterBounded: more distinct tokens than the limiter keeps
// evicts the least recently used instead of growing.
func TestRateLimiterBounded(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.RateLimit, c.RateBurst, c.RateLimiters = 0.001, 1, 2 })
	a := e.addToken("tok-a", "a", false)
	b := e.addToken("tok-b", "b", false)
	c := e.addToken("tok-c", "c", false)
	steps := []struct {
		token string
		want  int
	}{
		{a, 200}, {a, 429}, // a's bucket is empty
		{b, 200}, {c, 200}, // c evicts a, the least recently used
		{a, 200}, // a starts over with a full bucket
		{c, 429}, // c is still tracked
	}
	for i, s := range steps {
		if got := e.get("/v1/metrics", s.token).status; got != s.want {
			t.Fatalf("step %d (%s): %d, want %d", i, s.token, got, s.want)
		}
	}
}

// TestRequireTokensFailsClosed: with RequireTokens (a server listening
// beyond loopback) a request without a token is refused even when no token
// exists, as after the last one is deleted at runtime (issue 16: it used to
// be served as an administrator).
func TestRequireTokensFailsClosed(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.RequireTokens = true })
	if res := e.post("/v1/clusters/c1/epochs", "", epochBody); res.status != http.StatusUnauthorized {
		t.Errorf("no token, no tokens at all: %d, want 401", res.status)
	}
	if res := e.get("/healthz", ""); res.status != http.StatusOK {
		t.Errorf("probe: %d, want 200 without a token", res.status)
	}
	tok := e.addToken("tok-c1", "c1", false)
	if res := e.post("/v1/clusters/c1/epochs", tok, epochBody); res.status != http.StatusOK {
		t.Errorf("with its token: %d %s", res.status, res.body)
	}
}

// TestAnonymousRateLimitPerCluster: with no token (access control off),
// each cluster's shim has its own bucket, not one shared by every caller.
func TestAnonymousRateLimitPerCluster(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.RateLimit, c.RateBurst = 0.001, 2 })
	for i, want := range []int{200, 200, 429} {
		if res := e.post("/v1/clusters/c1/epochs", "", epochN(fmt.Sprint(i+1))); res.status != want {
			t.Fatalf("c1 request %d: %d, want %d", i, res.status, want)
		}
	}
	if res := e.post("/v1/clusters/c2/epochs", "", epochBody); res.status != http.StatusOK {
		t.Errorf("c2 limited by c1's requests: %d", res.status)
	}
}

// TestBadTokenFlood: an address presenting made-up tokens is answered 401
// until its failures use up their budget, then 429 without a lookup; a
// valid token from the same address still works (issue 16, item 6).
func TestBadTokenFlood(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.AuthLookupRate, c.TokenCacheTTL = 0.001, time.Minute })
	good := e.addToken("tok-good", "c1", false)
	if res := e.get("/v1/metrics", good); res.status != http.StatusOK {
		t.Fatalf("good token: %d", res.status)
	}
	var statuses []int
	for i := range 4 {
		statuses = append(statuses, e.get("/v1/metrics", fmt.Sprint("made-up-", i)).status)
	}
	// The budget is a burst of 1 at this rate: one failure, then refusals.
	if fmt.Sprint(statuses) != "[401 429 429 429]" {
		t.Errorf("made-up tokens: %v, want [401 429 429 429]", statuses)
	}
	if res := e.get("/v1/metrics", good); res.status != http.StatusOK {
		t.Errorf("good token after the flood: %d", res.status)
	}
}

// fakeClock is a settable clock for the server's Config.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestTokenExpiryAndRevocation, on a fake clock: an expiring token works
// until its expiry and answers 401 from that instant exactly (whatever
// the cache holds); a revoked token keeps working only while its lookup is
// cached, and answers 401 once the cache lifetime has passed; a token's use
// is recorded once per cache lifetime.
func TestTokenExpiryAndRevocation(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	const ttl = 5 * time.Second
	e := newEnv(t, func(c *httpapi.Config) { c.Now, c.TokenCacheTTL = clock.now, ttl })
	ctx := t.Context()
	expiring := store.Token{Hash: httpapi.HashToken("tok-exp"), Cluster: "c1", Created: clock.now(), Expires: clock.now().Add(time.Minute)}
	revocable := store.Token{Hash: httpapi.HashToken("tok-rev"), Cluster: "c1", Created: clock.now()}
	for _, tok := range []store.Token{expiring, revocable} {
		if err := e.store.CreateToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	status := func(token string) int {
		t.Helper()
		return e.get("/v1/clusters/c1/epochs", token).status
	}
	if got := status("tok-exp"); got != http.StatusOK {
		t.Fatalf("expiring token before its expiry: %d", got)
	}
	clock.advance(time.Minute - time.Nanosecond)
	if got := status("tok-exp"); got != http.StatusOK {
		t.Errorf("a nanosecond before the expiry: %d, want 200", got)
	}
	clock.advance(time.Nanosecond)
	res := e.get("/v1/clusters/c1/epochs", "tok-exp")
	if res.status != http.StatusUnauthorized || !strings.Contains(string(res.body), "expired") {
		t.Errorf("at the expiry: %d %s, want 401 saying expired", res.status, res.body)
	}

	if got := status("tok-rev"); got != http.StatusOK {
		t.Fatalf("revocable token: %d", got)
	}
	usedAt := clock.now()
	if _, err := e.store.RevokeToken(ctx, revocable.Hash, clock.now()); err != nil {
		t.Fatal(err)
	}
	if got := status("tok-rev"); got != http.StatusOK {
		t.Errorf("revoked, lookup still cached: %d, want 200 (the documented window)", got)
	}
	clock.advance(ttl)
	res = e.get("/v1/clusters/c1/epochs", "tok-rev")
	if res.status != http.StatusUnauthorized || !strings.Contains(string(res.body), "revoked") {
		t.Errorf("revoked, a cache lifetime later: %d %s, want 401 saying revoked", res.status, res.body)
	}
	tok, err := e.store.LookupToken(ctx, revocable.Hash)
	if err != nil || !tok.LastUsed.Equal(usedAt) {
		t.Errorf("last used = %v (%v), want %v: the use before revocation, not the refused ones", tok.LastUsed, err, usedAt)
	}
	if ok, err := e.store.HasTokens(ctx); err != nil || !ok {
		t.Errorf("HasTokens = %v, %v; want true", ok, err)
	}
	if got := status(""); got != http.StatusUnauthorized {
		t.Errorf("no token with every token revoked or expired: %d, want 401 (access control stays on)", got)
	}
}

// TestTokenLastUsedOncePerCacheLifetime: lookups, and so last-used
// writes, happen once per cache lifetime however many requests come.
func TestTokenLastUsedOncePerCacheLifetime(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	e := newEnv(t, func(c *httpapi.Config) { c.Now, c.TokenCacheTTL = clock.now, 5*time.Second })
	tok := e.addToken("tok-c1", "c1", false)
	first := clock.now()
	for range 3 {
		if got := e.get("/v1/metrics", tok).status; got != http.StatusOK {
			t.Fatalf("status %d", got)
		}
		clock.advance(time.Second)
	}
	stored, err := e.store.LookupToken(t.Context(), httpapi.HashToken(tok))
	if err != nil || !stored.LastUsed.Equal(first) {
		t.Errorf("last used = %v (%v), want %v (the first lookup; the next two came from the cache)", stored.LastUsed, err, first)
	}
	clock.advance(5 * time.Second)
	if got := e.get("/v1/metrics", tok).status; got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	stored, _ = e.store.LookupToken(t.Context(), httpapi.HashToken(tok))
	if !stored.LastUsed.Equal(clock.now()) {
		t.Errorf("last used after the cache lifetime = %v, want %v", stored.LastUsed, clock.now())
	}
}

// TestListClusters: GET /v1/clusters lists every cluster with an epoch to
// an admin token; a cluster token gets 403.
func TestListClusters(t *testing.T) {
	e := newEnv(t, nil)
	for _, c := range []string{"c2", "c1"} {
		if res := e.post("/v1/clusters/"+c+"/epochs", "", epochBody); res.status != http.StatusOK {
			t.Fatalf("epoch of %s: %d %s", c, res.status, res.body)
		}
	}
	admin := e.addToken("tok-admin", "", true)
	c1 := e.addToken("tok-c1", "c1", false)
	res := e.get("/v1/clusters", admin)
	var list httpapi.ClusterList
	res.decode(t, &list)
	if res.status != http.StatusOK || len(list.Clusters) != 2 || list.Clusters[0].Name != "c1" || list.Clusters[1].Name != "c2" || list.Clusters[0].LastEpoch != 1 {
		t.Errorf("admin: %d %s, want c1 and c2 at epoch 1", res.status, res.body)
	}
	res = e.get("/v1/clusters", c1)
	if res.status != http.StatusForbidden {
		t.Errorf("cluster token: %d %s, want 403", res.status, res.body)
	}
	res.problem(t)
	if res := e.get("/v1/clusters", ""); res.status != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", res.status)
	}
}
