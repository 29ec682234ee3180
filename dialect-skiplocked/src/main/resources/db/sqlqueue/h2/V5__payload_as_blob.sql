-- Payloads as BLOB (issue 31 point 2). Stored inline (VARBINARY), a deleted row's whole payload went into
-- H2 2.3.232's transaction undo log and was written out page after page: purging 200 dead letters of 1 MiB
-- took 204 s and grew the file from 0.9 to 10.3 GB, and an ack of 32 messages of 1 MiB at once grew it by
-- 1.7 GB. H2 keeps a BLOB value of more than 256 bytes (MAX_LENGTH_INPLACE_LOB) in its LOB storage and the
-- row holds a reference, so a delete writes the reference; a shorter value stays in the row, as before.
-- Each ALTER rewrites its table under H2's exclusive lock on it until this migration commits.
ALTER TABLE "${prefix}message" ALTER COLUMN payload SET DATA TYPE BLOB(1048576);
ALTER TABLE "${prefix}dead_letter" ALTER COLUMN payload SET DATA TYPE BLOB(1048576);
