package dev.sqlqueue.teradata.model;

/**
 * One request of a statement as terajdbc {@value Terajdbc#VERSION} tracks it ({@code jdbc_4.TDStatement$StatementState}):
 * ACTIVE before it is sent, REQUEST_SENT while the driver reads the answer, ABORT_SENT after
 * {@code Statement.cancel()} sent an Abort, ABORT_TIMEOUT_SENT after an expired query timeout sent one,
 * ABORTED when {@code cancel()} came before the request was sent. Guarded by the model's monitor.
 */
final class ModelRequest {
    static final int ACTIVE = 2;
    static final int REQUEST_SENT = 3;
    static final int ABORT_TIMEOUT_SENT = 9;
    static final int ABORT_SENT = 10;
    static final int ABORTED = 11;

    /** The JDBC statement the request belongs to: {@code cancel()} acts only on its own statement's request. */
    final Object statement;
    /** The thread executing it ({@code TDStatement.executingThread}), which an ACTIVE-state cancel interrupts. */
    final Thread thread;
    /** The statement's query timeout, seconds (0: none). */
    final int timeoutSeconds;
    int state = ACTIVE;
    /**
     * When the socket read times out, {@link System#currentTimeMillis} (0: never). The driver sets the
     * socket's SO_TIMEOUT to what is left of the query timeout when a read starts
     * ({@code jdbc_4.io.TDNetworkIOIF.read}, {@code StatementReceiveState.action}) and restarts the clock
     * when it sends a timeout's Abort ({@code TDStatement.resetStatementStartTime}).
     */
    long readDeadline;

    ModelRequest(Object statement, Thread thread, int timeoutSeconds) {
        this.statement = statement;
        this.thread = thread;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** The request is sent: the read's clock starts. */
    void sent() {
        state = REQUEST_SENT;
        readDeadline = timeoutSeconds > 0 ? System.currentTimeMillis() + timeoutSeconds * 1000L : 0;
    }
}
