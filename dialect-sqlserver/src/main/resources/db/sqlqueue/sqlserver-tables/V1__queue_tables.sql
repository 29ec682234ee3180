-- sqlqueue, backend "sqlserver": queue tables claimed with READPAST.
-- Every name below is a Flyway placeholder filled by SqlServerStatements.placeholders(): delimited,
-- schema-qualified and starting with the configured table prefix. See docs/backends/sqlserver.md.
-- queue_name columns use a binary collation: queue names are case-sensitive, and an nvarchar column
-- matches the nvarchar parameters mssql-jdbc sends (no implicit conversion defeating the index seek).

CREATE TABLE ${queues} (
    [name]       nvarchar(48) COLLATE Latin1_General_BIN2 NOT NULL,
    [created_at] datetime2(7) NOT NULL,
    CONSTRAINT ${queues_pk} PRIMARY KEY CLUSTERED ([name])
);
GO

CREATE TABLE ${messages} (
    [id]          bigint IDENTITY(1,1) NOT NULL,
    [queue_name]  nvarchar(48) COLLATE Latin1_General_BIN2 NOT NULL,
    [priority]    int NOT NULL DEFAULT (0),
    [visible_at]  datetime2(7) NOT NULL,
    [enqueued_at] datetime2(7) NOT NULL,
    [started_at]  datetime2(7) NULL,
    [attempts]    int NOT NULL DEFAULT (0),
    [claim_count] bigint NOT NULL DEFAULT (0),
    [lease_token] bigint NULL,
    [last_error]  nvarchar(max) NULL,
    [payload]     varbinary(max) NOT NULL,
    [headers]     nvarchar(max) NOT NULL,
    CONSTRAINT ${messages_pk} PRIMARY KEY ${pk_kind} ([id])
);
GO

CREATE NONCLUSTERED INDEX ${claim_index} ON ${messages} ([queue_name], ${claim_key});
GO

CREATE TABLE ${dead_letters} (
    [message_id]  bigint NOT NULL,
    [queue_name]  nvarchar(48) COLLATE Latin1_General_BIN2 NOT NULL,
    [priority]    int NOT NULL,
    [payload]     varbinary(max) NOT NULL,
    [headers]     nvarchar(max) NOT NULL,
    [attempts]    int NOT NULL,
    [reason]      nvarchar(max) NULL,
    [enqueued_at] datetime2(7) NOT NULL,
    [started_at]  datetime2(7) NULL,
    [dead_at]     datetime2(7) NOT NULL,
    CONSTRAINT ${dead_letters_pk} PRIMARY KEY CLUSTERED ([message_id])
);
GO

CREATE NONCLUSTERED INDEX ${dead_letters_queue_index} ON ${dead_letters} ([queue_name], [dead_at], [message_id]);
GO

CREATE TABLE ${history} (
    [id]          bigint IDENTITY(1,1) NOT NULL,
    [message_id]  bigint NOT NULL,
    [queue_name]  nvarchar(48) COLLATE Latin1_General_BIN2 NOT NULL,
    [enqueued_at] datetime2(7) NOT NULL,
    [started_at]  datetime2(7) NULL,
    [finished_at] datetime2(7) NOT NULL,
    [duration_ms] AS DATEDIFF_BIG(millisecond, [started_at], [finished_at]),
    [attempts]    int NOT NULL,
    [outcome]     varchar(16) NOT NULL,
    [detail]      nvarchar(max) NULL,
    CONSTRAINT ${history_pk} PRIMARY KEY CLUSTERED ([id])
);
GO

CREATE NONCLUSTERED INDEX ${history_queue_index} ON ${history} ([queue_name], [finished_at], [id]);
GO

CREATE TABLE ${settings} (
    [name]  varchar(64) NOT NULL,
    [value] nvarchar(256) NOT NULL,
    CONSTRAINT ${settings_pk} PRIMARY KEY CLUSTERED ([name])
);
GO

INSERT INTO ${settings} ([name], [value]) VALUES (N'ordering', N'${ordering}'), (N'layout', N'${layout}');
GO
