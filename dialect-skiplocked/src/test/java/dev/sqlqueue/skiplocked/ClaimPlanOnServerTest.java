package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL: a lease claim reads only the rows it claims (through the claim index) and finds them again for
 * its update without scanning the table, also when the table's statistics say it is empty while it holds a
 * backlog: the state a queue table is in after autovacuum ran while the queue was drained (reltuples near 0
 * over many pages) and the backlog then built up. Joined on id, the claim's update side was planned as a
 * full scan of the primary key (the plan's row estimate for the table was 1), so every claim read every row
 * (claims of 5-25 s in the sustained-load benchmark of issue 16, docs/benchmarks.md). The reads are taken
 * from PostgreSQL's statistics views around one claim of 100 from a backlog of 50,000.
 */
class ClaimPlanOnServerTest {
    private static final int BACKLOG = 50_000;

    @Test
    void aClaimReadsOnlyItsRowsWhenTheStatisticsSayTheTableIsEmpty() throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(SkipLockedDialect.POSTGRES);
        String prefix = "cp" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix)
                .poolSize(2).build();
        QueueName q = QueueName.of("cp");
        ConsumeRequest hundred = ConsumeRequest.of(100).withLease(Duration.ofMinutes(5));
        List<Message> batch = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            batch.add(Message.ofText("m " + i));
        }
        try (SqlQueue queue = SqlQueue.open(config);
             Connection own = DriverManager.getConnection(s.url(), s.user(), s.password())) {
            try {
                queue.createQueue(q);
                // a queue drained, then vacuumed while empty; a delayed message at the table's end keeps VACUUM
                // from truncating it, so the table keeps its pages and its statistics say "no rows"
                for (int i = 0; i < 20; i++) {
                    queue.enqueueAll(q, batch);
                }
                for (List<Delivery> got = queue.consume(q, hundred); !got.isEmpty(); got = queue.consume(q, hundred)) {
                    ack(queue, got);
                }
                queue.enqueue(q, Message.builder("later".getBytes()).delay(Duration.ofHours(1)).build());
                try (Statement st = own.createStatement()) {
                    st.execute("VACUUM \"" + prefix + "message\"");
                }
                // the backlog builds up again
                for (int i = 0; i < BACKLOG / 1000; i++) {
                    queue.enqueueAll(q, batch);
                }
                long before = reads(own, prefix, "pkey");
                List<Delivery> got = queue.consume(q, hundred);
                long read = reads(own, prefix, "pkey") - before;
                assertEquals(100, got.size());
                assertTrue(read < 1000, "a claim of 100 from a backlog of " + BACKLOG + " read " + read
                        + " rows or entries by a sequential scan or through the primary key");
                ack(queue, got);
                assertEquals(BACKLOG - 100 + 1, queue.stats(q).depth());
            } finally {
                queue.dropSchema();
            }
        }
    }

    private static void ack(SqlQueue queue, List<Delivery> got) {
        List<Receipt> receipts = new ArrayList<>();
        for (Delivery d : got) {
            receipts.add(d.receipt());
        }
        assertTrue(queue.ackAll(receipts).isEmpty(), "leases lost");
    }

    /**
     * Rows of the message table read by sequential scans plus entries read through its index {@code message_<index>}, so far.
     * A backend reports its counters when it has been idle for a while (up to 10 s in PostgreSQL 15), so
     * this waits until the readings have not changed for 12 s.
     */
    private static long reads(Connection c, String prefix, String index) throws Exception {
        long last = -1;
        long since = System.nanoTime();
        while (true) {
            Thread.sleep(2000);
            try (PreparedStatement ps = c.prepareStatement(
                    "select coalesce(t.seq_tup_read, 0) + coalesce(i.idx_tup_read, 0) from pg_stat_user_tables t"
                            + " join pg_stat_user_indexes i on i.relid = t.relid where t.relname = ? and i.indexrelname = ?")) {
                ps.setString(1, prefix + "message");
                ps.setString(2, prefix + "message_" + index);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next(), "no index " + index);
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
