package dev.sqlqueue.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.skiplocked.SkipLockedDialect;
import dev.sqlqueue.skiplocked.SkipLockedStatements;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One database under test: the library ({@link SqlQueue} with its own HikariCP pool) and, beside it, a
 * baseline HikariCP pool with exactly the settings the library's provider uses (auto-commit off, READ
 * COMMITTED, same size, same connection time-out, and on MariaDB {@code useBulkStmts=false}), a pool of the
 * same size for the minimal raw loops ({@link #raw}, driver defaults), plus the library's own statements for a
 * unique table prefix. {@link #close()} drops the prefix's schema.
 */
final class Target implements AutoCloseable {
    final Database db;
    final String prefix;
    final int poolSize;
    final SqlQueue lib;
    final HikariDataSource baseline;
    /**
     * The pool of the minimal raw loops ({@link RawLoops}): the same settings as {@link #baseline} but the driver's
     * own defaults otherwise; on MariaDB that keeps Connector/J's bulk protocol for batches of inserts
     * ({@code useBulkStmtsForInserts}, on by default in 3.x unless {@code useBulkStmts} is set), which the raw
     * enqueue of plain inserts is entitled to (it needs no per-row counts).
     */
    final HikariDataSource raw;
    final SkipLockedStatements sql;
    private final AtomicInteger queues = new AtomicInteger();

    Target(Database db, int poolSize) {
        this.db = db;
        this.poolSize = poolSize;
        // unique per run: 'bq' + base-36 clock + random, at most 24 characters
        this.prefix = "bq" + Long.toString(System.currentTimeMillis(), 36)
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36), 36) + "_";
        this.lib = SqlQueue.open(QueueConfig.builder().url(db.url()).user(db.user()).password(db.password())
                .tablePrefix(prefix).poolSize(poolSize).build());
        this.baseline = pool(db, poolSize, "bench-baseline-", db.dialect() == SkipLockedDialect.MARIADB);
        this.raw = pool(db, poolSize, "bench-raw-", false);
        this.sql = new SkipLockedStatements(db.dialect(), prefix);
    }

    private static HikariDataSource pool(Database db, int size, String name, boolean noBulk) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(db.url());
        hc.setUsername(db.user());
        hc.setPassword(db.password());
        hc.setMaximumPoolSize(size);
        hc.setAutoCommit(false);
        hc.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        hc.setPoolName(name + db.name());
        hc.setConnectionTimeout(10_000);
        if (noBulk) {
            hc.addDataSourceProperty("useBulkStmts", "false");
        }
        return new HikariDataSource(hc);
    }

    /** A fresh queue, registered through the library (both sides use the same tables). */
    QueueName newQueue() {
        QueueName q = QueueName.of("b" + queues.incrementAndGet());
        lib.createQueue(q);
        return q;
    }

    /** Fill a queue through the library, untimed: enqueueAll in batches of 100, as a user's producer would. */
    void fill(QueueName q, int messages, byte[] payload) {
        List<Message> batch = new ArrayList<>(100);
        for (int i = 0; i < messages; i++) {
            batch.add(Message.of(payload));
            if (batch.size() == 100 || i == messages - 1) {
                lib.enqueueAll(q, batch);
                batch = new ArrayList<>(100);
            }
        }
        analyze();
    }

    /**
     * PostgreSQL: ANALYZE the message table after a fill, as autovacuum's auto-analyze does on a server where it
     * runs (a fill of 20,000 rows is far above its threshold of 50 rows plus 10 % of the table). Without
     * statistics the planner estimates a few rows for a queue and serves every claim, the raw loop's and the
     * library's alike, by sorting the whole backlog (docs/benchmarks.md). {@code -Dbench.analyze=false} leaves
     * the table without them.
     */
    void analyze() {
        if (db.dialect() == SkipLockedDialect.POSTGRES && Boolean.parseBoolean(System.getProperty("bench.analyze", "true"))) {
            try (Connection c = DriverManager.getConnection(db.url(), db.user(), db.password());
                 Statement st = c.createStatement()) {
                st.execute("ANALYZE \"" + prefix + "message\"");
            } catch (SQLException e) {
                System.out.println("   note: ANALYZE skipped: " + e.getMessage());
            }
        }
    }

    /** Between trials: VACUUM the message table on PostgreSQL so dead rows of earlier trials do not pile up. */
    void settle() {
        if (db.dialect() == SkipLockedDialect.POSTGRES) {
            try (Connection c = DriverManager.getConnection(db.url(), db.user(), db.password());
                 Statement st = c.createStatement()) {
                st.execute("VACUUM \"" + prefix + "message\"");
            } catch (SQLException e) {
                // hygiene only (for instance "too many clients" on a shared server): go on without it
                System.out.println("   note: VACUUM skipped: " + e.getMessage());
            }
        }
        System.gc();
    }

    @Override
    public void close() {
        try {
            lib.dropSchema();
        } finally {
            lib.close();
            baseline.close();
            raw.close();
        }
    }
}
