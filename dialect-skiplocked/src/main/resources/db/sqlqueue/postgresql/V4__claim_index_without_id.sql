-- The claim index ends with (id + 0) instead of id: the claims order by that expression (the same order),
-- and the primary key becomes the only index an ack's "id = ANY(?)" can use. With id as its last column,
-- the claim index was seen serving acks by a full scan of itself (acks of 1-4 s) while PostgreSQL's
-- statistics recorded the message table as nearly empty (issue 16, docs/benchmarks.md and
-- docs/backends/postgresql.md, "Statistics of a queue table, and vacuum").
-- Rebuilt in the migration's transaction: writes to the message table wait for the build.
DROP INDEX "${prefix}message_claim";
CREATE INDEX "${prefix}message_claim" ON "${prefix}message" (queue, priority DESC, visible_at, (id + 0));
