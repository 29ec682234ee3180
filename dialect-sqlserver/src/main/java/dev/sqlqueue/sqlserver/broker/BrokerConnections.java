package dev.sqlqueue.sqlserver.broker;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Ending the backend's use of a connection without committing what it must not (re-review m2). mssql-jdbc's
 * {@code setAutoCommit(true)} sends {@code IF @@TRANCOUNT > 0 COMMIT TRAN} ({@code SQLServerConnection.setAutoCommit}),
 * so a transaction whose rollback failed must never see auto-commit turned back on: the connection is
 * aborted instead ({@code Connection.abort}: the driver closes the socket and the server rolls the session's
 * transaction back). Abort rather than close: behind HikariCP, {@code close()} tries the rollback again and,
 * when that fails with an SQLState outside class 08, gives the connection back to the pool without resetting
 * it (HikariCP {@code ProxyConnection.close}/{@code checkException}); an aborted connection fails with 08006
 * there and is evicted. Stateless.
 */
final class BrokerConnections {
    private BrokerConnections() {
    }

    /**
     * Rolls back; if that fails, aborts the connection and adds the failure to {@code cause} (when given).
     *
     * @return true if the rollback went through; false if the connection was aborted
     */
    static boolean rollback(Connection c, Exception cause) {
        try {
            c.rollback();
            return true;
        } catch (SQLException | RuntimeException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            }
            abort(c);
            return false;
        }
    }

    /** Aborts the connection (closing it if the driver refuses). Never throws. */
    static void abort(Connection c) {
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            close(c);
        }
    }

    static void close(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // nothing left to do
        }
    }

    /**
     * Puts auto-commit back as found, and the network timeout a bounded statement raised ({@link Sql#restoreNetwork});
     * nothing on a closed (aborted) connection. Never throws.
     */
    static void restore(Connection c, boolean auto) {
        Sql.restoreNetwork(c);
        try {
            if (!c.isClosed()) {
                c.setAutoCommit(auto);
            }
        } catch (SQLException ignored) {
            // the connection is closed next; a pool validates it
        }
    }
}
