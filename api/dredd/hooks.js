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

// The statuses this run's server answers to the examples (a regular
// expression; default the 2xx). scripts/dredd.sh runs Dredd once per kind
// of server: a plain one answers 2xx; one with a tiny --body-limit answers
// 413 to every example body; one whose rate limit is spent answers 429.
const statuses = new RegExp(process.env.FLEXD_DREDD_STATUSES || '^2\\d\\d$');

hooks.beforeEach((transaction, done) => {
  // Each operation has one request example, and a server of one kind
  // answers it one way: the transactions expecting another status are
  // skipped in this run. Those no kind of server answers to the example
  // (400, 415 and 422 want another body, 401 and 404 a server with tokens
  // and a wrong or missing one, 409 an epoch stored with another body, 503
  // a server shutting down or a database away) are skipped in every run;
  // api's TestResponseExamples makes those requests instead and checks
  // the examples against their answers. (Dredd skips non-2xx answers
  // itself for OpenAPI 2; its OpenAPI 3 support does not.)
  if (!statuses.test(transaction.expected.statusCode)) {
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
