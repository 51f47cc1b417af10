package main

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestConvert checks what Convert adds beyond openapi2conv: problem bodies
// under application/problem+json, X-Request-Id on every response, and a
// byte-identical result on every run.
func TestConvert(t *testing.T) {
	const v2 = `{
	  "swagger": "2.0", "info": {"title": "t", "version": "1"}, "basePath": "/",
	  "paths": {"/x": {"get": {"produces": ["application/json"], "responses": {
	    "200": {"description": "OK", "schema": {"$ref": "#/definitions/Health"}},
	    "404": {"description": "Not Found", "schema": {"$ref": "#/definitions/Problem"}},
	    "503": {"description": "down", "schema": {"$ref": "#/definitions/Health"}}}}}},
	  "definitions": {
	    "Health": {"type": "object", "properties": {"status": {"type": "string"}}},
	    "Problem": {"type": "object", "properties": {"status": {"type": "integer"}}}}}`
	first, err := Convert([]byte(v2), nil, nil)
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
		again, err := Convert([]byte(v2), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != y {
			t.Fatalf("Convert is not deterministic")
		}
	}
}

// TestConvertSecurity: the API-key scheme swag can say becomes an HTTP
// bearer scheme required at the root, and a public operation says it
// needs none.
func TestConvertSecurity(t *testing.T) {
	const v2 = `{
	  "swagger": "2.0", "info": {"title": "t", "version": "1"}, "basePath": "/",
	  "securityDefinitions": {"BearerAuth": {"type": "apiKey", "name": "Authorization", "in": "header"}},
	  "paths": {
	    "/healthz": {"get": {"operationId": "health", "responses": {"200": {"description": "OK"}}}},
	    "/v1/solve": {"post": {"operationId": "solve", "security": [{"BearerAuth": []}], "responses": {"200": {"description": "OK"}}}}}}`
	out, err := Convert([]byte(v2), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(out)
	if err != nil {
		t.Fatal(err)
	}
	if sc := doc.Components.SecuritySchemes["BearerAuth"].Value; sc.Type != "http" || sc.Scheme != "bearer" {
		t.Errorf("BearerAuth is %s/%s, want http/bearer", sc.Type, sc.Scheme)
	}
	if len(doc.Security) != 1 || doc.Security[0]["BearerAuth"] == nil {
		t.Errorf("root security %v, want BearerAuth", doc.Security)
	}
	if sec := doc.Paths.Find("/healthz").Get.Security; sec == nil || len(*sec) != 0 {
		t.Errorf("/healthz security %v, want none (public)", sec)
	}
}

// TestConvertAnswers: a golden answer becomes its response's example, and
// one of no declared response (a renamed operation, a dropped status) is
// an error rather than silently left out.
func TestConvertAnswers(t *testing.T) {
	const v2 = `{
	  "swagger": "2.0", "info": {"title": "t", "version": "1"}, "basePath": "/",
	  "paths": {"/healthz": {"get": {"operationId": "health", "produces": ["application/json"], "responses": {
	    "200": {"description": "OK", "schema": {"type": "object", "properties": {"status": {"type": "string"}}}}}}}}}`
	out, err := Convert([]byte(v2), nil, map[string]any{"health 200": map[string]any{"status": "ok"}})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(out)
	if err != nil {
		t.Fatal(err)
	}
	ex := doc.Paths.Find("/healthz").Get.Responses.Status(200).Value.Content.Get("application/json").Example
	if m, ok := ex.(map[string]any); !ok || m["status"] != "ok" {
		t.Errorf("the 200's example is %#v, want the golden answer", ex)
	}
	if _, err := Convert([]byte(v2), nil, map[string]any{"health 503": map[string]any{}}); err == nil || !strings.Contains(err.Error(), "health 503") {
		t.Errorf("an answer of no declared response: error %v, want one naming it", err)
	}
}
