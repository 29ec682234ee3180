package dev.sqlqueue.teradata.model;

import java.util.ArrayList;
import java.util.List;

/**
 * One logged-on session of the model, in ANSI mode (every request belongs to the open transaction until
 * COMMIT or ROLLBACK: SQL Request and Transaction Processing, "ANSI Mode Transactions") or in Teradata
 * mode (BTET: a request outside BT/ET is a transaction of its own, and any error aborts the whole
 * transaction: Database Administration, "Transaction Processing in Teradata Session Mode"). Guarded by
 * the model's monitor.
 */
final class ModelSession {
    final int id;
    /** ANSI mode (true) or Teradata mode (false), fixed at logon (the URL's TMODE). */
    final boolean ansi;
    boolean autoCommit = true;
    boolean passThrough;
    boolean closed;
    /** The socket closed without a logoff (a running request sees a socket failure). */
    boolean socketClosed;
    /** Whether a transaction is open: the driver's {@code TDSession.transactionInProgress}, told by each response. */
    boolean inTransaction;
    /** An Abort that reached the server after its request had ended, kept for the next request (only when the model says so). */
    boolean cancelPending;
    /** The request being executed, or null. */
    ModelRequest request;
    boolean delayed;
    int consumes;
    /** What this session waits for right now (a lock another session holds), or null: for deadlock detection. */
    Deadlocks.Wait waiting;
    final List<Runnable> undo = new ArrayList<>();
    List<Runnable> requestUndo = new ArrayList<>();

    ModelSession(int id, boolean ansi) {
        this.id = id;
        this.ansi = ansi;
    }

    @Override
    public String toString() {
        return "session " + id;
    }
}
