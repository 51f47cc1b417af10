package epochtest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/epoch/epochtest"
)

// Build must deep-copy: neither changing a builder after Build nor changing
// one built value may reach another built value.
func TestBuildCopies(t *testing.T) {
	fresh := func() epoch.Request {
		return epochtest.Request(1).Pool("p", 1).Jobs(epochtest.Job("a").Weight(2).Map(1, 4, 10).SLA(5, 1).Build()).Build()
	}
	for name, change := range map[string]func(jb *epochtest.JobBuilder, rb *epochtest.RequestBuilder, sibling epoch.Request){
		"changing the builders after Build": func(jb *epochtest.JobBuilder, rb *epochtest.RequestBuilder, _ epoch.Request) {
			jb.Weight(9).Map(0, 1, 1).SLA(6, 2)
			rb.Slots(1, 1).Pool("q", 2).Jobs(epochtest.Job("b").Build())
		},
		"changing another value built by the same builder": func(_ *epochtest.JobBuilder, _ *epochtest.RequestBuilder, sibling epoch.Request) {
			*sibling.Jobs[0].Weight = 9
			sibling.Jobs[0].Map.Max = 99
			sibling.Jobs[0].SLA[0].Penalty = 7
			sibling.Ratio.Pools[0].Weight = 9
		},
	} {
		t.Run(name, func(t *testing.T) {
			jb := epochtest.Job("a").Weight(2).Map(1, 4, 10).SLA(5, 1)
			rb := epochtest.Request(1).Pool("p", 1).Jobs(jb.Build())
			built, sibling := rb.Build(), rb.Build()
			change(jb, rb, sibling)
			if diff := cmp.Diff(fresh(), built); diff != "" {
				t.Errorf("built request changed (-want +got):\n%s", diff)
			}
		})
	}
}
