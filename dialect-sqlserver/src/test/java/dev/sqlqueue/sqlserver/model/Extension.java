package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.util.List;

/**
 * Rules for statements the generic model leaves alone (Service Broker's SEND, RECEIVE, BEGIN DIALOG,
 * END CONVERSATION), installed with {@link SqlServerModel#install}. Called with the model's lock held.
 */
interface Extension {
    /** Returned by {@link #execute} for a statement it handled that returns no result set (SEND, END CONVERSATION). */
    List<Object[]> NO_RESULT = java.util.Collections.unmodifiableList(new java.util.ArrayList<>());

    /**
     * Runs one statement. Returns the rows it produces (an empty list for none), or null if this
     * extension does not handle the statement.
     */
    List<Object[]> execute(Ctx ctx, Tsql.Stmt stmt) throws SQLException;

    /** A transaction is about to end: commit, or roll back as a whole (its changes are still pending). */
    default void ending(Session s, Transaction tx, boolean committed) {
    }

    /** Throws {@link ImpossibleResultException} if rows scripted for {@code sql} are the extension's to produce. */
    default void checkScript(String sql) {
    }

    /**
     * Throws {@link ImpossibleResultException} if scripted rows, about to be returned for {@code sql}, contradict
     * a column the extension can compute from its state (the rest of the row stays the test's).
     */
    default void checkScripted(String sql, List<Object[]> rows) {
    }
}
