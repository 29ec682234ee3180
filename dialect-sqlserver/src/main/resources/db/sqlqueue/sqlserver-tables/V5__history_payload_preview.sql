-- sqlqueue, backend "sqlserver": a payload preview in each history row (issue 34), the first 64 bytes of the payload
-- (HistoryEntry.PREVIEW_BYTES), written by "ackToHistory" (SUBSTRING of deleted.[payload] in its OUTPUT clause) and
-- "historyFromDeadLetter", read by "listHistory", so `sqlqueue history list` names the input line a row came from.
-- Nullable with no default: a metadata-only change (ALTER TABLE, "Adding NULL columns"), and rows written before
-- this migration read as null. Placeholders as in V1.

ALTER TABLE ${history} ADD [payload_preview] varbinary(64) NULL;
GO
