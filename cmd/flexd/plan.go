package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/flexd/flexd/plan"
	"github.com/flexd/flexd/ratio"
)

// maxPlanBody caps a plan request like the server's default body limit.
const maxPlanBody = 8 << 20

func newPlanCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Offline planning calls (FRESH's static slot configuration)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newPlanSlotConfigCmd())
	return cmd
}

func newPlanSlotConfigCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "slot-config [FILE]",
		Short: "Best static map/reduce split for a batch of jobs (FRESH Alg. 3.3.1)",
		Long: `slot-config reads {"slots": S, "k": K, "jobs": [{"map_tasks": .., "reduce_tasks": ..,
"map_time": .., "reduce_time": ..}]} from FILE, or from stdin when FILE is absent
or "-", simulates the batch (in order, at most K jobs per phase) for every split of
S slots and prints the best split, its predicted makespan in seconds and the whole
curve as JSON: the body and answer of POST /v1/plan/slot-config. A bad request
prints every problem and exits with 2.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, done, err := openInput(cmd, args, "plan slot-config")
			if err != nil {
				return err
			}
			defer done()
			req, err := readPlanRequest(in)
			if err != nil {
				return err
			}
			resp, err := plan.SlotConfig(req)
			var ve *ratio.ValidationError
			if errors.As(err, &ve) {
				return usageError{fmt.Errorf("plan slot-config: %w", err)}
			}
			if err != nil {
				return fmt.Errorf("plan slot-config: %w", err)
			}
			out, err := json.MarshalIndent(resp, "", "  ")
			if err != nil {
				return fmt.Errorf("plan slot-config: encoding the answer: %w", err)
			}
			if _, err := cmd.OutOrStdout().Write(append(out, '\n')); err != nil {
				return fmt.Errorf("plan slot-config: writing: %w", err)
			}
			return nil
		},
	}
}

// readPlanRequest decodes one request strictly, as the server does:
// unknown fields and trailing data are the caller's mistakes.
func readPlanRequest(in io.Reader) (plan.SlotConfigRequest, error) {
	var req plan.SlotConfigRequest
	body, err := io.ReadAll(io.LimitReader(in, maxPlanBody+1))
	if err != nil {
		return req, fmt.Errorf("plan slot-config: reading the request: %w", err)
	}
	if len(body) > maxPlanBody {
		return req, usageError{fmt.Errorf("plan slot-config: request over %d bytes", maxPlanBody)}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, usageError{fmt.Errorf("plan slot-config: malformed request: %w", err)}
	}
	if dec.More() {
		return req, usageError{errors.New("plan slot-config: malformed request: data after the JSON object")}
	}
	return req, nil
}
