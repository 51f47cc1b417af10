package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"time"

	"github.com/flexd/flexd/client"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store/memory"
)

// An epoch posted with DecideEpochRetrying, and the same epoch again: the
// second answer is the stored decision, replayed.
func ExampleClientWithResponses_DecideEpochRetrying() {
	srv, err := httpapi.New(httpapi.Config{Store: memory.New(memory.Config{}), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	body, err := os.ReadFile("../examples/epoch.json")
	if err != nil {
		panic(err)
	}
	c, err := client.NewClientWithResponses(ts.URL, client.WithToken("")) // a token as `flexd token create` prints it; none here
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for range 2 {
		d, err := c.DecideEpochRetrying(ctx, "c1", nil, body, client.Retry{Attempts: 3, Timeout: 5 * time.Second})
		if err != nil {
			panic(err)
		}
		fmt.Printf("status %d, replay %v:", d.StatusCode(), d.Replay())
		for _, a := range d.JSON200.Allocations {
			fmt.Printf(" %s map %d reduce %d;", a.Id, a.Map, a.Reduce)
		}
		fmt.Println()
	}
	// Output:
	// status 200, replay false: job_1 map 14 reduce 5; job_2 map 6 reduce 0;
	// status 200, replay true: job_1 map 14 reduce 5; job_2 map 6 reduce 0;
}
