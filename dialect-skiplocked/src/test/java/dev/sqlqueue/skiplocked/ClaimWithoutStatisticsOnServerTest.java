package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL: a claim's plan does not depend on the message table's statistics. On a table that was never
 * analyzed (a new one, or any on a server with autovacuum off) the planner estimated a few rows for a queue
 * and chose a bitmap scan of the queue's whole backlog and a sort of it for every claim; the claim
 * statements, as the backend sends them ({@link SkipLockedStatements#CLAIM_PLAN} first), must read the
 * claim index in order and stop at the limit. Checked with EXPLAIN (the plan the server would run), on a
 * backlog of 20,000 messages in a table whose autovacuum (and so auto-analyze) is off for the test.
 */
class ClaimWithoutStatisticsOnServerTest {
    @Test
    void claimsReadTheClaimIndexInOrderWithoutStatistics() throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(SkipLockedDialect.POSTGRES);
        String prefix = "cp" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).build();
        QueueName q = QueueName.of("plan");
        try (SqlQueue queue = SqlQueue.open(config);
             Connection c = DriverManager.getConnection(s.url(), s.user(), s.password())) {
            try {
                try (Statement st = c.createStatement()) {
                    st.execute("alter table \"" + prefix + "message\" set (autovacuum_enabled = false)");
                }
                for (int i = 0; i < 200; i++) {
                    List<Message> batch = new ArrayList<>();
                    for (int j = 0; j < 100; j++) {
                        batch.add(Message.ofText("m" + i + "-" + j));
                    }
                    queue.enqueueAll(q, batch);
                }
                try (Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("select count(*) from pg_stats where tablename = '" + prefix + "message'")) {
                    rs.next();
                    assertTrue(rs.getInt(1) == 0, "the test needs a table without statistics");
                }
                SkipLockedStatements sql = new SkipLockedStatements(SkipLockedDialect.POSTGRES, prefix);
                c.setAutoCommit(false);
                String select = plan(c, sql.claimSelect, ps -> {
                    ps.setString(1, q.value());
                    ps.setInt(2, 100);
                });
                assertOrderedIndexScan(prefix, select, "claimSelect");
                String lease = plan(c, sql.leaseClaim, ps -> {
                    ps.setString(1, q.value());
                    ps.setInt(2, 100);
                    ps.setLong(3, 7L);
                    ps.setLong(4, 30_000L);
                });
                assertOrderedIndexScan(prefix, lease, "leaseClaim");
            } finally {
                c.rollback();
                c.setAutoCommit(true);
                queue.dropSchema();
            }
        }
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws Exception;
    }

    /** The plan of a claim statement as sent: its leading settings run first in the same transaction. */
    private static String plan(Connection c, String statement, Binder binder) throws Exception {
        String body = statement;
        int split = statement.lastIndexOf("; ");
        if (split >= 0) {
            try (Statement st = c.createStatement()) {
                st.execute(statement.substring(0, split));
            }
            body = statement.substring(split + 2);
        }
        StringBuilder plan = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement("explain " + body)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
        }
        c.rollback();
        return plan.toString();
    }

    private static void assertOrderedIndexScan(String prefix, String plan, String name) {
        assertTrue(plan.contains("Index Scan using " + prefix + "message_claim"), name + " reads the claim index:\n" + plan);
        assertFalse(plan.contains("Sort"), name + " sorts nothing:\n" + plan);
        assertFalse(plan.contains("Bitmap"), name + " has no bitmap scan of the backlog:\n" + plan);
    }
}
