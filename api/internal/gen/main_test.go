package main

import (
	"strings"
	"testing"
)

// TestConvert checks what Convert adds beyond openapi2conv: problem bodies
// under application/problem+json, X-Request-Id on every response, and a
// byte-identical result on every run.
func TestConvert(t *testing.T) {
	const v2 = `{
	  "swagger": "2.0", "info": {"title": "t", "version": "1"}, "basePath": "/",
	  "paths": {"/x": {"get": {"produces": ["application/json"], "responses": {
	    "200": {"description": "OK", "schema": {"$ref": "#/definitions/httpapi.Health"}},
	    "404": {"description": "Not Found", "schema": {"$ref": "#/definitions/httpapi.Problem"}},
	    "503": {"description": "down", "schema": {"$ref": "#/definitions/httpapi.Health"}}}}}},
	  "definitions": {
	    "httpapi.Health": {"type": "object", "properties": {"status": {"type": "string"}}},
	    "httpapi.Problem": {"type": "object", "properties": {"status": {"type": "integer"}}}}}`
	first, err := Convert([]byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	y := string(first)
	for _, want := range []string{
		"openapi: 3.0",
		"application/problem+json",
		"X-Request-Id",
		"# Code generated",
	} {
		if !strings.Contains(y, want) {
			t.Errorf("output lacks %q:\n%s", want, y)
		}
	}
	// The 503 carries a Health body, which stays application/json.
	if n := strings.Count(y, "application/json"); n != 2 {
		t.Errorf("application/json appears %d times, want 2 (200 and 503):\n%s", n, y)
	}
	for range 5 {
		again, err := Convert([]byte(v2))
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != y {
			t.Fatalf("Convert is not deterministic")
		}
	}
}
