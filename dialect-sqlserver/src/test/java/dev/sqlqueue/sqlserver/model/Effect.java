package dev.sqlqueue.sqlserver.model;

/**
 * One change a statement made (a row written, a message sent or received, a lock taken), and what
 * became of it: committed with its transaction, rolled back, or still pending in an open one. A change
 * made at {@code @@TRANCOUNT = 0} is committed when its statement ends (autocommit: "SET
 * IMPLICIT_TRANSACTIONS (Transact-SQL)", Remarks: with the option OFF, or for a statement not on the
 * list, each statement is committed on its own). Not thread-safe; the model guards it.
 */
public final class Effect {
    /** What became of a change. */
    public enum State { PENDING, COMMITTED, ROLLED_BACK }

    private final int connection;
    private final String kind;
    private final String text;
    private final boolean inTransaction;
    private final Runnable undo;
    private final Runnable onCommit;
    private State state = State.PENDING;

    Effect(int connection, String kind, String text, boolean inTransaction, Runnable undo, Runnable onCommit) {
        this.connection = connection;
        this.kind = kind;
        this.text = text;
        this.inTransaction = inTransaction;
        this.undo = undo == null ? () -> { } : undo;
        this.onCommit = onCommit == null ? () -> { } : onCommit;
    }

    /** The session (connection number, from 1) that made it. */
    public int connection() {
        return connection;
    }

    /** The statement kind: INSERT, UPDATE, DELETE, SEND, RECEIVE, END CONVERSATION, BEGIN DIALOG, APPLOCK, ... */
    public String kind() {
        return kind;
    }

    /** The statement's text as the model read it. */
    public String text() {
        return text;
    }

    /** True if it was made inside a transaction ({@code @@TRANCOUNT > 0}); false: it autocommitted. */
    public boolean inTransaction() {
        return inTransaction;
    }

    public State state() {
        return state;
    }

    void commit() {
        if (state == State.PENDING) {
            state = State.COMMITTED;
            onCommit.run();
        }
    }

    void rollBack() {
        if (state == State.PENDING) {
            state = State.ROLLED_BACK;
            undo.run();
        }
    }

    @Override
    public String toString() {
        return "c" + connection + " " + kind + (inTransaction ? "" : " (autocommit)") + " " + state + ": " + text;
    }
}
