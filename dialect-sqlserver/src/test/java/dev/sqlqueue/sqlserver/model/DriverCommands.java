package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.util.Locale;

/**
 * What mssql-jdbc 13.2.1 sends for the {@link java.sql.Connection} methods with a meaning for the server
 * ({@code SQLServerConnection}; strings in the jar as the Service Broker review quotes them):
 * {@code setAutoCommit(false)} sends {@code set implicit_transactions on}; {@code setAutoCommit(true)} sends
 * {@code IF @@TRANCOUNT > 0 COMMIT TRAN} and {@code set implicit_transactions off}, and nothing when the
 * mode does not change; {@code commit()} sends {@code IF @@TRANCOUNT > 0 COMMIT TRAN} (nothing in
 * auto-commit mode); {@code rollback()} sends {@code IF @@TRANCOUNT > 0 ROLLBACK TRAN} and throws in
 * auto-commit mode; {@code setSavepoint} throws in auto-commit mode and otherwise sends {@code IF
 * @@TRANCOUNT = 0 BEGIN BEGIN TRAN IF @@TRANCOUNT = 2 COMMIT TRAN END SAVE TRAN name}; {@code
 * rollback(Savepoint)} sends {@code IF @@TRANCOUNT > 0 ROLLBACK TRAN name}; {@code setTransactionIsolation}
 * sets the session's level; {@code close} and {@code abort} end the session, and the server rolls back its
 * open transaction. Each runs under the model's lock.
 */
final class DriverCommands {
    private final SqlServerModel m;
    private Integer rollbackFailure;

    DriverCommands(SqlServerModel m) {
        this.m = m;
    }

    void setAutoCommit(Session s, boolean on) throws SQLException {
        synchronized (m) {
            open(s);
            if (on == s.driverAutoCommit) {
                return;
            }
            int before = s.tranCount;
            m.command(s, on ? "IF @@TRANCOUNT > 0 COMMIT TRAN set implicit_transactions off" : "set implicit_transactions on");
            s.driverAutoCommit = on;
            m.note(s, "autoCommit=" + on + (on && before > 0 && s.tranCount == 0 ? " (committed the open transaction)" : ""));
        }
    }

    void commit(Session s) throws SQLException {
        synchronized (m) {
            open(s);
            if (s.driverAutoCommit) {
                m.note(s, "commit (auto-commit mode: nothing sent)");
                return;
            }
            int before = s.tranCount;
            m.command(s, "IF @@TRANCOUNT > 0 COMMIT TRAN");
            m.note(s, before == 0 ? "commit (no-op: @@TRANCOUNT = 0, nothing was open)" : before == 1 ? "commit"
                    : "commit (one level of " + before + ")");
        }
    }

    /** The next rollback fails with this error and sends nothing. */
    void failNextRollback(int errorCode) {
        synchronized (m) {
            rollbackFailure = errorCode;
        }
    }

    void rollback(Session s) throws SQLException {
        synchronized (m) {
            open(s);
            if (rollbackFailure != null) {
                int code = rollbackFailure;
                rollbackFailure = null;
                m.note(s, "rollback failed (scripted, error " + code + "; nothing was sent)");
                throw new SQLException("scripted rollback failure " + code, "08S01", code);
            }
            if (s.driverAutoCommit) {
                throw new SQLException("The rollback method is not valid when auto-commit mode is set to true.", "S0011", 0);
            }
            int before = s.tranCount;
            m.command(s, "IF @@TRANCOUNT > 0 ROLLBACK TRAN");
            m.note(s, before == 0 ? "rollback (no-op: @@TRANCOUNT = 0)" : "rollback");
        }
    }

    void setSavepoint(Session s, String label) throws SQLException {
        synchronized (m) {
            open(s);
            if (s.driverAutoCommit) {
                throw new SQLException("The savepoint cannot be set when auto-commit mode is on.", "S0011", 0);
            }
            int before = s.tranCount;
            m.command(s, "IF @@TRANCOUNT = 0 BEGIN BEGIN TRAN IF @@TRANCOUNT = 2 COMMIT TRAN END SAVE TRAN " + label);
            m.note(s, "savepoint " + label + (before == 0 ? " (opened the transaction)" : ""));
        }
    }

    void rollbackTo(Session s, String label) throws SQLException {
        synchronized (m) {
            open(s);
            if (s.driverAutoCommit) {
                throw new SQLException("The rollback method is not valid when auto-commit mode is set to true.", "S0011", 0);
            }
            m.command(s, "IF @@TRANCOUNT > 0 ROLLBACK TRAN " + label);
            m.note(s, "rollback to " + label);
        }
    }

    /** mssql-jdbc {@code SQLServerConnection.checkClosed}: "The connection is closed." (SQLState 08S01). */
    private static void open(Session s) throws SQLException {
        if (s.closed) {
            throw new SQLException("The connection is closed.", "08S01", 0);
        }
    }

    void setIsolation(Session s, int level) {
        synchronized (m) {
            s.isolation = level;
            s.driverIsolation = level;
            m.note(s, "isolation=" + level);
        }
    }

    /** mssql-jdbc setPrepareMethod on one connection ({@link Session#prepareMethod}). */
    void setPrepareMethod(Session s, SqlServerModel.PrepareMethod method) {
        synchronized (m) {
            s.prepareMethod = method;
            m.note(s, "prepareMethod=" + method.name().toLowerCase(Locale.ROOT));
        }
    }

    /** Closing a session ends it: the server rolls back an open transaction and frees its locks. */
    void close(Session s) {
        synchronized (m) {
            if (s.closed) {
                return;
            }
            boolean open = s.tranCount > 0;
            if (open) {
                m.endTransaction(s, false);
            }
            m.endSession(s);
            s.closed = true;
            m.note(s, "close" + (open ? " (the server rolled back the open transaction)" : ""));
        }
    }

    /**
     * JDBC {@code Connection.abort}: the driver closes the physical connection; the server ends the session
     * and rolls back its open transaction, like {@link #close}.
     */
    void abort(Session s) {
        synchronized (m) {
            m.note(s, "abort");
            close(s);
        }
    }
}
