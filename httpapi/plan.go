package httpapi

import (
	"fmt"
	"net/http"

	"github.com/flexd/flexd/plan"
)

// planSlotConfig godoc
//
//	@Summary		Plan a static map/reduce slot split for a batch (FRESH Alg. 3.3.1)
//	@ID			planSlotConfig
//	@Description	Simulates the batch of job profiles under every split of slots into map and reduce slots (at most k jobs per phase at a time) and answers the split with the least predicted makespan, and the whole curve. Stateless. The body and answer are package plan's, the same as `flexd plan slot-config`.
//	@Tags			plan
//	@Accept			json
//	@Produce		json
//	@Param			request	body		plan.SlotConfigRequest	true	"the slots, k and the batch's job profiles"
//	@Success		200		{object}	plan.SlotConfigResponse
//	@Failure		400		{object}	Problem	"malformed JSON, unknown field or wrong type"
//	@Failure		401		{object}	Problem
//	@Failure		413		{object}	Problem	"body over the limit"
//	@Failure		415		{object}	Problem	"Content-Type not JSON, or a compressed body"
//	@Failure		422		{object}	Problem	"a rule is broken; every problem listed"
//	@Failure		429		{object}	Problem
//	@Failure		503		{object}	Problem
//	@Security		BearerAuth
//	@Router			/v1/plan/slot-config [post]
func (s *Server) planSlotConfig(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		s.problem(w, r, err)
		return
	}
	var req plan.SlotConfigRequest
	if err := decodeStrict(body, &req); err != nil {
		s.problem(w, r, err)
		return
	}
	// plan.SlotConfig bounds the work (plan.MaxCost) before simulating, so
	// a body cannot make this call run for long.
	resp, err := plan.SlotConfig(req)
	if err != nil {
		// A *ratio.ValidationError is a 422 (toAPIError); plan promises no
		// other error, so anything else is a bug and rightly a 500.
		s.problem(w, r, fmt.Errorf("planning a slot configuration: %w", err))
		return
	}
	s.writeJSON(w, r, http.StatusOK, "application/json", resp)
}
