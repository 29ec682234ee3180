package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every statement of {@link SkipLockedStatements}, run on the real server of each dialect (embedded H2,
 * PostgreSQL at 127.0.0.1:5432, MariaDB at 127.0.0.1:3306) against a prefix freshly migrated by
 * {@code SqlQueue.open}: a syntax or type error in any dialect fails the build. Each statement runs in
 * its own transaction with the binds and JDBC setters the backend uses, on one leased and one ready
 * message, and is rolled back; the row counts it reports are checked. The drop statements run last,
 * through {@code SqlQueue.dropSchema()}, and the prefix must then have no table left.
 */
class StatementsOnServerTest {
    static final byte[] PAYLOAD = {0, 1, 2, (byte) 0xff};

    record Server(String url, String user, String password) {
    }

    static Server server(SkipLockedDialect d) {
        return switch (d) {
            case H2 -> new Server("jdbc:h2:mem:statements_" + Long.toHexString(ThreadLocalRandom.current().nextLong())
                    + ";DB_CLOSE_DELAY=-1", "sa", "");
            case POSTGRES -> new Server("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
            case MARIADB -> new Server("jdbc:mariadb://127.0.0.1:3306/test", "root", "");
        };
    }

    /** The binds, in order, and the JDBC types, that SkipLockedBackend passes to each statement. */
    static Map<String, Object[]> binds(SkipLockedDialect d, String queue, long id, long token, String channel) {
        boolean h2 = d == SkipLockedDialect.H2;
        Map<String, Object[]> b = new HashMap<>();
        b.put("insert", new Object[] {queue, 0, 0L, "", PAYLOAD, "g"});
        if (d != SkipLockedDialect.POSTGRES) {
            b.put("insertReturning", new Object[] {queue, 0, 0L, "", PAYLOAD, "g"});
        }
        b.put("ensureQueue", h2 ? new Object[] {queue, queue} : new Object[] {queue});
        if (h2) {
            b.put("claimCandidates", new Object[] {queue, 10});
            Long[] around = new Long[21];
            for (int i = 0; i < around.length; i++) {
                around[i] = id - 10 + i;
            }
            b.put("claimSelect", new Object[] {(Object) around});
        } else {
            b.put("claimSelect", new Object[] {queue, 10});
        }
        // the move claim (issue 35): H2 reads candidate ids without locks, then locks them by id
        if (h2) {
            b.put("moveCandidates", new Object[] {queue, 10});
            Long[] near = new Long[21]; // the ready message's id is near the leased one's
            for (int i = 0; i < near.length; i++) {
                near[i] = id - 10 + i;
            }
            b.put("moveSelect", new Object[] {(Object) near});
        } else {
            b.put("moveSelect", new Object[] {queue, 10});
        }
        b.put("moveLease", new Object[] {token, 30_000L, id});
        b.put("leaseUpdate", new Object[] {token, 30_000L, id});
        b.put("deleteLeased", new Object[] {id, token, queue});
        b.put("deleteById", new Object[] {id});
        if (d == SkipLockedDialect.POSTGRES) {
            b.put("idArrayPlan", new Object[0]);
            b.put("ackByClaim", new Object[] {queue, token, new Long[] {id}});
        }
        if (h2) {
            b.put("leaseUpdateByIds", new Object[] {token, 30_000L, new Long[] {id}});
        }
        if (d != SkipLockedDialect.MARIADB) {
            b.put("deleteByIds", new Object[] {(Object) new Long[] {id}});
            b.put("deleteLeasedByIds", new Object[] {queue, token, new Long[] {id}});
        }
        b.put("historyLeased", new Object[] {"acked", "detail", id, token, queue});
        b.put("historyById", new Object[] {1L, "acked", "detail", id});
        b.put("nackLeased", new Object[] {1_000L, "error", id, token, queue});
        b.put("nackById", new Object[] {1_000L, "error", id});
        b.put("extend", new Object[] {30_000L, id, token, queue});
        b.put("releaseLeased", new Object[] {id, token, queue});
        b.put("deadLetterLeased", new Object[] {"reason", id, token, queue});
        b.put("leaseQueue", new Object[] {id, token});
        b.put("deadLetterById", new Object[] {"reason", id});
        b.put("setAttempts", new Object[] {3, id});
        // an id of no message: deadLetterById above copied the leased one already (the dead letters' key is the id)
        b.put("deadLetterMoved", new Object[] {"reason", id + 1_000_000});
        b.put("stats", new Object[] {queue, queue, queue});
        b.put("listHistory", new Object[] {queue, 10});
        b.put("listDead", new Object[] {queue, 10});
        b.put("lockDeadIds", new Object[] {queue});
        b.put("listDeadSummaries", new Object[] {queue, 10});
        b.put("deadSummaryById", new Object[] {queue, id});
        b.put("listReady", new Object[] {queue, 0L, 10});
        b.put("listDelayed", new Object[] {queue, 0L, 10});
        b.put("listInFlight", new Object[] {queue, 0L, 10});
        b.put("messageById", new Object[] {queue, id});
        b.put("lockDeadId", new Object[] {queue, id});
        b.put("requeueDead", new Object[] {queue, id});
        b.put("requeueDeadGrouped", new Object[] {queue, id});
        b.put("deleteDead", new Object[] {queue, id});
        b.put("purgeDead", new Object[] {queue});
        b.put("purgeMessages", new Object[] {queue});
        b.put("purgeHistory", new Object[] {queue});
        b.put("pruneHistoryAge", new Object[] {queue, 1000L});
        b.put("historyCutoff", new Object[] {queue, 5});
        b.put("pruneHistoryRows", new Object[] {queue, 0L});
        b.put("historyForMove", new Object[] {queue, 10});
        b.put("insertMovedHistory", new Object[] {id, queue, 1L, 2L, 3L, 2, "dead-lettered", "why", new byte[] {1, 2}, queue, id, 2L, 3L, "dead-lettered"});
        b.put("deleteHistoryRow", new Object[] {queue, 1L});
        b.put("deleteQueue", new Object[] {queue});
        b.put("listQueues", new Object[] {});
        b.put("rawInsert", new Object[] {queue, 0, "", PAYLOAD});
        b.put("deleteExpiredKey", new Object[] {queue, "k"});
        b.put("insertKey", new Object[] {queue, "k", 300_000L});
        b.put("setKeyMessage", new Object[] {id, queue, "k"});
        b.put("keyMessage", new Object[] {queue, "k"});
        b.put("listKeys", new Object[] {queue, "", 10});
        b.put("deleteExpiredKeys", new Object[] {1000});
        b.put("deleteKeys", new Object[] {queue});
        b.put("historyBuckets", new Object[] {60_000L, queue, 0L});
        b.put("pauseQueue", new Object[] {queue, queue});
        b.put("resumeQueue", new Object[] {queue});
        b.put("queuePaused", new Object[] {queue});
        if (!h2) {
            // limit 0: the statement runs, and no session of the shared server can change the row count
            b.put("oldestTransactions", new Object[] {0});
        }
        if (d == SkipLockedDialect.POSTGRES) {
            b.put("notify", new Object[] {channel, queue});
            b.put("listen", new Object[] {});
            b.put("insertMany", new Object[] {channel, queue, queue, new Integer[] {0}, new Long[] {0L}, new String[] {""},
                new byte[][] {PAYLOAD}, new String[] {"g"}});
            b.put("leaseClaim", new Object[] {queue, 10, token, 30_000L});
            b.put("ackAndLeaseClaim", new Object[] {queue, token, new Long[] {id}, queue, 10, token + 1, 30_000L});
            // nulls as the real call binds them for a row that had never been leased
            b.put("unclaim", new Object[] {null, null, 0L, id, token});
        }
        return b;
    }

    /**
     * Rows each statement changes (an update count) or returns (a query), with one leased message (id,
     * token) and one ready message in the queue, no dead letter and no history.
     */
    static final Map<String, Integer> ROWS = new HashMap<>();

    static {
        for (String s : List.of("insert", "insertReturning", "leaseUpdate", "deleteLeased", "deleteById", "historyLeased", "historyById",
                "nackLeased", "nackById", "extend", "releaseLeased", "deadLetterLeased", "deadLetterById", "deleteQueue",
                "setAttempts",
                "rawInsert", "claimSelect", "claimCandidates", "stats", "listQueues", "notify", "leaseQueue",
                "deleteByIds", "deleteLeasedByIds", "ackByClaim", "insertMany", "leaseClaim", "leaseUpdateByIds", "insertKey", "unclaim", "pauseQueue",
                "listReady", "listInFlight", "messageById",
                // the move claim takes the ready message, never the one under a consumer's lease; its lease is by id
                "moveSelect", "moveCandidates", "moveLease",
                // a moved history row, written as no row of the queue has its message id, start, end and outcome
                "insertMovedHistory")) {
            ROWS.put(s, 1);
        }
        for (String s : List.of("ensureQueue", "listHistory", "listDead", "lockDeadIds", "listDeadSummaries", "deadSummaryById",
                "lockDeadId", "requeueDead", "requeueDeadGrouped", "deleteDead",
                "purgeDead", "purgeHistory", "pruneHistoryAge", "historyCutoff", "pruneHistoryRows", "listen", "idArrayPlan",
                "deleteExpiredKey", "setKeyMessage", "keyMessage", "listKeys", "deadLetterMoved", "deleteExpiredKeys", "deleteKeys", "oldestTransactions",
                "resumeQueue", "queuePaused", "listDelayed", "historyBuckets", "historyForMove", "deleteHistoryRow")) {
            ROWS.put(s, 0);
        }
        ROWS.put("purgeMessages", 2);
        ROWS.put("ackAndLeaseClaim", 2); // the leased message acked (its id), then the ready one claimed
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void everyStatementRunsOnTheServer(SkipLockedDialect dialect) throws SQLException {
        Server server = server(dialect);
        String prefix = "sqlq_st_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL) + "_";
        QueueName queue = QueueName.of("smoke");
        QueueConfig config = QueueConfig.builder().url(server.url()).user(server.user()).password(server.password())
                .tablePrefix(prefix).poolSize(2).build();
        SkipLockedStatements sql = new SkipLockedStatements(dialect, prefix);
        Map<String, String> statements = StatementDump.of(sql);
        List<String> ran = new ArrayList<>();
        try (SqlQueue q = SqlQueue.open(config)) {
            try {
                q.createQueue(queue);
                q.enqueue(queue, Message.of(PAYLOAD));
                List<Delivery> got = q.consume(queue, ConsumeRequest.of(1).withLease(Duration.ofMinutes(5)));
                assertEquals(1, got.size());
                q.enqueue(queue, Message.of(PAYLOAD));
                Receipt leased = got.get(0).receipt();
                Map<String, Object[]> binds = binds(dialect, queue.value(), leased.messageId(), leased.token(), sql.channel);
                try (Connection c = DriverManager.getConnection(server.url(), server.user(), server.password())) {
                    c.setAutoCommit(false);
                    for (Map.Entry<String, String> s : statements.entrySet()) {
                        String name = s.getKey();
                        if (name.startsWith("dropSchema") || name.startsWith("emptyBeforeDrop") || name.equals("dropFunction")) {
                            continue; // DDL commits on MariaDB: run below through dropSchema(), with emptyBeforeDrop
                        }
                        Object[] values = binds.get(name);
                        assertTrue(values != null, "no binds for " + name);
                        int rows = run(c, s.getValue(), values, dialect, name);
                        assertEquals(ROWS.get(name), rows, name + " on " + dialect + ": " + s.getValue());
                        ran.add(name);
                    }
                }
            } finally {
                q.dropSchema();
            }
        }
        assertEquals(statements.keySet().stream().filter(n -> !n.startsWith("dropSchema") && !n.startsWith("emptyBeforeDrop") && !n.equals("dropFunction")).toList(), ran);
        try (Connection c = DriverManager.getConnection(server.url(), server.user(), server.password());
             ResultSet rs = c.getMetaData().getTables(null, null, "%", null)) {
            while (rs.next()) {
                String table = rs.getString("TABLE_NAME");
                assertFalse(table.toLowerCase().startsWith(prefix), "left behind by dropSchema: " + table);
            }
        }
    }

    /** Prepare, bind, execute in a transaction of its own, roll back; the update count or the rows returned. */
    static int run(Connection c, String text, Object[] values, SkipLockedDialect dialect, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(text)) {
            if (dialect != SkipLockedDialect.MARIADB) {
                // MariaDB Connector/J prepares on the client and would only count the '?'s
                assertEquals(values.length, ps.getParameterMetaData().getParameterCount(), "parameters of " + name);
            }
            for (int i = 0; i < values.length; i++) {
                if (values[i] instanceof byte[] bytes) {
                    ps.setBytes(i + 1, bytes);
                } else {
                    ps.setObject(i + 1, values[i]);
                }
            }
            boolean isResultSet = ps.execute();
            if (text.startsWith(SkipLockedStatements.CLAIM_PLAN) || text.startsWith(SkipLockedStatements.ACK_PLAN)) {
                // the one row of the plan settings, then the statement's own result
                assertTrue(isResultSet, "the plan settings before " + name + " return a row");
                try (ResultSet rs = ps.getResultSet()) {
                    assertTrue(rs.next(), "the row of the plan settings before " + name);
                    assertEquals("off", rs.getString(1), "the plan setting before " + name);
                }
                isResultSet = ps.getMoreResults();
            }
            if (isResultSet) {
                // rows of every result after the plan settings (two for ackAndLeaseClaim: acks, then the claim)
                int n = 0;
                do {
                    try (ResultSet rs = ps.getResultSet()) {
                        while (rs.next()) {
                            n++;
                        }
                    }
                } while (ps.getMoreResults());
                return n;
            }
            return ps.getUpdateCount();
        } finally {
            c.rollback();
        }
    }
}
