-- History of epochs, their per-job allocations, each cluster's state, and
-- API tokens. See store/store.go for what each column means.

-- +goose Up
CREATE TABLE epochs (
    cluster      text        NOT NULL,
    epoch        bigint      NOT NULL CHECK (epoch >= 0),
    decision_id  text        NOT NULL,
    request_hash text        NOT NULL,
    request      jsonb       NOT NULL,
    decision     jsonb       NOT NULL,
    -- The cluster state after this epoch, kept so a replayed save returns
    -- exactly what the first one did.
    state        jsonb,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (cluster, epoch)
);

-- Retention deletes by age across all clusters.
CREATE INDEX epochs_created_at_idx ON epochs (created_at);

-- No primary key: (cluster, epoch, job_id, phase) is unique, but the store
-- checks that before inserting, and a unique index on it about doubled the
-- cost of saving an epoch of 200 jobs (each epoch writes a row per job and
-- phase, at hundreds of epochs a second).
CREATE TABLE epoch_allocations (
    cluster text    NOT NULL,
    epoch   bigint  NOT NULL,
    job_id  text    NOT NULL,
    phase   text    NOT NULL,
    slots   integer NOT NULL,
    reason  text    NOT NULL,
    FOREIGN KEY (cluster, epoch) REFERENCES epochs (cluster, epoch) ON DELETE CASCADE
);

-- Listing a cluster's epochs filtered by job walks this index newest first.
CREATE INDEX epoch_allocations_job_idx ON epoch_allocations (cluster, job_id, epoch);

-- One row per cluster: the epoch number it was last saved at guards every
-- save, so two replicas cannot both advance the same state.
CREATE TABLE cluster_state (
    cluster    text        PRIMARY KEY,
    epoch      bigint      NOT NULL,
    state      jsonb,
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
DROP TABLE epoch_allocations;
DROP TABLE epochs;
