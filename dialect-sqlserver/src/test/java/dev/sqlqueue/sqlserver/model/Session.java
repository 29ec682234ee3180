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
    int tranCount;
    Transaction tx;
    boolean closed;

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

    public boolean closed() {
        return closed;
    }

    @Override
    public String toString() {
        return "c" + id + "{@@TRANCOUNT=" + tranCount + ", implicit_transactions=" + implicitTransactions + ", nocount="
                + nocount + ", xact_abort=" + xactAbort + "}";
    }
}
