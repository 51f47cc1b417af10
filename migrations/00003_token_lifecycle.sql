-- Tokens get a lifecycle: when each was last used, an optional expiry,
-- and revocation. A revoked token is kept (marked, never deleted), so that
-- revoking the last token leaves tokens in the table and access control on.

-- +goose Up
ALTER TABLE tokens
    ADD COLUMN last_used_at timestamptz,
    ADD COLUMN expires_at   timestamptz,
    ADD COLUMN revoked_at   timestamptz;

-- +goose Down
ALTER TABLE tokens
    DROP COLUMN last_used_at,
    DROP COLUMN expires_at,
    DROP COLUMN revoked_at;
