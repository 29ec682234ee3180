package dev.sqlqueue.teradata;

import java.lang.reflect.Method;
import java.sql.Connection;

/**
 * Two public methods of the pinned driver's connection class that JDBC does not offer, reached by
 * reflection under any wrappers ({@link Sessions#innermost}), for the probes only (terajdbc 20.00.00.51,
 * {@code com.teradata.jdbc.jdbc.GenericTeradataConnection}, read with {@code javap}):
 * {@code teradataProvide(String, Map)} answers {@code RNP_ACTIVE}, {@code REDRIVE_ACTIVE} and
 * {@code TRANSACTION_MODE}; {@code getIO()} returns the connection's {@code TDNetworkIOIF}, whose
 * {@code close()} closes the socket, as the driver itself does when an Abort goes unanswered (TJ782,
 * TJ783). Another driver has neither method: the probes then report that they could not look. Stateless.
 */
final class DriverInternals {
    private DriverInternals() {
    }

    /** {@code teradataProvide(key, null)}, or null when the connection does not offer it. */
    static String provide(Connection c, String key) {
        try {
            Object driver = Sessions.innermost(c);
            Method m = driver.getClass().getMethod("teradataProvide", String.class, java.util.Map.class);
            Object v = m.invoke(driver, key, null);
            return v == null ? null : v.toString();
        } catch (ReflectiveOperationException | java.sql.SQLException | RuntimeException e) {
            return null;
        }
    }

    /** Closes the connection's socket without a logoff; false when the connection does not offer it. */
    static boolean closeSocket(Connection c) {
        try {
            Object driver = Sessions.innermost(c);
            Object io = driver.getClass().getMethod("getIO").invoke(driver);
            io.getClass().getMethod("close").invoke(io);
            return true;
        } catch (ReflectiveOperationException | java.sql.SQLException | RuntimeException e) {
            return false;
        }
    }
}
