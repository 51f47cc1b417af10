package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/solver"
)

// maxSolveLine caps one request (one line in --jsonl mode), like the
// server's default body limit.
const maxSolveLine = 8 << 20

func newSolveCmd() *cobra.Command {
	var jsonl, allowFailures bool
	var effortFlag int
	var effort *int
	cmd := &cobra.Command{
		Use:   "solve [FILE]",
		Short: "Solve /v1/solve requests without a server (FILE or stdin to stdout)",
		Long: `solve reads one /v1/solve request (docs: api.md) from FILE, or from stdin when
FILE is absent or "-", and writes the response exactly as the server would, from
the same code. A bad request prints its problem+json object and exits with 2.

With --jsonl the input is a stream of requests, one per line, answered one per
line in order; a bad line gets its problem+json object on its line and the
stream goes on. At the end, if any line was refused, solve names them and exits
with 1, unless --allow-failures (then 0: the answers say which failed).

--effort sets the search effort of requests that do not set their own
(0: the fastest answer; 1: the default; n: n times the default search).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("effort") {
				if _, err := solver.EffortOption(&effortFlag); err != nil {
					return usageError{fmt.Errorf("--effort: %w", err)}
				}
				effort = &effortFlag
			}
			in, done, err := openInput(cmd, args, "solve")
			if err != nil {
				return err
			}
			defer done()
			out := bufio.NewWriter(cmd.OutOrStdout())
			defer out.Flush()
			if jsonl {
				refused, total, err := solveStream(in, out, effort)
				if err != nil {
					return err
				}
				if len(refused) > 0 && !allowFailures {
					if ferr := out.Flush(); ferr != nil {
						return fmt.Errorf("solve: writing: %w", ferr)
					}
					return fmt.Errorf("solve --jsonl: %d of %d request(s) refused, on line(s) %s (each answered with its problem; --allow-failures exits 0)",
						len(refused), total, joinInts(refused))
				}
				return nil
			}
			body, err := io.ReadAll(io.LimitReader(in, maxSolveLine+1))
			if err != nil {
				return fmt.Errorf("solve: reading the request: %w", err)
			}
			if len(body) > maxSolveLine {
				return usageError{fmt.Errorf("solve: request over %d bytes", maxSolveLine)}
			}
			status, resp := httpapi.SolveJSONEffort(body, effort)
			if err := writeJSONLine(out, resp); err != nil {
				return err
			}
			if status != http.StatusOK {
				return usageError{fmt.Errorf("solve: the request was refused (%d %s)", status, http.StatusText(status))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonl, "jsonl", false, "read a stream of requests, one per line, and answer one per line")
	cmd.Flags().BoolVar(&allowFailures, "allow-failures", false, "with --jsonl: exit 0 even when lines were refused")
	cmd.Flags().IntVar(&effortFlag, "effort", 1, fmt.Sprintf("search effort of requests without their own: 0 fastest, 1 default, up to %d", solver.MaxEffort))
	return cmd
}

// joinInts is "2, 5, 9".
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// solveStream answers each line of in on its own line of out and returns
// the line numbers of the refused requests and how many it answered.
func solveStream(in io.Reader, out *bufio.Writer, effort *int) (refused []int, total int, err error) {
	r := bufio.NewReaderSize(in, 64<<10)
	for line := 1; ; line++ {
		body, rerr := readLine(r, maxSolveLine)
		if errors.Is(rerr, io.EOF) && body == nil {
			return refused, total, nil
		}
		var resp any
		status := http.StatusOK
		switch {
		case errors.Is(rerr, errLineTooLong):
			status = http.StatusRequestEntityTooLarge
			resp = httpapi.Problem{Type: "about:blank", Title: http.StatusText(status),
				Status: status, Detail: fmt.Sprintf("line %d is over %d bytes", line, maxSolveLine)}
		case rerr != nil && !errors.Is(rerr, io.EOF):
			return refused, total, fmt.Errorf("solve: reading line %d: %w", line, rerr)
		case len(bytes.TrimSpace(body)) == 0:
			if errors.Is(rerr, io.EOF) {
				return refused, total, nil
			}
			continue // blank lines separate nothing
		default:
			status, resp = httpapi.SolveJSONEffort(body, effort)
		}
		total++
		if status != http.StatusOK {
			refused = append(refused, line)
		}
		if werr := writeJSONLine(out, resp); werr != nil {
			return refused, total, werr
		}
		// Each answer goes out as soon as it is ready, so a shim can stream.
		if ferr := out.Flush(); ferr != nil {
			return refused, total, fmt.Errorf("solve: writing: %w", ferr)
		}
		if errors.Is(rerr, io.EOF) {
			return refused, total, nil
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its newline; a line over limit is
// consumed and reported as errLineTooLong.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > limit+1 {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return []byte{}, errLineTooLong
		}
		buf = append(buf, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			if len(buf) == 0 {
				return nil, err
			}
			return buf, err
		}
		return bytes.TrimRight(buf, "\r\n"), nil
	}
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("solve: encoding the answer: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("solve: writing: %w", err)
	}
	return nil
}
