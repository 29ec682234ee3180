-- sqlqueue, backend "sqlserver": deduplication keys (Message.deduplicationKey). One row per queue and key
-- taken within its window; the primary key is the guarantee, and the keyed enqueue reads the key under
-- UPDLOCK, HOLDLOCK first, so a second enqueue of the key waits for the first's transaction and then sees
-- its row (committed) or none (rolled back). The key column is BIN2 (case and code points count), and
-- the stored key is the key followed by '.': "=" ignores trailing spaces even under BIN2 (ANSI padding),
-- which would make 'k' and 'k ' one key.
-- expires_at is SYSUTCDATETIME() + window; an enqueue deletes its own key's expired row by primary key,
-- and every 256th keyed enqueue deletes up to 500 other expired rows through the expiry index
-- (SqlServerStatements "enqueueKeyed", "deleteExpiredKeysBatch"). Placeholders as in V1.

CREATE TABLE ${dedupe_keys} (
    [queue_name] nvarchar(48) COLLATE Latin1_General_BIN2 NOT NULL,
    [dedupe_key] nvarchar(129) COLLATE Latin1_General_BIN2 NOT NULL,
    [message_id] bigint NOT NULL,
    [expires_at] datetime2(7) NOT NULL,
    CONSTRAINT ${dedupe_keys_pk} PRIMARY KEY CLUSTERED ([queue_name], [dedupe_key])
);
GO

CREATE NONCLUSTERED INDEX ${dedupe_keys_expiry_index} ON ${dedupe_keys} ([expires_at]);
GO
