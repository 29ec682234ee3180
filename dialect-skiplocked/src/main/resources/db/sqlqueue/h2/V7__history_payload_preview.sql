-- A payload preview in each history row (issue 34): the first 64 bytes of the payload (HistoryEntry.PREVIEW_BYTES),
-- copied by the ack or dead-letter statement that writes the row, so `sqlqueue history list` can name the input line
-- a row came from. Nullable: rows written before this migration read as null. VARBINARY(64), kept in the row, never
-- a LOB: a history row's undo-log entry stays small; the message's BLOB is only read (SUBSTRING), not rewritten.
ALTER TABLE "${prefix}history" ADD COLUMN payload_preview VARBINARY(64);
