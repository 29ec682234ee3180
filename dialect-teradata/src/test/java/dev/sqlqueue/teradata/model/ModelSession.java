package dev.sqlqueue.teradata.model;

import java.util.ArrayList;
import java.util.List;

/**
 * One logged-on session of the model, in ANSI mode: every request belongs to the open transaction until
 * COMMIT or ROLLBACK (SQL Request and Transaction Processing, "ANSI Mode Transactions"). Guarded by the
 * model's monitor.
 */
final class ModelSession {
    final int id;
    boolean autoCommit = true;
    boolean passThrough;
    boolean closed;
    /** Set by Statement.cancel while a request of this session runs. */
    boolean cancelRequested;
    /** A cancel that arrived while no request ran, kept for the next request (only when the model says so). */
    boolean cancelPending;
    /** The query timeout of the running request, seconds (0 = none). */
    int queryTimeoutSeconds;
    boolean running;
    boolean delayed;
    int consumes;
    final List<Runnable> undo = new ArrayList<>();
    List<Runnable> requestUndo = new ArrayList<>();

    ModelSession(int id) {
        this.id = id;
    }

    @Override
    public String toString() {
        return "session " + id;
    }
}
