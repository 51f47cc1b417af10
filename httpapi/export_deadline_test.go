package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
)

// TestExportCutsOffAStalledReader: a client that opens the epochs.jsonl
// export and stops reading does not pin the stream: once a line cannot
// leave within ExportWriteTimeout the server ends the request (its
// in-flight gauge goes back to zero) and closes the connection (issue 16,
// item 3).
func TestExportCutsOffAStalledReader(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.ExportWriteTimeout = 200 * time.Millisecond })
	pad := strings.Repeat("x", 1<<20)
	for ep := int64(1); ep <= 40; ep++ {
		req := json.RawMessage(fmt.Sprintf(`{"epoch":%d,"pad":%q}`, ep, pad))
		rec := store.Record{Cluster: "c1", Epoch: ep, DecisionID: fmt.Sprint(ep), RequestHash: fmt.Sprint(ep),
			Request: req, Decision: json.RawMessage(`{}`), State: json.RawMessage(`{"last_epoch":0}`)}
		if _, _, err := e.store.SaveEpoch(context.Background(), rec, ep-1); err != nil {
			t.Fatal(err)
		}
	}
	closed := make(chan struct{})
	hs := httptest.NewUnstartedServer(e.srv)
	var exportConn atomic.Pointer[string]
	hs.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if a := exportConn.Load(); st == http.StateClosed && a != nil && c.RemoteAddr().String() == *a {
			close(closed)
		}
	}
	hs.Start()
	defer hs.Close()
	conn, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	addr := conn.LocalAddr().String()
	exportConn.Store(&addr)
	// A small receive buffer, so that the server's writes stall soon.
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096)
	}
	fmt.Fprintf(conn, "GET /v1/clusters/c1/epochs.jsonl HTTP/1.1\r\nHost: x\r\n\r\n")
	status, err := bufio.NewReader(io.LimitReader(conn, 64)).ReadString('\n')
	if err != nil || !strings.Contains(status, "200") {
		t.Fatalf("export status line %q: %v", status, err)
	}
	// Read nothing more: the server must give up on its own.
	limit := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(hs.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		// The /metrics request itself is the one in flight.
		if strings.Contains(string(b), "flexd_http_requests_in_flight 1\n") {
			break
		}
		if time.Now().After(limit) {
			t.Fatal("the export of a reader that stopped reading is still running after 20 s")
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, not waiting for an event
	}
	// And the server closed the connection, rather than flush the rest of
	// the export into it.
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("the server kept the connection of a reader that stopped reading")
	}
}
