-- A payload preview in each history row (issue 34): the first 64 bytes of the payload (HistoryEntry.PREVIEW_BYTES),
-- copied by the ack or dead-letter statement that writes the row, so `sqlqueue history list` can name the input line
-- a row came from. Nullable with no default: PostgreSQL 11+ adds it without rewriting the table (PostgreSQL manual,
-- ALTER TABLE, Notes), and rows written before this migration read as null.
ALTER TABLE "${prefix}history" ADD COLUMN payload_preview BYTEA;
