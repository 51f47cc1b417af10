-- The stored bodies become text, and the allocation arrays are compressed
-- with lz4 too.
--
-- json validates its input by parsing it: about a fifth of PostgreSQL's CPU
-- per save at hundreds of epochs a second (two bodies of ~50 KB each), for
-- documents flexd wrote itself and never queries inside. text keeps them
-- byte for byte, as json did (`request::json` still works in SQL). The
-- arrays of 400 (job, phase) elements were compressed with pglz, the
-- default, which costs several times lz4's CPU.
--
-- Changing the type rewrites the tables, once, and resets the columns'
-- compression, which is why the bodies' lz4 is set again.

-- +goose Up
ALTER TABLE epochs
    ALTER COLUMN request TYPE text,
    ALTER COLUMN decision TYPE text,
    ALTER COLUMN state TYPE text;
ALTER TABLE cluster_state ALTER COLUMN state TYPE text;

-- +goose StatementBegin
DO $$
BEGIN
    ALTER TABLE epochs
        ALTER COLUMN request SET COMPRESSION lz4,
        ALTER COLUMN decision SET COMPRESSION lz4,
        ALTER COLUMN state SET COMPRESSION lz4,
        ALTER COLUMN alloc_jobs SET COMPRESSION lz4,
        ALTER COLUMN alloc_phases SET COMPRESSION lz4,
        ALTER COLUMN alloc_slots SET COMPRESSION lz4,
        ALTER COLUMN alloc_reasons SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value OR syntax_error THEN
    RAISE NOTICE 'lz4 compression unavailable; keeping the default';
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE cluster_state ALTER COLUMN state TYPE json USING state::json;
ALTER TABLE epochs
    ALTER COLUMN request TYPE json USING request::json,
    ALTER COLUMN decision TYPE json USING decision::json,
    ALTER COLUMN state TYPE json USING state::json;

-- A type change resets a column's compression: back to 00001's settings.
-- +goose StatementBegin
DO $$
BEGIN
    ALTER TABLE epochs
        ALTER COLUMN request SET COMPRESSION lz4,
        ALTER COLUMN decision SET COMPRESSION lz4,
        ALTER COLUMN state SET COMPRESSION lz4,
        ALTER COLUMN alloc_jobs SET COMPRESSION default,
        ALTER COLUMN alloc_phases SET COMPRESSION default,
        ALTER COLUMN alloc_slots SET COMPRESSION default,
        ALTER COLUMN alloc_reasons SET COMPRESSION default;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value OR syntax_error THEN
    RAISE NOTICE 'lz4 compression unavailable; keeping the default';
END
$$;
-- +goose StatementEnd
