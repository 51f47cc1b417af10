// Dredd hooks for scripts/dredd.sh: tokens, and what Dredd cannot be told
// through the spec. Nothing here changes a request's body, path or query:
// every executed transaction sends the spec's own example.
//
// Ordering is not done here: scripts/dredd.sh runs Dredd with --sorted, so
// the example epoch is POSTed before the GETs read it back.
const hooks = require('hooks');

// A token, when the server has tokens (FLEXD_TOKEN); the memory-store run
// of scripts/dredd.sh has none (access control is off on loopback).
const token = process.env.FLEXD_TOKEN || '';

// Dredd's OpenAPI 3 parser (@apielements/openapi3-parser 0.16) ignores a
// header's `required` ("'Header Object' contains unsupported key
// 'required'") and expects every declared header. Idempotent-Replay is
// declared optional (docs/api.md: it marks a replayed decision, and a first
// decision has none), so it is not expected here either.
const optionalHeaders = ['Idempotent-Replay'];

hooks.beforeEach((transaction, done) => {
  // One request example per operation (the spec's, answered 2xx) can only
  // meet the 2xx response: each 4xx and 5xx answer needs another request
  // (a malformed body, no token, another cluster's token, an epoch stored
  // with another body) or another server (rate limited, shutting down, its
  // database away). Their examples are checked by api's
  // TestResponseExamples against the answers a server gives to exactly
  // those requests. Dredd skips them itself for OpenAPI 2; its OpenAPI 3
  // support does not.
  if (!/^2\d\d$/.test(transaction.expected.statusCode)) {
    transaction.skip = true;
    return done();
  }
  if (token) {
    transaction.request.headers.Authorization = `Bearer ${token}`;
  }
  for (const h of optionalHeaders) {
    delete transaction.expected.headers[h];
  }
  done();
});
