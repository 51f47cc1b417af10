package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// openInput returns the command's input: the file named by the only
// argument, or stdin when there is none or it is "-". The closer is a no-op
// for stdin. A file that cannot be opened is the caller's fault (exit 2).
func openInput(cmd *cobra.Command, args []string, what string) (io.Reader, func(), error) {
	if len(args) == 0 || args[0] == "-" {
		return cmd.InOrStdin(), func() {}, nil
	}
	f, err := os.Open(args[0])
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("%s: %w", what, err)}
	}
	return f, func() { f.Close() }, nil
}
