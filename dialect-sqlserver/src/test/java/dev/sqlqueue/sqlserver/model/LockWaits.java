package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a statement does when the lock it asks for on a kept table is held elsewhere ({@link TableAccess},
 * {@link Locks}): READPAST skips the row; NOWAIT and {@code SET LOCK_TIMEOUT n} end the statement with error
 * 1222 ("SET LOCK_TIMEOUT (Transact-SQL)": it does not end the transaction); a query timeout sends the
 * driver's attention ({@link java.sql.SQLTimeoutException}, the transaction left open, see
 * {@link SqlServerModel}); with neither the wait would never end ({@link SqlServerModel.WouldHangError}); in
 * {@link SqlServerModel#waitForLocks} mode the thread waits until the holder ends, and a wait that closes a
 * cycle makes its session the deadlock victim (error 1205, "Deadlocking"). Used under the model's lock;
 * waiting releases it.
 */
final class LockWaits {
    private final SqlServerModel m;
    private final Locks locks;

    LockWaits(SqlServerModel m, Locks locks) {
        this.m = m;
        this.locks = locks;
    }

    /**
     * Takes a lock on a kept table for the running statement ({@link TableAccess}): held to the end of the
     * transaction ({@code held}, in a transaction) or of the statement. Returns false when READPAST skips a
     * row locked elsewhere.
     */
    boolean lock(Ctx ctx, Locks.Resource r, Locks.Mode mode, boolean held, boolean readpast, boolean nowait) throws SQLException {
        Session s = ctx.session;
        while (true) {
            Set<Integer> holders = locks.conflicts(s.id, r, mode);
            if (holders.isEmpty()) {
                break;
            }
            if (readpast) {
                m.note(s, "  (READPAST: skipped " + r + ", locked by c" + holders.iterator().next() + ")");
                return false;
            }
            blocked(ctx, r, mode, holders, nowait);
        }
        if (mode == Locks.Mode.RANGE_I_N) {
            return true; // "Insert operation": only tests the range
        }
        boolean keep = held && s.tranCount > 0;
        if (locks.grant(s.id, r, mode, keep)) {
            Runnable release = () -> locks.release(s.id, r, mode);
            ctx.statementGrants.add(r + " " + mode);
            if (keep) {
                s.tx.locks.add(release);
            } else {
                ctx.statementLocks.add(release);
            }
        }
        return true;
    }

    /** Releases a lock the running statement took (a row that did not qualify). */
    void unlock(Ctx ctx, Locks.Resource r, Locks.Mode mode) {
        if (ctx.statementGrants.remove(r + " " + mode)) {
            locks.release(ctx.session.id, r, mode);
            m.notifyAll();
        }
    }

    private void blocked(Ctx ctx, Locks.Resource r, Locks.Mode mode, Set<Integer> holders, boolean nowait) throws SQLException {
        Session s = ctx.session;
        String what = mode.label() + " on " + r + ", held by " + holders.stream().map(h -> "c" + h).collect(Collectors.joining(", "));
        if (nowait) {
            // "Table hints (Transact-SQL)", NOWAIT: as SET LOCK_TIMEOUT 0
            m.note(s, "  (NOWAIT: " + what + ")");
            throw lockTimeout();
        }
        if (m.waitForLocks) {
            if (locks.waitWouldDeadlock(s.id, holders)) {
                m.note(s, "  (deadlock: waiting for " + what + " closes a cycle; this session is the victim)");
                throw new SQLException("Transaction (Process ID " + s.id + ") was deadlocked on lock resources with another process and has"
                        + " been chosen as the deadlock victim. Rerun the transaction.", "40001", 1205);
            }
            m.note(s, "  (waits for " + what + ")");
            try {
                m.wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while waiting for a lock", "HY008", 0);
            } finally {
                locks.stopWaiting(s.id);
            }
            return;
        }
        if (ctx.queryTimeout > 0) {
            m.note(s, "  (waits for " + what + "; query timeout " + ctx.queryTimeout + " s ran out: attention sent, the batch stopped,"
                    + " the open transaction is left open at @@TRANCOUNT = " + s.tranCount + ")");
            throw new java.sql.SQLTimeoutException("The query has timed out.", "HY008", 0);
        }
        if (s.lockTimeout >= 0) {
            m.note(s, "  (waits for " + what + "; LOCK_TIMEOUT " + s.lockTimeout + " ms ran out)");
            throw lockTimeout();
        }
        throw new SqlServerModel.WouldHangError(what);
    }

    private static SQLException lockTimeout() {
        return new SQLException("Lock request time out period exceeded.", "S0051", 1222);
    }
}
