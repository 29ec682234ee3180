package dev.sqlqueue.skiplocked;

import java.sql.Connection;
import java.sql.DriverManager;

/**
 * The child JVM of {@link H2OpenRetryTest}: opens the H2 file database of the first argument in embedded
 * mode (which locks the file against other processes), prints {@code OPEN}, holds it for the number of
 * milliseconds in the second argument, closes it and exits.
 */
public final class H2HoldOpenChild {
    private H2HoldOpenChild() {
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], "sa", "")) {
            c.createStatement().execute("CREATE TABLE IF NOT EXISTS holder(x INT)");
            System.out.println("OPEN");
            System.out.flush();
            Thread.sleep(Long.parseLong(args[1]));
        }
        System.out.println("CLOSED");
        System.out.flush();
    }
}
