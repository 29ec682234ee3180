package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Why the H2 claim puts its limit in a subquery: H2 (2.3.232 here) locks every row a
 * {@code SELECT ... FOR UPDATE SKIP LOCKED} matches before it applies {@code FETCH}, so a plain
 * "first n rows" claim locks the whole visible queue and a second consumer finds nothing. With the
 * limit inside the subquery only the n returned rows are locked. If an H2 upgrade makes the first
 * test fail, the plain form has become usable and the workaround can go.
 */
class H2ClaimLockingTest {
    static final String URL = "jdbc:h2:mem:h2_claim_locking;DB_CLOSE_DELAY=-1";
    static final QueueName QUEUE = QueueName.of("locking");
    SqlQueue q;
    SkipLockedStatements sql;

    @BeforeEach
    void fiveMessages() {
        q = SqlQueue.open(QueueConfig.builder().url(URL).user("sa").password("").tablePrefix("sqlq_h2lock_").build());
        for (int i = 0; i < 5; i++) {
            q.enqueue(QUEUE, Message.ofText("m" + i));
        }
        sql = new SkipLockedStatements(SkipLockedDialect.H2, "sqlq_h2lock_");
    }

    @AfterEach
    void drop() {
        q.dropSchema();
        q.close();
    }

    static List<Long> claim(Connection c, String text, Object... binds) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(text)) {
            for (int i = 0; i < binds.length; i++) {
                ps.setObject(i + 1, binds[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    @Test
    void plainFetchForUpdateLocksEveryMatchingRow() throws SQLException {
        String plain = "select id from \"sqlq_h2lock_message\" where queue = ? order by priority desc, visible_at, id"
                + " fetch first 1 rows only for update skip locked";
        try (Connection a = DriverManager.getConnection(URL, "sa", ""); Connection b = DriverManager.getConnection(URL, "sa", "")) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            assertEquals(1, claim(a, plain, QUEUE.value()).size());
            // four rows are free, yet the second consumer gets none: the first one locked all five
            assertEquals(List.of(), claim(b, plain, QUEUE.value()));
            a.rollback();
            b.rollback();
        }
    }

    @Test
    void theBackendsClaimLocksOnlyTheRowsItReturns() throws SQLException {
        try (Connection a = DriverManager.getConnection(URL, "sa", ""); Connection b = DriverManager.getConnection(URL, "sa", "")) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            List<Long> candidates = claim(a, sql.claimCandidates, QUEUE.value(), 1);
            List<Long> first = claim(a, sql.claimSelect, (Object) candidates.toArray(new Long[0]));
            assertEquals(1, first.size());
            // b's candidates start at the same head row, which a holds: locking them gives b nothing unless
            // b leaves out what a holds, which is what the backend does in-process (ClaimRows: it reads as
            // many more candidates as ids are held and leaves those out)
            List<Long> same = claim(b, sql.claimCandidates, QUEUE.value(), 1);
            assertEquals(List.of(), claim(b, sql.claimSelect, (Object) same.toArray(new Long[0])));
            List<Long> others = new java.util.ArrayList<>(claim(b, sql.claimCandidates, QUEUE.value(), 1 + first.size()));
            others.removeAll(first);
            List<Long> second = claim(b, sql.claimSelect, (Object) others.toArray(new Long[0]));
            assertEquals(1, second.size());
            assertEquals(first.get(0) + 1, second.get(0));
            a.rollback();
            b.rollback();
        }
    }
}
