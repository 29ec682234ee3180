-- A payload preview in each history row (issue 34): the first 64 bytes of the payload (HistoryEntry.PREVIEW_BYTES),
-- copied by the ack or dead-letter statement that writes the row, so `sqlqueue history list` can name the input line
-- a row came from. Nullable: rows written before this migration read as null. ALGORITHM=INSTANT adds the
-- column as the last one without rewriting the table, or fails rather than copy it (MariaDB Knowledge Base,
-- InnoDB Online DDL Operations with ALGORITHM=INSTANT, 10.3+).
ALTER TABLE `${prefix}history` ADD COLUMN payload_preview VARBINARY(64) NULL, ALGORITHM=INSTANT;
