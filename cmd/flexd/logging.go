package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
)

// logSettings are the global --log-level and --log-format.
type logSettings struct {
	level, format string
}

// currentLogger is the logger the running command set up (setupLogging);
// nil before, when newLogger falls back to the defaults.
var currentLogger atomic.Pointer[slog.Logger]

// addLogFlags adds the global logging flags to root.
func addLogFlags(root *cobra.Command) {
	s := &logSettings{}
	pf := root.PersistentFlags()
	pf.StringVar(&s.level, "log-level", "info", "least severe log records written: debug, info, warn or error (probe requests log at debug)")
	pf.StringVar(&s.format, "log-format", "auto", "log format: json, text, or auto (text on a terminal, json otherwise)")
}

// setupLogging reads the logging flags of cmd (a usage error names the
// flag) and makes the logger every part of the command uses.
func setupLogging(cmd *cobra.Command) error {
	level, _ := cmd.Flags().GetString("log-level")
	format, _ := cmd.Flags().GetString("log-format")
	l, err := buildLogger(cmd.ErrOrStderr(), level, format)
	if err != nil {
		return err
	}
	currentLogger.Store(l)
	if v, ok := os.LookupEnv("FLEXD_LOG"); ok {
		l.Warn("FLEXD_LOG is not read: replay's log file is FLEXD_REPLAY_LOG, logging is FLEXD_LOG_LEVEL and FLEXD_LOG_FORMAT", "FLEXD_LOG", v)
	}
	return nil
}

// buildLogger makes a logger writing to w at level in format.
func buildLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lv = slog.LevelDebug
	case "info":
		lv = slog.LevelInfo
	case "warn", "warning":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		return nil, usageError{fmt.Errorf("--log-level %q: want debug, info, warn or error", level)}
	}
	opts := &slog.HandlerOptions{Level: lv, ReplaceAttr: durationsInSeconds}
	switch strings.ToLower(format) {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "auto":
		if isTerminal(w) {
			return slog.New(slog.NewTextHandler(w, opts)), nil
		}
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageError{fmt.Errorf("--log-format %q: want json, text or auto", format)}
}

// durationsInSeconds writes every time.Duration attribute as seconds (a
// float), where slog's JSON handler would write nanoseconds: "timeout": 30
// rather than 30000000000.
func durationsInSeconds(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.Float64Value(a.Value.Duration().Seconds())
	}
	return a
}

// isTerminal reports whether w is a character device (a person watching).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// newLogger is the logger of the running command: as --log-level and
// --log-format set it, or, before they are read, info records on stderr,
// text on a terminal and JSON otherwise (collectors parse it).
func newLogger() *slog.Logger {
	if l := currentLogger.Load(); l != nil {
		return l
	}
	l, _ := buildLogger(os.Stderr, "info", "auto")
	return l
}
