package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * PostgreSQL: the statements that settle a claim by an id array ({@code deleteLeasedByIds} for lease acks,
 * {@code deleteByIds} for transactional claims) read the acked rows through the primary key, also after
 * the table grew from the few rows it held when the connection first ran them. With the driver's server-side
 * prepared statements PostgreSQL kept a generic plan made while the table was tiny: a sequential scan
 * of the table, or a full scan of the claim index {@code (queue, priority DESC, visible_at, id)} with
 * {@code id = ANY($3)} as a condition on its last column; either way every ack read the whole table or index
 * once it had grown (2 s per ack in the sustained-load benchmark of issue 16, docs/benchmarks.md). The rows
 * read by sequential scans and the entries read through the claim index are taken from PostgreSQL's
 * statistics views around one ack of 100 leased rows in a table of 100,000 (from 30,000 rows on, the primary key is the cheaper plan when the statement is planned with its 100 ids).
 */
class AckPlanOnServerTest {
    private static final int GROWN = 100_000;
    private static final int REFILLED = 100_000;

    // lease mode only: a transactional claim's own reads (its select, without statistics a scan and sort of
    // the queue, docs/benchmarks.md) are reported when its transaction ends, i.e. with its settle
    @ParameterizedTest
    @EnumSource(value = ClaimMode.class, names = "LEASE")
    void settlingAClaimReadsOnlyItsRowsAfterTheTableGrew(ClaimMode mode) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(SkipLockedDialect.POSTGRES);
        String prefix = "ap" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        // two connections (the migration takes both), so the settles run on connections whose plans were made while the table was tiny
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix)
                .poolSize(2).build();
        QueueName q = QueueName.of("ap");
        ConsumeRequest few = ConsumeRequest.of(3).withLease(Duration.ofMinutes(5)).withMode(mode);
        ConsumeRequest hundred = ConsumeRequest.of(100).withLease(Duration.ofMinutes(5)).withMode(mode);
        try (SqlQueue queue = SqlQueue.open(config);
             Connection stats = DriverManager.getConnection(s.url(), s.user(), s.password())) {
            try {
                queue.createQueue(q);
                // a tiny table: the driver prepares on the server at the 5th use, PostgreSQL may switch to a
                // generic plan after 5 more
                for (int i = 0; i < 30; i++) {
                    queue.enqueueAll(q, List.of(Message.ofText("small " + i), Message.ofText("small " + i), Message.ofText("small " + i)));
                    settle(queue, queue.consume(q, few), mode);
                }
                List<Message> batch = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    batch.add(Message.ofText("grown " + i));
                }
                for (int i = 0; i < GROWN / 1000; i++) {
                    queue.enqueueAll(q, batch);
                }
                List<Delivery> got = queue.consume(q, hundred);
                assertEquals(100, got.size());
                long before = readsBesideThePrimaryKey(stats, prefix);
                settle(queue, got, mode);
                long read = readsBesideThePrimaryKey(stats, prefix) - before;
                assertTrue(read < 1000, mode + ": settling 100 of " + GROWN + " rows read " + read
                        + " rows or entries by a sequential scan or through the claim index");
                assertEquals(GROWN - 100, queue.stats(q).depth());
            } finally {
                queue.dropSchema();
            }
        }
    }

    /**
     * The acks of a queue that grew after PostgreSQL's statistics recorded its table as empty (autovacuum's
     * ANALYZE of a drained queue, 0 rows over the table's pages): the planner then estimates a sequential scan
     * by the table's current pages alone and the primary key by one descent per id, so an ack of 500 read the
     * whole table of 100,000 rows (before {@link SkipLockedStatements#idArrayPlan}); and a full scan of the claim
     * index, when it still ended with {@code id}, was seen serving acks in the autovacuum-on sustained run
     * (1-4 s acks, issue 16, docs/benchmarks.md).
     */
    @org.junit.jupiter.api.Test
    void acksReadOnlyTheirRowsWhenTheStatisticsSayTheTableIsEmpty() throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(SkipLockedDialect.POSTGRES);
        String prefix = "ae" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix)
                .poolSize(2).build();
        QueueName q = QueueName.of("ae");
        ConsumeRequest hundred = ConsumeRequest.of(100).withLease(Duration.ofMinutes(5));
        try (SqlQueue queue = SqlQueue.open(config);
             Connection stats = DriverManager.getConnection(s.url(), s.user(), s.password())) {
            try {
                queue.createQueue(q);
                List<Message> batch = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    batch.add(Message.ofText("drained " + i));
                }
                queue.enqueueAll(q, batch);
                while (true) {
                    List<Delivery> got = queue.consume(q, hundred);
                    if (got.isEmpty()) {
                        break;
                    }
                    settle(queue, got, ClaimMode.LEASE);
                }
                try (java.sql.Statement st = stats.createStatement()) {
                    // what autovacuum does to a drained queue on a busy table, where it cannot take the lock
                    // to cut the emptied pages off: 0 rows recorded over the table's pages
                    st.execute("vacuum (analyze, truncate false) \"" + prefix + "message\"");
                }
                for (int i = 0; i < REFILLED / 1000; i++) {
                    queue.enqueueAll(q, batch);
                }
                long before = readsBesideThePrimaryKey(stats, prefix);
                // a claim of 500 (batch sizes go up to 1,000): the primary key's estimate grows with the ids
                List<Delivery> got = queue.consume(q, ConsumeRequest.of(500).withLease(Duration.ofMinutes(5)));
                assertEquals(500, got.size());
                settle(queue, got, ClaimMode.LEASE);
                long read = readsBesideThePrimaryKey(stats, prefix) - before;
                assertTrue(read < 5000, "a claim and an ack of 500 of " + REFILLED + " rows (statistics: empty) read " + read
                        + " rows or entries by a sequential scan or through the claim index");
                assertEquals(REFILLED - 500, queue.stats(q).depth());
            } finally {
                queue.dropSchema();
            }
        }
    }

    private static void settle(SqlQueue queue, List<Delivery> got, ClaimMode mode) {
        List<Receipt> receipts = new ArrayList<>();
        for (Delivery d : got) {
            receipts.add(d.receipt());
        }
        assertTrue(queue.ackAll(receipts).isEmpty(), "leases lost");
    }

    /**
     * Rows of the message table read by sequential scans plus entries read through its claim index, so far.
     * A backend reports its counters when it has been idle for a while (up to 10 s in PostgreSQL 15), so
     * this waits until the readings have not changed for 12 s.
     */
    private static long readsBesideThePrimaryKey(Connection c, String prefix) throws Exception {
        long last = -1;
        long since = System.nanoTime();
        while (true) {
            Thread.sleep(2000);
            try (PreparedStatement ps = c.prepareStatement(
                    "select coalesce(t.seq_tup_read, 0) + coalesce(i.idx_tup_read, 0) from pg_stat_user_tables t"
                            + " join pg_stat_user_indexes i on i.relid = t.relid where t.relname = ? and i.indexrelname = ?")) {
                ps.setString(1, prefix + "message");
                ps.setString(2, prefix + "message_claim");
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next(), "no claim index");
                    long now = rs.getLong(1);
                    if (now != last) {
                        last = now;
                        since = System.nanoTime();
                    } else if (System.nanoTime() - since > 12_000_000_000L) {
                        return now;
                    }
                }
            }
        }
    }
}
