package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one execution sends back, in order: result sets, update counts and errors, one or more per
 * statement of the batch, and how mssql-jdbc 13.2.1 hands them to the caller ({@code SQLServerStatement}:
 * {@code doExecuteStatement}, {@code getNextResult}, {@code getMoreResults}; {@code TDSCommand.close} in
 * {@code IOBuffer}):
 * <ul>
 *   <li>{@code execute}, {@code executeUpdate} and {@code getMoreResults} read up to the next result: a result
 *       set, an update count, or an error, which is thrown there; an error of a later statement is thrown only
 *       when the reading reaches it.</li>
 *   <li>A DML statement under {@code SET NOCOUNT ON} sends a DONE token without a count, which the driver
 *       skips; after the last result {@code getUpdateCount()} is -1.</li>
 *   <li>{@code executeUpdate} fails with "A result set was generated for update." when the first result is a
 *       result set; {@code executeQuery} skips update counts and fails with "The statement did not return a
 *       result set." when there is none.</li>
 *   <li>Closing the statement reads and discards the rest, errors included ("close ignoring error processing
 *       response").</li>
 * </ul>
 * An update count the model cannot compute (a table it does not keep) is given as 0. Not thread-safe; one
 * statement object reads it.
 */
final class Results {
    sealed interface Item permits Rows, Count, Failure {
    }

    /** A result set; {@code known} false when the model does not know its rows (a test may script them). */
    record Rows(List<Object[]> rows, List<String> labels, boolean known) implements Item {
    }

    /** An update count (NOCOUNT OFF); null when the model cannot compute it. */
    record Count(Long n) implements Item {
    }

    record Failure(SQLException error) implements Item {
    }

    final List<Item> items = new ArrayList<>();
    /** A statement ran whose results the model cannot see (EXEC of a procedure, an unknown statement). */
    boolean hidden;
    private int at = -1;
    private Item current;

    void add(Item i) {
        items.add(i);
    }

    /** Puts scripted rows in the place of the first result set the model does not know. */
    void script(List<Object[]> rows, List<String> labels) {
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i) instanceof Rows r && !r.known()) {
                items.set(i, new Rows(rows, labels, true));
                return;
            }
        }
        for (Item i : items) {
            if (i instanceof Rows) {
                throw new ImpossibleResultException("the model computes this batch's result sets; a scripted one was given");
            }
            if (i instanceof Failure) {
                // the batch failed before it produced the result the script stands for (650 on the claim, say): a
                // server sends no rows for a statement that failed, so the script is not used and the error stays
                return;
            }
        }
        items.add(0, new Rows(rows, labels, true));
    }

    /** The first result set, for a trace. */
    List<Object[]> firstRows() {
        for (Item i : items) {
            if (i instanceof Rows r) {
                return r.rows();
            }
        }
        return null;
    }

    // ---- the driver reading them ------------------------------------------------------------------

    /** Moves to the next result; true for a result set. Throws an error met on the way. */
    boolean next() throws SQLException {
        current = null;
        if (at + 1 >= items.size()) {
            at = items.size();
            return false;
        }
        Item i = items.get(++at);
        if (i instanceof Failure f) {
            throw f.error();
        }
        current = i;
        return i instanceof Rows;
    }

    /** {@code executeQuery}: the next result set, skipping update counts; null if there is none. */
    Rows nextRows() throws SQLException {
        while (true) {
            if (next()) {
                return (Rows) current;
            }
            if (current == null) {
                if (hidden) {
                    return new Rows(List.of(), null, false);
                }
                throw new SQLException("The statement did not return a result set.", "S0001", 0);
            }
        }
    }

    /** The current update count, or -1 (a result set, or no more results). */
    long updateCount() {
        return current instanceof Count c ? (c.n() == null ? 0 : c.n()) : -1;
    }

    /** The current result set, or null. */
    Rows rows() {
        return current instanceof Rows r ? r : null;
    }
}
