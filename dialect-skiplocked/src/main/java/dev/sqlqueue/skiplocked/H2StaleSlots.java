package dev.sqlqueue.skiplocked;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repairs an H2 database whose transaction store has a stale slot (issue 31, point 5). H2 2.3.232's
 * {@code ABORT_SESSION} closes the victim's session on the killer's thread: it rolls the victim's transaction back
 * and frees its slot while the victim's thread may still be in a write ({@code SessionLocal.close} beside
 * {@code Transaction.log}), so an undo-log record appended after the rollback's pass stays in the freed slot. H2
 * gives each new transaction the lowest free slot ({@code TransactionStore.registerTransaction}), and the first
 * write of a transaction in that slot fails with MVStore error 102, "An old transaction with the same id is still
 * open" ({@code TransactionStore.addUndoLogRecord}). Nothing in H2 removes the record while the database is open
 * (the rollback of a later transaction in the slot only undoes its own log ids), so on a busy database nearly
 * every claim failed for minutes (issue 31: 4 minutes, 2,873 of 5,000 messages never processed).
 *
 * <p>Closing the database does not help: H2's close flushes sequences in a transaction that gets the stale slot,
 * fails, and leaves the file locked until the process ends (every later open: "Database may be already in use").
 * The repair does what H2's recovery would do at the next open, in place ({@link H2TransactionSlots}): it rolls the
 * orphaned records back, so the rows the killed session wrote get their committed values back, and the failed work,
 * which wrote nothing, runs again. Only an embedded database (the process that opened it) can be repaired; through
 * a server URL the warning says so. Thread-safe.
 */
final class H2StaleSlots {
    private static final Logger LOG = LoggerFactory.getLogger(H2StaleSlots.class);
    static final String MESSAGE = "An old transaction with the same id is still open";
    private static final Pattern SLOT = Pattern.compile(Pattern.quote(MESSAGE) + ": (\\d+)");

    private final DataSource ds;
    private long repairs;

    H2StaleSlots(DataSource ds) {
        this.ds = ds;
    }

    /** Whether {@code e} or a cause is H2's "An old transaction with the same id is still open". */
    static boolean matches(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(MESSAGE)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Rolls back the orphaned undo records of the slot {@code cause} names ({@link H2TransactionSlots}); true when the
     * failed work may run again (repaired now, or found clean: another caller repaired it), false when this database
     * cannot be repaired in this process (a server URL: the process that opened the database must run sqlqueue) or
     * the slot stayed busy.
     */
    synchronized boolean repair(SQLException cause) {
        Matcher m = SLOT.matcher(messages(cause));
        if (!m.find()) {
            return false;
        }
        int slot = Integer.parseInt(m.group(1));
        try (Connection c = ds.getConnection()) {
            try {
                return repair(c, slot, true);
            } finally {
                Transactions.rollbackQuietly(c);
            }
        } catch (Exception | LinkageError e) {
            LOG.warn("repairing H2 transaction slot {} (\"{}\") failed: {}", slot, MESSAGE, e.toString());
            return false;
        }
    }

    /**
     * After a session of the database was found killed: repairs every slot its killing left stale, before a write
     * meets one. (A killed session's thread is the one that reports the loss, so its late write is in place by then.)
     */
    synchronized void sweep() {
        try (Connection c = ds.getConnection()) {
            try {
                for (int slot : H2TransactionSlots.candidates(c)) {
                    repair(c, slot, false);
                }
            } finally {
                Transactions.rollbackQuietly(c);
            }
        } catch (Exception | LinkageError e) {
            LOG.debug("looking for stale H2 transaction slots failed: {}", e.toString());
        }
    }

    private boolean repair(Connection c, int slot, boolean failed) throws Exception {
        for (int attempt = 1; attempt <= 200; attempt++) {
            int undone = H2TransactionSlots.repair(c, slot);
            if (undone == H2TransactionSlots.UNAVAILABLE) {
                if (failed) {
                    LOG.warn("H2 failed a write with \"{}\" (transaction slot {}): a session killed while it wrote (ABORT_SESSION)"
                            + " left undo records in a slot that H2 freed, and every write that gets that slot fails while the"
                            + " database is open; it can only be repaired in the process that opened the database (not through"
                            + " a server URL); closing the database does not repair it either (H2 2.3.232's close fails in that"
                            + " slot and keeps the file locked until the process ends): restart the process that opened it",
                            MESSAGE, slot);
                }
                return false;
            }
            if (undone == 0) {
                return true; // repaired meanwhile, or a transaction that had just begun in it
            }
            if (undone > 0) {
                repairs++;
                LOG.warn("H2 transaction slot {} was stale: a session killed while it wrote (ABORT_SESSION) left {} undo records"
                        + " in it after H2 had freed it, {}; rolled them back as H2's recovery would at the next open (repair {}){}",
                        slot, undone, failed ? "so every write that got the slot failed (\"" + MESSAGE + "\")"
                                : "which would have failed every write that got the slot", repairs, failed ? "; retrying" : "");
                return true;
            }
            Thread.sleep(Math.min(attempt, 10));
        }
        if (failed) {
            LOG.warn("H2 transaction slot {} is stale (\"{}\") but stayed busy while sqlqueue tried to repair it; trying"
                    + " again at the next failure", slot, MESSAGE);
        }
        return false;
    }

    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append('\n');
        }
        return b.toString();
    }

    /** How many times this backend repaired a slot. */
    synchronized long repairs() {
        return repairs;
    }
}
