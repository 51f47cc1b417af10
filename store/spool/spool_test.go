package spool_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/spool"
)

func entry(cluster string, epoch int64) spool.Entry {
	return spool.Entry{
		Record: store.Record{
			Cluster: cluster, Epoch: epoch, DecisionID: fmt.Sprintf("d-%s-%d", cluster, epoch),
			RequestHash: fmt.Sprintf("h%d", epoch),
			Request:     json.RawMessage(fmt.Sprintf(`{"epoch":%d}`, epoch)),
			Decision:    json.RawMessage(`{"allocations":[]}`),
			State:       json.RawMessage(fmt.Sprintf(`{"last_epoch":%d}`, epoch)),
			Allocations: []store.Allocation{{JobID: "j", Phase: "map", Slots: int(epoch), Reason: "min"}},
			CreatedAt:   time.Date(2026, 11, 24, 0, 0, int(epoch), 0, time.UTC),
		},
		PrevStateEpoch: epoch - 1,
	}
}

func open(t *testing.T, dir string, max int64) (*spool.Spool, spool.Recovery) {
	t.Helper()
	s, rec, err := spool.Open(dir, max)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, rec
}

// lastSegment is the path of the spool's newest segment file.
func lastSegment(tb testing.TB, dir string) string {
	tb.Helper()
	names, err := filepath.Glob(filepath.Join(dir, spool.SegmentPattern))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no segment in %s (%v)", dir, err)
	}
	return names[len(names)-1]
}

// TestReopen: what Append returned for is read back after a reopen, in
// order; the directory is private.
func TestReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	s, rec := open(t, dir, 1<<20)
	if rec.Entries != 0 || rec.DroppedBytes != 0 {
		t.Fatalf("new spool recovered %+v", rec)
	}
	var want []spool.Entry
	for e := range int64(5) {
		en := entry("c1", e+1)
		if err := s.Append(en); err != nil {
			t.Fatal(err)
		}
		want = append(want, en)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, rec := open(t, dir, 1<<20)
	if rec.Entries != 5 || rec.DroppedBytes != 0 {
		t.Errorf("recovery %+v, want 5 entries and nothing dropped", rec)
	}
	if diff := cmp.Diff(want, s2.Entries()); diff != "" {
		t.Errorf("entries after reopen (-want +got):\n%s", diff)
	}
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", info.Mode().Perm())
	}
}

// TestBadTail: a record cut short (a crash mid-append) or changed on disk
// is detected and cut off, the records before it kept, and appending
// continues after them.
func TestBadTail(t *testing.T) {
	for name, damage := range map[string]func(b []byte) []byte{
		"torn record":       func(b []byte) []byte { return b[:len(b)-3] },
		"torn header":       func(b []byte) []byte { return append(b, 7, 0, 0) },
		"checksum mismatch": func(b []byte) []byte { b[len(b)-2] ^= 0x20; return b },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, _ := open(t, dir, 1<<20)
			for e := range int64(3) {
				if err := s.Append(entry("c1", e+1)); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			path := lastSegment(t, dir)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, damage(b), 0o600); err != nil {
				t.Fatal(err)
			}
			s2, rec := open(t, dir, 1<<20)
			wantEntries := 2
			if name == "torn header" {
				wantEntries = 3
			}
			if rec.Entries != wantEntries || rec.DroppedBytes == 0 || rec.Reason != name {
				t.Fatalf("recovery %+v, want %d entries and a dropped tail (%s)", rec, wantEntries, name)
			}
			if err := s2.Append(entry("c1", 9)); err != nil {
				t.Fatal(err)
			}
			s2.Close()
			s3, rec := open(t, dir, 1<<20)
			got := s3.Entries()
			if rec.DroppedBytes != 0 || len(got) != wantEntries+1 || got[len(got)-1].Record.Epoch != 9 {
				t.Errorf("after the repair: recovery %+v, %d entries ending at epoch %d", rec, len(got), got[len(got)-1].Record.Epoch)
			}
		})
	}
}

// TestFull: past its bound the spool refuses with ErrFull and keeps what it
// had; dropping drained entries makes room.
func TestFull(t *testing.T) {
	dir := t.TempDir()
	s, _ := open(t, dir, 1500)
	n := 0
	for ; ; n++ {
		err := s.Append(entry("c1", int64(n+1)))
		if errors.Is(err, spool.ErrFull) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 || s.Len() != n || s.Bytes() > 1500 {
		t.Fatalf("%d appended, %d held in %d bytes", n, s.Len(), s.Bytes())
	}
	if err := s.Drop(1); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(entry("c1", 99)); err != nil {
		t.Errorf("append after a drop: %v", err)
	}
}

// TestDrop: dropping the oldest entries keeps the rest, on disk too, and
// later appends follow them.
func TestDrop(t *testing.T) {
	dir := t.TempDir()
	s, _ := open(t, dir, 1<<20)
	for e := range int64(5) {
		if err := s.Append(entry("c1", e+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Drop(2); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(entry("c2", 1)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Find("c1", 2); ok {
		t.Error("dropped epoch 2 still found")
	}
	if e, ok := s.Latest("c1"); !ok || e.Record.Epoch != 5 {
		t.Errorf("latest of c1 %+v, %v", e.Record.Epoch, ok)
	}
	if old, ok := s.Oldest(); !ok || !old.Equal(entry("c1", 3).Record.CreatedAt) {
		t.Errorf("oldest %v, %v", old, ok)
	}
	s.Close()
	s2, rec := open(t, dir, 1<<20)
	var epochs []string
	for _, e := range s2.Entries() {
		epochs = append(epochs, fmt.Sprintf("%s/%d", e.Record.Cluster, e.Record.Epoch))
	}
	if diff := cmp.Diff([]string{"c1/3", "c1/4", "c1/5", "c2/1"}, epochs); diff != "" || rec.DroppedBytes != 0 {
		t.Errorf("after drop and reopen (-want +got):\n%s (recovery %+v)", diff, rec)
	}
}

// FuzzOpen: whatever the file holds, Open neither panics nor fails; it
// keeps a prefix of sound records, cuts the rest, and a second Open finds
// exactly that prefix with nothing more to cut.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	s, _, err := spool.Open(dir, 1<<20)
	if err != nil {
		f.Fatal(err)
	}
	for e := range int64(2) {
		if err := s.Append(entry("c1", e+1)); err != nil {
			f.Fatal(err)
		}
	}
	s.Close()
	good, err := os.ReadFile(lastSegment(f, dir))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Add([]byte{255, 255, 255, 255, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "spool-0000000001.log"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, rec, err := spool.Open(dir, 1<<30)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		kept := s.Entries()
		size := s.Bytes()
		s.Close()
		if rec.Entries != len(kept) || size+rec.DroppedBytes != int64(len(data)) {
			t.Fatalf("recovery %+v with %d entries in %d bytes of %d", rec, len(kept), size, len(data))
		}
		s2, rec2, err := spool.Open(dir, 1<<30)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		defer s2.Close()
		if rec2.DroppedBytes != 0 || !cmp.Equal(kept, s2.Entries()) {
			t.Fatalf("reopen found %+v, entries differ: %v", rec2, !cmp.Equal(kept, s2.Entries()))
		}
	})
}

// TestDropWhileAppending: entries appended while a drop rewrites the file
// are kept, in order, on disk too.
func TestDropWhileAppending(t *testing.T) {
	dir := t.TempDir()
	s, _ := open(t, dir, 1<<24)
	for e := range int64(50) {
		if err := s.Append(entry("c1", e+1)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		for e := int64(51); e <= 150; e++ {
			if err := s.Append(entry("c1", e)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	dropped := 0
	for dropped < 100 {
		n := min(10, s.Len())
		if err := s.Drop(n); err != nil {
			t.Fatal(err)
		}
		dropped += n
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, rec := open(t, dir, 1<<24)
	got := s2.Entries()
	if rec.DroppedBytes != 0 || len(got) != 150-dropped {
		t.Fatalf("%d entries after dropping %d of 150 (recovery %+v)", len(got), dropped, rec)
	}
	for i, e := range got {
		if want := int64(dropped + i + 1); e.Record.Epoch != want {
			t.Fatalf("entry %d is epoch %d, want %d", i, e.Record.Epoch, want)
		}
	}
}

// segments lists the spool's segment files by base name.
func segments(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, spool.SegmentPattern))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}

// TestSegments: past a segment's size appends go to a new file; a drain
// deletes the segments it stored whole, rewriting nothing, and what it
// stored of the next one stays dropped across a reopen; the bound counts
// only records not drained.
func TestSegments(t *testing.T) {
	dir := t.TempDir()
	s, _ := open(t, dir, 1<<30)
	big := func(epoch int64) spool.Entry {
		e := entry("c1", epoch)
		e.Record.Request = json.RawMessage(fmt.Sprintf(`{"epoch":%d,"pad":"%s"}`, epoch, strings.Repeat("x", 1<<20)))
		return e
	}
	for e := int64(1); e <= 20; e++ {
		if err := s.Append(big(e)); err != nil {
			t.Fatal(err)
		}
	}
	if got := segments(t, dir); len(got) != 2 {
		t.Fatalf("20 records of 1 MiB in segments %v, want 2 (a new one past 16 MiB)", got)
	}
	first := segments(t, dir)[0]
	before := s.Bytes()
	if err := s.Drop(18); err != nil {
		t.Fatal(err)
	}
	got := segments(t, dir)
	if slices.Contains(got, first) {
		t.Errorf("segments %v after draining the first whole: %s is still there", got, first)
	}
	if s.Len() != 2 || s.Bytes() >= before/5 {
		t.Errorf("after dropping 18 of 20: %d entries, %d of %d bytes counted", s.Len(), s.Bytes(), before)
	}
	if err := s.Append(big(21)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, rec := open(t, dir, 1<<30)
	var epochs []int64
	for _, e := range s2.Entries() {
		epochs = append(epochs, e.Record.Epoch)
	}
	if diff := cmp.Diff([]int64{19, 20, 21}, epochs); diff != "" || rec.DroppedBytes != 0 {
		t.Errorf("after reopen (-want +got):\n%s (recovery %+v)", diff, rec)
	}
	if err := s2.Drop(3); err != nil {
		t.Fatal(err)
	}
	if got := segments(t, dir); len(got) != 1 {
		t.Errorf("segments %v once everything is drained, want only the empty one appends go to", got)
	}
	if info, err := os.Stat(lastSegment(t, dir)); err != nil || info.Size() != 0 {
		t.Errorf("the segment left after a full drain: %v, %v", info, err)
	}
}

// TestLegacyFile: a spool written as one spool.log file (before segments)
// is read back and drained like any other.
func TestLegacyFile(t *testing.T) {
	dir := t.TempDir()
	s, _ := open(t, dir, 1<<20)
	for e := int64(1); e <= 3; e++ {
		if err := s.Append(entry("c1", e)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if err := os.Rename(lastSegment(t, dir), filepath.Join(dir, "spool.log")); err != nil {
		t.Fatal(err)
	}
	s2, rec := open(t, dir, 1<<20)
	if rec.Entries != 3 || s2.Len() != 3 {
		t.Fatalf("legacy file: recovery %+v, %d entries", rec, s2.Len())
	}
	if _, err := os.Stat(filepath.Join(dir, "spool.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("spool.log still there after adoption: %v", err)
	}
}
