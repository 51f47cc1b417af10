// Package migrations holds flexd's PostgreSQL schema as numbered goose v3
// SQL files (NNNNN_name.sql, each with an Up and a Down section) embedded in
// FS. It imports only the standard library so that anything may depend on
// it; the code that applies the files (with goose's PostgreSQL session lock,
// so replicas can start together) lives in store/postgres.
//
// Files are never edited once released: a schema change is a new file with
// the next number, and its Down section must undo exactly its Up section
// (the round-trip test in store/postgres runs up, down to zero, and up).
package migrations

import "embed"

// FS holds the migration files at its root, in the layout goose expects.
//
//go:embed *.sql
var FS embed.FS
