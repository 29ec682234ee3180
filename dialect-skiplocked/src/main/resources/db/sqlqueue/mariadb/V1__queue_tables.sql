-- sqlqueue schema for MariaDB 10.6+ (MySQL 8 reads the same DDL except PERSISTENT, which it spells STORED). Times are epoch milliseconds read from the database clock.
CREATE TABLE `${prefix}queue` (
    name        VARCHAR(48) NOT NULL PRIMARY KEY,
    created_at  BIGINT      NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `${prefix}message` (
    id           BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    queue        VARCHAR(48) NOT NULL,
    priority     INTEGER     NOT NULL,
    visible_at   BIGINT      NOT NULL,
    enqueued_at  BIGINT      NOT NULL,
    attempts     INTEGER     NOT NULL,
    lease_token  BIGINT,
    claimed_at   BIGINT,
    headers      MEDIUMTEXT        NOT NULL,
    payload      MEDIUMBLOB       NOT NULL,
    last_error   TEXT
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
-- matches the claim: WHERE queue = ? AND visible_at <= now ORDER BY priority DESC, visible_at, id
CREATE INDEX `${prefix}message_claim` ON `${prefix}message` (queue, priority DESC, visible_at, id);

CREATE TABLE `${prefix}dead_letter` (
    id           BIGINT      NOT NULL PRIMARY KEY,
    queue        VARCHAR(48) NOT NULL,
    priority     INTEGER     NOT NULL,
    enqueued_at  BIGINT      NOT NULL,
    attempts     INTEGER     NOT NULL,
    headers      MEDIUMTEXT        NOT NULL,
    payload      MEDIUMBLOB       NOT NULL,
    reason       TEXT        NOT NULL,
    dead_at      BIGINT      NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX `${prefix}dead_letter_queue` ON `${prefix}dead_letter` (queue, dead_at);

CREATE TABLE `${prefix}history` (
    history_id   BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    id           BIGINT      NOT NULL,
    queue        VARCHAR(48) NOT NULL,
    enqueued_at  BIGINT      NOT NULL,
    started_at   BIGINT      NOT NULL,
    finished_at  BIGINT      NOT NULL,
    duration_ms  BIGINT AS (finished_at - started_at) PERSISTENT,
    attempts     INTEGER     NOT NULL,
    outcome      VARCHAR(16) NOT NULL,
    detail       TEXT
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE INDEX `${prefix}history_queue` ON `${prefix}history` (queue, finished_at);
