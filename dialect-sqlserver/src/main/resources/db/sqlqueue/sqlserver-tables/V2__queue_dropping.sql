-- sqlqueue, backend "sqlserver": a queue being dropped is marked first, so that enqueue and auto-create
-- refuse it while its rows are purged, and its row is deleted last (review of the queue-table backend,
-- finding 4). Placeholders as in V1.

ALTER TABLE ${queues} ADD [dropping] bit NOT NULL CONSTRAINT ${queues_dropping_default} DEFAULT (0);
GO
