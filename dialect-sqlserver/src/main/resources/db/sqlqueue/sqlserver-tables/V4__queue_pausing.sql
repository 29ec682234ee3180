-- sqlqueue, backend "sqlserver": a paused queue (QueueAdmin.pause) is marked on its row; the claim skips the
-- queue while the mark is set (SqlServerStatements "claim": NOT EXISTS on the queue row, a seek on its primary
-- key), and resume clears it. Placeholders as in V1.

ALTER TABLE ${queues} ADD [paused] bit NOT NULL CONSTRAINT ${queues_paused_default} DEFAULT (0);
GO
