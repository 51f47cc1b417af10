// Package connlimit caps the connections an HTTP server holds open without
// letting idle ones starve new callers: at the cap, a new connection closes
// the one idle longest; only when none is idle is the new one turned away.
// A plain limit (golang.org/x/net/netutil.LimitListener) would leave new
// callers waiting in the accept queue behind idle keep-alive connections
// until those time out, which is how 1,100 idle connections made legitimate
// requests time out at an open-files limit of 1,024 (issue 16).
package connlimit

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Listener is a net.Listener holding at most Max connections open. Its
// ConnState must be set as the http.Server's ConnState, which is how it
// learns which connections are idle.
type Listener struct {
	net.Listener
	max int
	now func() time.Time

	mu    sync.Mutex
	conns map[net.Conn]time.Time // open connections: when each went idle (zero: busy)
	// evicted and refused count the connections closed to make room and
	// the new ones turned away.
	evicted, refused int
}

// New wraps ln to hold at most limit (>= 1) connections.
func New(ln net.Listener, limit int) *Listener {
	return &Listener{Listener: ln, max: max(1, limit), now: time.Now, conns: map[net.Conn]time.Time{}}
}

// Accept returns the next connection, first closing the longest-idle one
// when the cap is reached; a connection arriving while every open one is
// busy is closed at once and the next is awaited.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.admit(c) {
			return c, nil
		}
		c.Close()
	}
}

func (l *Listener) admit(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= l.max {
		var oldest net.Conn
		var since time.Time
		for oc, idle := range l.conns {
			if !idle.IsZero() && (oldest == nil || idle.Before(since)) {
				oldest, since = oc, idle
			}
		}
		if oldest == nil {
			l.refused++
			return false
		}
		delete(l.conns, oldest)
		l.evicted++
		// Closing an idle keep-alive connection is what its own idle
		// timeout would do, only sooner; the client reconnects.
		oldest.Close()
	}
	l.conns[c] = time.Time{}
	return true
}

// ConnState tracks each connection's state; set it as http.Server.ConnState.
func (l *Listener) ConnState(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateIdle:
		if _, ok := l.conns[c]; ok {
			l.conns[c] = l.now()
		}
	case http.StateActive:
		if _, ok := l.conns[c]; ok {
			l.conns[c] = time.Time{}
		}
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
	}
}

// Stats returns the open connections and how many were evicted and
// refused so far.
func (l *Listener) Stats() (open, evicted, refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns), l.evicted, l.refused
}
