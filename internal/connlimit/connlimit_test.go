package connlimit_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flexd/flexd/internal/connlimit"
)

// serve runs an HTTP server on a capped listener.
func serve(t *testing.T, limit int) (*connlimit.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := connlimit.New(ln, limit)
	srv := &http.Server{
		Handler:   http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }),
		ConnState: cl.ConnState,
	}
	go srv.Serve(cl)
	t.Cleanup(func() { srv.Close() })
	return cl, ln.Addr().String()
}

// idleConn makes one keep-alive request on a raw connection and leaves it
// open and idle.
func idleConn(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return c
}

// TestIdleConnectionsDoNotStarveNewOnes: with the cap taken by idle
// keep-alive connections, a new caller is still served, the longest idle
// connection closed to make room, and the count never exceeds the cap.
func TestIdleConnectionsDoNotStarveNewOnes(t *testing.T) {
	cl, addr := serve(t, 3)
	var idle []net.Conn
	for range 3 {
		idle = append(idle, idleConn(t, addr))
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 5 {
		res, err := client.Get("http://" + addr + "/")
		if err != nil {
			t.Fatalf("request %d with the cap full of idle connections: %v", i, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || strings.TrimSpace(string(b)) != "ok" {
			t.Fatalf("request %d: %d %q", i, res.StatusCode, b)
		}
		if open, _, _ := cl.Stats(); open > 3 {
			t.Fatalf("%d connections open, cap 3", open)
		}
	}
	if _, evicted, refused := cl.Stats(); evicted < 1 || refused != 0 {
		t.Errorf("evicted %d, refused %d: want idle connections evicted, nobody refused", evicted, refused)
	}
	// The first idle connection was the longest idle: it was closed.
	idle[0].SetReadDeadline(timeNowPlus())
	if _, err := idle[0].Read(make([]byte, 1)); err == nil {
		t.Error("the longest idle connection is still open")
	}
}

func timeNowPlus() time.Time { return time.Now().Add(5 * time.Second) }
