-- H2 hands out identity values from a cache of 32 by default and writes the sequence's new high mark
-- with a commit of its own each time the cache runs out: with WRITE_DELAY=0 (the durable default of
-- the H2 provider) that is one extra durable write per 32 messages enqueued (per 32 history rows
-- written). A cache of 1,000 makes it one per 1,000. Values of a cache not used when the database
-- closes or the process dies are skipped (a gap in the ids): ids stay unique and increasing, which is
-- all the backend relies on. Seen in a profile of enqueueAll (docs/benchmarks.md, issue 16).
ALTER TABLE "${prefix}message" ALTER COLUMN id SET CACHE 1000;
ALTER TABLE "${prefix}history" ALTER COLUMN history_id SET CACHE 1000;
