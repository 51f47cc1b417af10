-- History of epochs with their per-job allocations, each cluster's state,
-- and API tokens. See store/store.go for what each column means.

-- +goose Up
CREATE TABLE epochs (
    cluster      text        NOT NULL,
    epoch        bigint      NOT NULL CHECK (epoch >= 0),
    decision_id  text        NOT NULL,
    request_hash text        NOT NULL,
    -- json, not jsonb: the bodies are only stored and returned whole, never
    -- queried inside, and jsonb's parse of ~100 KB per epoch was a large
    -- share of PostgreSQL's work at hundreds of epochs a second.
    request      json        NOT NULL,
    decision     json        NOT NULL,
    -- The cluster state after this epoch, kept so a replayed save returns
    -- exactly what the first one did.
    state        json,
    -- The decision's allocations, one element per (job, phase) in each
    -- array, sorted by job id then phase (byte order). Arrays on the epoch's
    -- row rather than a row per job and phase: 400 rows, their index
    -- entries and their foreign-key checks per epoch of 200 jobs cost more
    -- than the rest of the save together.
    alloc_jobs    text[]     NOT NULL DEFAULT '{}',
    alloc_phases  text[]     NOT NULL DEFAULT '{}',
    alloc_slots   integer[]  NOT NULL DEFAULT '{}',
    alloc_reasons text[]     NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (cluster, epoch)
);

-- The bodies are compressed with lz4 where the server has it: PostgreSQL's
-- default (pglz) compressing ~100 KB per epoch was about half of its CPU
-- time per save. Servers built without lz4 keep pglz.
-- +goose StatementBegin
DO $$
BEGIN
    ALTER TABLE epochs
        ALTER COLUMN request SET COMPRESSION lz4,
        ALTER COLUMN decision SET COMPRESSION lz4,
        ALTER COLUMN state SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value OR syntax_error THEN
    RAISE NOTICE 'lz4 compression unavailable; keeping the default';
END
$$;
-- +goose StatementEnd

-- Retention deletes by age across all clusters.
CREATE INDEX epochs_created_at_idx ON epochs (created_at);

-- Listing a cluster's epochs filtered by job (alloc_jobs @> ARRAY[job]).
-- GIN's pending list (fastupdate, the default) keeps the insert cheap.
CREATE INDEX epochs_alloc_jobs_idx ON epochs USING gin (alloc_jobs);

-- One row per cluster: the epoch number it was last saved at guards every
-- save, so two replicas cannot both advance the same state.
CREATE TABLE cluster_state (
    cluster    text        PRIMARY KEY,
    epoch      bigint      NOT NULL,
    state      json,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tokens (
    hash       text        PRIMARY KEY,
    cluster    text        NOT NULL DEFAULT '',
    admin      boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE tokens;
DROP TABLE cluster_state;
DROP TABLE epochs;
