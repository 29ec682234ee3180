-- Deduplication keys (Message.deduplicationKey): one row per queue and key taken within its window.
-- The primary key is what makes concurrent enqueues of one key, in any process or in a caller's open
-- transaction, leave one message: the second insert of a key waits for the first transaction, then
-- fails (it committed) or succeeds (it rolled back). expires_at is epoch ms on the database clock; an
-- enqueue deletes its own key's expired row by primary key, and the backend deletes other expired rows
-- in bounded batches through the expiry index, so no enqueue scans the table.
CREATE TABLE "${prefix}dedupe_key" (
    queue        VARCHAR(48)  NOT NULL,
    dedupe_key   VARCHAR(128) NOT NULL,
    message_id   BIGINT,
    expires_at   BIGINT       NOT NULL,
    PRIMARY KEY (queue, dedupe_key)
);
CREATE INDEX "${prefix}dedupe_key_expiry" ON "${prefix}dedupe_key" (expires_at);
