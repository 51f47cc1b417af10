package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/pgtest"
	"github.com/flexd/flexd/store/postgres"
)

func TestIsLoopback(t *testing.T) {
	cases := map[string]bool{
		"127.0.0.1:8080": true,
		"127.1.2.3:80":   true,
		"localhost:8080": true,
		"[::1]:8080":     true,
		"0.0.0.0:8080":   false,
		":8080":          false,
		"[::]:8080":      false,
		"10.0.0.5:8080":  false,
		"example.com:80": false,
		"garbage":        false,
	}
	for addr, want := range cases {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestBindEnv(t *testing.T) {
	cases := map[string]struct {
		env     map[string]string
		args    []string
		want    string
		wantErr bool
	}{
		"default":             {nil, nil, "127.0.0.1:8080", false},
		"env sets it":         {map[string]string{"FLEXD_ADDR": "127.0.0.1:9"}, nil, "127.0.0.1:9", false},
		"flag beats env":      {map[string]string{"FLEXD_ADDR": "127.0.0.1:9"}, []string{"--addr", "127.0.0.1:7"}, "127.0.0.1:7", false},
		"bad env is a usage":  {map[string]string{"FLEXD_BODY_LIMIT": "lots"}, nil, "", true},
		"dashes to snake env": {map[string]string{"FLEXD_REQUEST_TIMEOUT": "nope"}, nil, "", true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			cmd := newServeCmd()
			if err := cmd.ParseFlags(c.args); err != nil {
				t.Fatal(err)
			}
			err := bindEnv(cmd, cmd.Flags())
			var ue usageError
			if c.wantErr != errors.As(err, &ue) {
				t.Fatalf("bindEnv error %v, want usage error %v", err, c.wantErr)
			}
			if got, _ := cmd.Flags().GetString("addr"); !c.wantErr && got != c.want {
				t.Errorf("addr = %q, want %q", got, c.want)
			}
		})
	}
	serve, _, err := newRootCmd().Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	if help := serve.Flags().Lookup("database-url").Usage; !strings.Contains(help, "FLEXD_DATABASE_URL") {
		t.Errorf("help does not name the variable: %q", help)
	}
}

func defaultServeFlags(t *testing.T) serveFlags {
	t.Helper()
	cmd := newServeCmd()
	if err := cmd.ParseFlags(nil); err != nil {
		t.Fatal(err)
	}
	fl := cmd.Flags()
	var f serveFlags
	f.addr, _ = fl.GetString("addr")
	f.bodyLimit, _ = fl.GetInt64("body-limit")
	f.rateLimit, _ = fl.GetFloat64("rate-limit")
	f.retention, _ = fl.GetDuration("retention")
	f.requestTimeout, _ = fl.GetDuration("request-timeout")
	f.shutdownTimeout, _ = fl.GetDuration("shutdown-timeout")
	f.tokenCacheTTL, _ = fl.GetDuration("token-cache-ttl")
	f.spoolMaxBytes, _ = fl.GetInt64("spool-max-bytes")
	f.spoolDir = filepath.Join(t.TempDir(), "spool")
	return f
}

func TestServeUsageErrors(t *testing.T) {
	cases := map[string]func(*serveFlags){
		"public addr without tokens": func(f *serveFlags) { f.addr = "0.0.0.0:0" },
		"bad addr":                   func(f *serveFlags) { f.addr = "nocolon" },
		"zero body limit":            func(f *serveFlags) { f.bodyLimit = 0 },
		"negative rate":              func(f *serveFlags) { f.rateLimit = -1 },
		"bad database url":           func(f *serveFlags) { f.databaseURL = "postgres://%zz" },
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			f := defaultServeFlags(t)
			edit(&f)
			err := runServe(t.Context(), f)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Errorf("runServe = %v, want a usage error", err)
			}
		})
	}
}

// startServe runs serve on a free loopback port until the test ends and
// returns its base URL.
func startServe(t *testing.T, f serveFlags) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	listening := make(chan net.Addr, 1)
	f.onListen = func(a net.Addr) { listening <- a }
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, f) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve did not stop cleanly: %v", err)
		}
	})
	select {
	case a := <-listening:
		return "http://" + a.String()
	case err := <-done:
		t.Fatalf("serve exited before listening: %v", err)
	}
	return ""
}

func call(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

const cmdEpochBody = `{"epoch": 1, "now": 0, "slots": {"map": 4, "reduce": 2},
	"jobs": [{"id": "a", "submitted": 0, "map": {"min": 1, "max": 4, "work": 10}}]}`

func TestServeMemory(t *testing.T) {
	f := defaultServeFlags(t)
	f.addr = "127.0.0.1:0"
	base := startServe(t, f)
	if code, body := call(t, "GET", base+"/readyz", "", ""); code != 200 || !strings.Contains(body, "ready") {
		t.Errorf("readyz: %d %s", code, body)
	}
	if code, body := call(t, "POST", base+"/v1/clusters/c1/epochs", "", cmdEpochBody); code != 200 {
		t.Errorf("epoch: %d %s", code, body)
	}
}

func TestTokenAndMigrateNeedADatabase(t *testing.T) {
	t.Setenv("FLEXD_DATABASE_URL", "")
	cases := map[string][]string{
		"token create":      {"create", "--cluster", "c1"},
		"token both scopes": {"create", "--cluster", "c1", "--admin", "--database-url", "postgres://x/y"},
		"token no scope":    {"create", "--database-url", "postgres://x/y"},
		"token bad cluster": {"create", "--cluster", "../etc", "--database-url", "postgres://x/y"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := newTokenCmd()
			cmd.SetArgs(args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			var ue usageError
			if err := cmd.Execute(); !errors.As(err, &ue) {
				t.Errorf("%v: %v, want a usage error", args, err)
			}
		})
	}
	cmd := newMigrateCmd()
	cmd.SetArgs(nil)
	cmd.SetOut(io.Discard)
	var ue usageError
	if err := cmd.Execute(); !errors.As(err, &ue) {
		t.Errorf("migrate without a database: %v, want a usage error", err)
	}
}

// schemaURL makes a fresh schema in the test database and returns a URL
// whose connections use it, dropping it when the test ends.
func schemaURL(t *testing.T) string {
	t.Helper()
	base := pgtest.URL(t)
	schema := fmt.Sprintf("flexd_cmd_test_%d", time.Now().UnixNano())
	conn, err := pgx.Connect(t.Context(), base)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	defer conn.Close(context.WithoutCancel(t.Context()))
	if _, err := conn.Exec(t.Context(), "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("dropping schema: %v", err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping schema: %v", err)
		}
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// TestPostgresLifecycle: migrate, create tokens, serve with them on
// PostgreSQL; access control is on because tokens exist.
func TestPostgresLifecycle(t *testing.T) {
	url := schemaURL(t)
	run := func(cmdArgs ...string) (string, error) {
		var root = newRootCmd()
		var out bytes.Buffer
		root.SetArgs(cmdArgs)
		root.SetOut(&out)
		root.SetErr(io.Discard)
		err := root.Execute()
		return out.String(), err
	}
	if out, err := run("migrate", "status", "--database-url", url); exitCode(err) != exitPending || !strings.Contains(out, "schema version 0") {
		t.Errorf("status before migrating: %q, %v (want pending, exit 3)", out, err)
	}
	if out, err := run("migrate", "--database-url", url); err != nil || !strings.Contains(out, "schema version") {
		t.Fatalf("migrate: %q, %v", out, err)
	}
	if out, err := run("migrate", "status", "--database-url", url); err != nil {
		t.Errorf("status after migrating: %q, %v", out, err)
	}
	t.Setenv("FLEXD_DATABASE_URL", url)
	c1, err := run("token", "create", "--cluster", "c1")
	if err != nil || !strings.HasPrefix(c1, tokenPrefix) {
		t.Fatalf("token create: %q, %v", c1, err)
	}
	c1 = strings.TrimSpace(c1)

	f := defaultServeFlags(t)
	f.addr, f.databaseURL = "127.0.0.1:0", url
	base := startServe(t, f)
	cases := []struct {
		name, method, path, token string
		want                      int
	}{
		{"no token", "POST", "/v1/clusters/c1/epochs", "", 401},
		{"own cluster", "POST", "/v1/clusters/c1/epochs", c1, 200},
		{"replay", "POST", "/v1/clusters/c1/epochs", c1, 200},
		{"other cluster", "POST", "/v1/clusters/c2/epochs", c1, 404},
		{"history", "GET", "/v1/clusters/c1/epochs/1", c1, 200},
		{"ready", "GET", "/readyz", "", 200},
	}
	for _, c := range cases {
		body := ""
		if c.method == "POST" {
			body = cmdEpochBody
		}
		if code, resp := call(t, c.method, base+c.path, c.token, body); code != c.want {
			t.Errorf("%s: %d, want %d; %s", c.name, code, c.want, resp)
		}
	}
}

// TestServeWithoutDatabase: with PostgreSQL unreachable at start, serve
// starts anyway on the spool of a previous run, answers epochs, spools
// them, and says so on /readyz and /metrics; without the spool it refuses
// to start, as before.
func TestServeWithoutDatabase(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	url := "postgres://flexd@" + closed + "/flexd?sslmode=disable&connect_timeout=2"

	f := defaultServeFlags(t)
	f.addr, f.databaseURL = "127.0.0.1:0", url
	// A previous run learnt that no token exists (resilient's marker).
	if err := os.MkdirAll(f.spoolDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.spoolDir, "has_tokens"), []byte("no\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := startServe(t, f)
	if code, body := call(t, "POST", base+"/v1/clusters/c1/epochs", "", cmdEpochBody); code != 200 {
		t.Fatalf("epoch without a database: %d %s", code, body)
	}
	if code, body := call(t, "GET", base+"/readyz", "", ""); code != 200 || !strings.Contains(body, `"degraded"`) || !strings.Contains(body, "1 epochs spooled") {
		t.Errorf("readyz: %d %s, want 200 degraded with the spool's depth", code, body)
	}
	if code, body := call(t, "GET", base+"/metrics", "", ""); code != 200 || !strings.Contains(body, "flexd_spool_records 1") ||
		!strings.Contains(body, "go_goroutines") || !strings.Contains(body, "process_open_fds") {
		t.Errorf("metrics lack flexd_spool_records 1 or the runtime and process series: %d", code)
	}

	g := defaultServeFlags(t)
	g.addr, g.databaseURL, g.spoolMaxBytes = "127.0.0.1:0", url, 0
	if err := runServe(t.Context(), g); err == nil || !strings.Contains(err.Error(), "connecting to the database") {
		t.Errorf("without a spool: %v, want the connection error", err)
	}
}

// TestServeGracefulShutdown is issue 18's shutdown check, driven by hooks
// and channels (no sleeps): a request in flight since before the signal;
// after SIGTERM and during a long drain delay, /readyz is 503
// shutting_down while an epoch posted then gets 200; a second signal ends
// the delay; then a new connection is refused, the request in flight
// finishes 200, and serve returns only after it.
func TestServeGracefulShutdown(t *testing.T) {
	f := defaultServeFlags(t)
	f.shutdownDelay = time.Hour // ended by the second signal, never by time
	sigs := make(chan os.Signal)
	began, stopped := make(chan struct{}), make(chan struct{})
	inFlight, release := make(chan struct{}), make(chan struct{})
	f.signals = sigs
	f.onShutdownBegin = func() { close(began) }
	f.onStopAccepting = func() { close(stopped) }
	f.wrap = func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				close(inFlight)
				<-release
				w.WriteHeader(http.StatusOK)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	listening := make(chan net.Addr, 1)
	f.onListen = func(a net.Addr) { listening <- a }
	done := make(chan error, 1)
	go func() { done <- runServe(t.Context(), f) }()
	var addr string
	select {
	case a := <-listening:
		addr = a.String()
	case err := <-done:
		t.Fatalf("serve exited before listening: %v", err)
	}
	base := "http://" + addr
	// Fresh connections for every request: what a load balancer's new
	// connections see.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(path string) (int, string, error) {
		res, err := client.Get(base + path)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, string(b), err
	}

	slow := make(chan int, 1)
	go func() {
		status, _, err := get("/slow")
		if err != nil {
			t.Errorf("the request in flight failed: %v", err)
		}
		slow <- status
	}()
	<-inFlight

	sigs <- syscall.SIGTERM
	<-began
	if status, body, err := get("/readyz"); err != nil || status != http.StatusServiceUnavailable || !strings.Contains(body, `"shutting_down"`) {
		t.Errorf("readyz during the delay: %d %s (%v), want 503 shutting_down", status, body, err)
	}
	res, err := client.Post(base+"/v1/clusters/c1/epochs", "application/json", strings.NewReader(cmdEpochBody))
	if err != nil {
		t.Fatalf("epoch during the delay: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("epoch during the delay: %d, want 200", res.StatusCode)
	}

	sigs <- syscall.SIGTERM // ends the delay early
	<-stopped
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("a new connection was accepted after the listener closed")
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial after the listener closed: %v, want connection refused", err)
	}
	select {
	case err := <-done:
		t.Fatalf("serve returned (%v) with a request in flight", err)
	default:
	}
	close(release)
	if status := <-slow; status != http.StatusOK {
		t.Errorf("the request in flight got %d, want 200", status)
	}
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

// TestTokenCommandsEndToEnd is issue 18's token check through the binary's
// commands on PostgreSQL: token create (with --expires), token list
// (table and json) showing active, expired and revoked tokens, token
// revoke by id and by the token itself, and a server that answers 401 to
// the revoked token and to the expired one (no token cache, so at once),
// 200 to the active one, and lists clusters to the admin token only.
func TestTokenCommandsEndToEnd(t *testing.T) {
	url := schemaURL(t)
	t.Setenv("FLEXD_DATABASE_URL", url)
	run := func(args ...string) (string, error) {
		root := newRootCmd()
		var out bytes.Buffer
		root.SetArgs(args)
		root.SetOut(&out)
		root.SetErr(io.Discard)
		err := root.Execute()
		return strings.TrimSpace(out.String()), err
	}
	admin, err := run("token", "create", "--admin", "--expires", "720h")
	if err != nil {
		t.Fatalf("token create --admin: %v", err)
	}
	keep, err := run("token", "create", "--cluster", "c1")
	if err != nil {
		t.Fatal(err)
	}
	byID, err := run("token", "create", "--cluster", "c1")
	if err != nil {
		t.Fatal(err)
	}
	byToken, err := run("token", "create", "--cluster", "c1")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"--expires", "-1h"}, {"--expires", "2001-01-01T00:00:00Z"}, {"--expires", "soon"}} {
		var ue usageError
		if _, err := run(append([]string{"token", "create", "--cluster", "c1"}, bad...)...); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--expires") {
			t.Errorf("token create %v: %v, want a usage error naming --expires", bad, err)
		}
	}
	// An expired token: the command refuses a past expiry, so store one
	// directly, as if created a day ago for an hour.
	pool, err := openDatabase(t.Context(), url, newLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const expired = "flexd_expired-for-the-test"
	day := time.Now().UTC().Add(-24 * time.Hour)
	if err := postgres.New(pool).CreateToken(t.Context(), store.Token{Hash: httpapi.HashToken(expired), Cluster: "c1", Created: day, Expires: day.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}

	listed := func() map[string]tokenView {
		t.Helper()
		out, err := run("token", "list", "--format", "json")
		if err != nil {
			t.Fatalf("token list: %v", err)
		}
		var views []tokenView
		if err := json.Unmarshal([]byte(out), &views); err != nil {
			t.Fatalf("token list json: %v\n%s", err, out)
		}
		byID := map[string]tokenView{}
		for _, v := range views {
			byID[v.ID] = v
		}
		return byID
	}
	id := func(token string) string { return httpapi.HashToken(token)[:store.TokenIDLen] }
	views := listed()
	if len(views) != 5 || views[id(admin)].Expires == nil || views[id(admin)].Scope != "admin" || views[id(expired)].State != "expired" {
		t.Fatalf("token list = %+v", views)
	}
	if out, err := run("token", "revoke", id(byID)); err != nil || !strings.Contains(out, "revoked "+id(byID)) {
		t.Errorf("token revoke ID: %q, %v", out, err)
	}
	if _, err := run("token", "revoke", byToken); err != nil {
		t.Errorf("token revoke TOKEN: %v", err)
	}
	var ue usageError
	if _, err := run("token", "revoke", "abcdef0123"); !errors.As(err, &ue) {
		t.Errorf("revoking an unknown id: %v, want a usage error", err)
	}
	views = listed()
	for tok, want := range map[string]string{admin: "active", keep: "active", byID: "revoked", byToken: "revoked", expired: "expired"} {
		if v := views[id(tok)]; v.State != want {
			t.Errorf("token %s: state %q, want %q", id(tok), v.State, want)
		}
	}
	table, err := run("token", "list")
	if err != nil || !strings.Contains(table, "ID") || !strings.Contains(table, id(byID)) || strings.Count(table, "revoked") != 2 || strings.Count(table, "expired") != 1 {
		t.Errorf("token list table:\n%s (%v)", table, err)
	}

	f := defaultServeFlags(t)
	f.addr, f.databaseURL, f.tokenCacheTTL = "127.0.0.1:0", url, 0
	base := startServe(t, f)
	for _, c := range []struct {
		name, token string
		want        int
	}{
		{"active", keep, 200}, {"revoked by id", byID, 401}, {"revoked by token", byToken, 401}, {"expired", expired, 401},
	} {
		if code, body := call(t, "POST", base+"/v1/clusters/c1/epochs", c.token, cmdEpochBody); code != c.want {
			t.Errorf("%s token: %d %s, want %d", c.name, code, body, c.want)
		}
	}
	if code, body := call(t, "GET", base+"/v1/clusters", admin, ""); code != 200 || !strings.Contains(body, `"name":"c1"`) {
		t.Errorf("GET /v1/clusters as admin: %d %s", code, body)
	}
	if code, _ := call(t, "GET", base+"/v1/clusters", keep, ""); code != 403 {
		t.Errorf("GET /v1/clusters with a cluster token: %d, want 403", code)
	}
	if views := listed(); views[id(keep)].LastUsed == nil || views[id(byID)].LastUsed != nil {
		t.Errorf("last used: active %v, revoked %v; want the active one's recorded, the revoked one's not", views[id(keep)].LastUsed, views[id(byID)].LastUsed)
	}
}
