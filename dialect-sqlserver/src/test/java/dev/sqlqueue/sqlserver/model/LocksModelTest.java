package dev.sqlqueue.sqlserver.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Row and key-range locks on kept tables: one documented behaviour per test ({@link Locks}, {@link TableAccess}). */
class LocksModelTest {
    private static final String T = "[dbo].[k]";
    private static final String READ = "DECLARE @id bigint; SELECT @id = id FROM [dbo].[k] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE q = ? AND k = ?;"
            + " SELECT @id AS id;";
    private static final String INSERT = "INSERT INTO [dbo].[k] (q, k, id) VALUES (?, ?, ?)";
    private final SqlServerModel model = new SqlServerModel();

    LocksModelTest() {
        model.track(T, "q", "k").row("q", "a", "k", "m", "id", 1L);
    }

    private Connection tx() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        return c;
    }

    private static Object read(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getObject(1) : "no row";
            }
        }
    }

    private static void exec(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.execute();
            while (ps.getMoreResults() || ps.getUpdateCount() != -1) {
                // read every result: errors of later statements surface here
            }
        }
    }

    private static void plain(Connection c, String sql) throws SQLException {
        try (java.sql.Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    @Test
    void theMatrixIsTheDocumentedOne() {
        assertFalse(Locks.compatible(Locks.Mode.RANGE_S_U, Locks.Mode.RANGE_S_U));
        assertFalse(Locks.compatible(Locks.Mode.RANGE_I_N, Locks.Mode.RANGE_S_U));
        assertFalse(Locks.compatible(Locks.Mode.RANGE_S_U, Locks.Mode.U));
        assertFalse(Locks.compatible(Locks.Mode.U, Locks.Mode.U));
        assertFalse(Locks.compatible(Locks.Mode.X, Locks.Mode.S));
        assertTrue(Locks.compatible(Locks.Mode.RANGE_I_N, Locks.Mode.X));
        assertTrue(Locks.compatible(Locks.Mode.S, Locks.Mode.RANGE_S_U));
        assertTrue(Locks.compatible(Locks.Mode.U, Locks.Mode.S));
        assertTrue(Locks.compatible(Locks.Mode.X, Locks.Mode.RANGE_I_N));
    }

    @Test
    void aMissingKeyReadUnderUpdlockHoldlockTakesRangeSUOnTheNextEntryUntilCommit() throws SQLException {
        Connection a = tx();
        assertEquals(null, read(a, READ, "a", "b"));
        assertEquals(List.of(new Lock(1, "dbo.k", "[a, m]", "RangeS-U", true)), model.locksHeld(1), "the entry after the gap");
        assertEquals(null, read(a, READ, "a", "z"));
        assertTrue(model.locksHeld(1).contains(new Lock(1, "dbo.k", Locks.Resource.END, "RangeS-U", true)), "above the last entry");
        a.commit();
        assertEquals(List.of(), model.locksHeld(1));
    }

    @Test
    void anotherKeyOfTheSameGapWaitsForThatRangeLock() throws SQLException {
        Connection a = tx();
        read(a, READ, "a", "b");
        Connection b = tx();
        plain(b, "SET LOCK_TIMEOUT 2000"); // a plain batch: a SET in an RPC would be restored after it
        SQLException e = assertThrows(SQLException.class, () -> read(b, READ, "a", "c"));
        assertEquals(1222, e.getErrorCode(), "RangeS-U against RangeS-U");
        SQLException insert = assertThrows(SQLException.class, () -> exec(b, INSERT, "a", "c", 2L));
        assertEquals(1222, insert.getErrorCode(), "RangeI-N against RangeS-U");
        exec(b, INSERT, "a", "n", 3L);
        b.commit();
        assertEquals(2, model.committedRows(T).size(), "a key above the locked entry inserts");
    }

    @Test
    void withoutATimeoutTheWaitWouldHang() throws SQLException {
        Connection a = tx();
        read(a, READ, "a", "b");
        Connection b = tx();
        assertThrows(SqlServerModel.WouldHangError.class, () -> read(b, READ, "a", "c"));
    }

    @Test
    void anInsertHoldsOnlyTheNewKeyAndAnInsertOfTheSameKeyWaitsThenGets2627() throws SQLException {
        Connection a = tx();
        exec(a, INSERT, "a", "b", 2L);
        assertEquals(List.of(new Lock(1, "dbo.k", "[a, b]", "X", true)), model.locksHeld(1), "RangeI-N is not held");
        Connection b = tx();
        plain(b, "SET LOCK_TIMEOUT 0");
        assertEquals(1222, assertThrows(SQLException.class, () -> exec(b, INSERT, "a", "b", 3L)).getErrorCode());
        exec(b, INSERT, "a", "c", 4L);
        a.commit();
        SQLException dup = assertThrows(SQLException.class, () -> exec(b, INSERT, "a", "b", 3L));
        assertEquals(2627, dup.getErrorCode());
        assertEquals("23000", dup.getSQLState());
        assertEquals(1, model.session(2).tranCount(), "b's transaction goes on: 2627 ends only its statement");
        b.commit();
        assertEquals(List.of("b", "c", "m"), model.committedRows(T).stream().map(r -> r.get("k")).toList());
    }

    @Test
    void aRolledBackInsertFreesItsKey() throws SQLException {
        Connection a = tx();
        exec(a, INSERT, "a", "b", 2L);
        a.rollback();
        Connection b = tx();
        exec(b, INSERT, "a", "b", 3L);
        b.commit();
        assertEquals(3L, model.committedRows(T).get(0).get("id"));
    }

    @Test
    void readpastSkipsARowAnotherTransactionLocksAndUpdlockHoldsUntilTheEnd() throws SQLException {
        model.track("[dbo].[j]", "id").row("id", 1L).row("id", 2L);
        Connection a = tx();
        assertEquals(1L, read(a, "SELECT TOP (1) id FROM [dbo].[j] WITH (UPDLOCK, READPAST, ROWLOCK) ORDER BY id"));
        Connection b = tx();
        assertEquals(2L, read(b, "SELECT TOP (1) id FROM [dbo].[j] WITH (UPDLOCK, READPAST, ROWLOCK) ORDER BY id"));
        assertEquals(List.of(new Lock(1, "dbo.j", "[1]", "U", true)), model.locksHeld(1));
        a.commit();
        assertEquals(1L, read(b, "SELECT TOP (1) id FROM [dbo].[j] WITH (UPDLOCK, READPAST, ROWLOCK) ORDER BY id"));
    }

    @Test
    void aScanLocksEveryRowItReadsAndASeekOnlyTheMatchingOnes() throws SQLException {
        model.track("[dbo].[d]", "h").index("ix_fill", "fill", "spacer").row("h", "1", "fill", 7L, "spacer", 1L, "q", "jobs")
                .row("h", "2", "fill", 8L, "spacer", 1L, "q", "jobs").row("h", "3", "fill", 8L, "spacer", 0L, "q", "jobs");
        Connection a = tx();
        read(a, "SELECT TOP (10) h FROM [dbo].[d] WITH (UPDLOCK, ROWLOCK, READPAST) WHERE fill = ? AND spacer = 1", 7L);
        assertEquals(List.of("[1]"), model.locksHeld(1).stream().map(Lock::key).toList(), "a seek on ix_fill");
        a.commit();
        read(a, "SELECT TOP (10) d.h FROM [dbo].[d] AS d WITH (UPDLOCK, ROWLOCK, READPAST) WHERE d.q = ? AND d.spacer = 1"
                + " AND NOT EXISTS (SELECT 1 FROM [dbo].[d] AS p WHERE p.fill = d.fill AND p.spacer = 0)", "jobs");
        assertEquals(List.of("[1]", "[2]"), model.locksHeld(1).stream().map(Lock::key).toList(),
                "a scan: row 2 is rejected above the scan (its fill has a pooled row) and keeps its U lock; row 3 does not match");
    }

    @Test
    void aRollbackToASavepointReleasesTheLocksTakenAfterIt() throws SQLException {
        Connection a = tx();
        java.sql.Savepoint s = a.setSavepoint("s");
        exec(a, INSERT, "a", "b", 2L);
        a.rollback(s);
        assertEquals(List.of(), model.locksHeld(1));
        assertEquals(1, model.session(1).tranCount());
    }

    @Test
    @Timeout(60)
    void twoSessionsTakingTwoRangesInOppositeOrderDeadlockAndOneIsTheVictim() throws Exception {
        model.waitForLocks();
        model.track("[dbo].[g]", "q", "k").row("q", "a", "k", "b").row("q", "a", "k", "y");
        String read = "DECLARE @id bigint; SELECT @id = id FROM [dbo].[g] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE q = ? AND k = ?;";
        Connection a = tx();
        Connection b = tx();
        exec(a, read, "a", "a");
        exec(b, read, "a", "z");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<SQLException> first = pool.submit(() -> attempt(a, read, "a", "z2"));
            while (!model.waiting(1)) {
                Thread.onSpinWait();
            }
            Future<SQLException> second = pool.submit(() -> attempt(b, read, "a", "a2"));
            List<Integer> codes = new ArrayList<>();
            for (Future<SQLException> f : List.of(first, second)) {
                SQLException e = f.get(30, TimeUnit.SECONDS);
                codes.add(e == null ? 0 : e.getErrorCode());
            }
            assertEquals(List.of(0, 1205), codes, "b closes the cycle and is the victim; a then gets its lock");
            assertEquals(0, model.session(2).tranCount(), "1205 rolled back the victim's transaction");
        } finally {
            pool.shutdownNow();
        }
    }

    private static SQLException attempt(Connection c, String sql, Object... params) {
        try {
            exec(c, sql, params);
            return null;
        } catch (SQLException e) {
            return e;
        }
    }
}
