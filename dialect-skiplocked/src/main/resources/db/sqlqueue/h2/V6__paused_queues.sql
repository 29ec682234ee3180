-- Paused queues (QueueAdmin.pause): one row per paused queue, none for a running one. Every claim reads it
-- by primary key for the queue it claims from ("not exists", correlated on the queue), so a claim of a
-- running queue meets an empty or tiny table; resume deletes the row. A separate table, not a column of
-- the queue table: an ensureQueue or a drop never waits for a pause, and the claim reads nothing else new.
-- No locking read takes its rows: a claim's FOR UPDATE locks rows of the message table only.
CREATE TABLE "${prefix}paused_queue" (
    queue      VARCHAR(48) NOT NULL PRIMARY KEY,
    paused_at  BIGINT      NOT NULL
);
