package dev.sqlqueue.sqlserver.model;

import java.sql.Connection;

/**
 * The server-side state of one connection (a SQL Server session) and the driver-side state mssql-jdbc
 * keeps for it. Read by tests through {@link SqlServerModel#session(int)}; changed only by the model.
 * Not thread-safe; the model guards it.
 */
public final class Session {
    final int id;
    /** mssql-jdbc's databaseAutoCommitMode: a new connection is in auto-commit mode (JDBC default). */
    boolean driverAutoCommit = true;
    /** SET IMPLICIT_TRANSACTIONS: OFF on a new session ("SET IMPLICIT_TRANSACTIONS (Transact-SQL)", Remarks: OFF by default). */
    boolean implicitTransactions;
    /** SET NOCOUNT: OFF by default ("SET NOCOUNT (Transact-SQL)"). */
    boolean nocount;
    /** SET XACT_ABORT: OFF by default in a T-SQL session ("SET XACT_ABORT (Transact-SQL)", Remarks). */
    boolean xactAbort;
    int isolation = Connection.TRANSACTION_READ_COMMITTED;
    /**
     * The isolation level the driver believes the session has: mssql-jdbc's {@code getTransactionIsolation}
     * returns its field {@code transactionIsolationLevel}, which only {@code setTransactionIsolation} changes
     * (13.2.1, read with javap); a {@code SET TRANSACTION ISOLATION LEVEL} sent as SQL changes {@link #isolation}
     * and not this.
     */
    int driverIsolation = Connection.TRANSACTION_READ_COMMITTED;
    /**
     * mssql-jdbc's connection property {@code prepareMethod} for this connection, from the model's at open;
     * changed by {@code ISQLServerConnection.setPrepareMethod} (a public method of the 13.2.1 jar's
     * interface). A PreparedStatement reads it when it is created ({@code isDirectSqlExecution} is a final
     * field set in its constructor, per the mssql-jdbc source), so a change affects statements prepared later.
     */
    SqlServerModel.PrepareMethod prepareMethod = SqlServerModel.PrepareMethod.PREPEXEC;
    int tranCount;
    /**
     * The driver's network timeout in ms (0: none): {@code SQLServerConnection.setNetworkTimeout} sets the socket's
     * read timeout ({@code TDSChannel.setNetworkTimeout}) and sends nothing to the server.
     */
    int networkTimeoutMs;
    Transaction tx;
    boolean closed;
    /** "SET LOCK_TIMEOUT (Transact-SQL)": milliseconds a statement waits for a lock; -1 (the default) for ever. */
    int lockTimeout = -1;
    /** The open transaction is uncommittable ("XACT_STATE (Transact-SQL)": -1): only a full rollback ends it. */
    boolean doomed;

    Session(int id) {
        this.id = id;
    }

    /** Connection number, from 1. */
    public int id() {
        return id;
    }

    /** {@code @@TRANCOUNT}. */
    public int tranCount() {
        return tranCount;
    }

    public boolean implicitTransactions() {
        return implicitTransactions;
    }

    public boolean nocount() {
        return nocount;
    }

    public boolean xactAbort() {
        return xactAbort;
    }

    public boolean autoCommit() {
        return driverAutoCommit;
    }

    /** The network timeout the driver was given last, in ms (0: none). */
    public int networkTimeoutMs() {
        return networkTimeoutMs;
    }

    public boolean closed() {
        return closed;
    }

    /** The session's isolation level (a JDBC constant; {@link SqlServerModel#TRANSACTION_SNAPSHOT} for SNAPSHOT). */
    public int isolation() {
        return isolation;
    }

    /** {@code XACT_STATE() = -1}: the open transaction can only be rolled back. */
    public boolean doomed() {
        return doomed;
    }

    /** The connection's current {@code prepareMethod}. */
    public SqlServerModel.PrepareMethod prepareMethod() {
        return prepareMethod;
    }

    @Override
    public String toString() {
        return "c" + id + "{@@TRANCOUNT=" + tranCount + ", implicit_transactions=" + implicitTransactions + ", nocount="
                + nocount + ", xact_abort=" + xactAbort + "}";
    }
}
