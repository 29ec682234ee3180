package dev.sqlqueue.spi;

import dev.sqlqueue.InvalidInputException;
import java.util.Objects;

/**
 * The JDBC driver a backend needs for a URL: its class and the Maven coordinates that bring it. Declared by
 * {@link BackendProvider#driver(String)} and checked by {@link dev.sqlqueue.SqlQueue#open} before any pool is
 * built, so that a missing driver is one clear error instead of the pool's "No suitable driver". Immutable.
 *
 * @param className the driver's class, for example {@code org.postgresql.Driver}
 * @param coordinates the Maven {@code groupId:artifactId} to add, for example {@code org.postgresql:postgresql}
 * @param note a sentence appended to the error (where to get a driver that no repository serves), or empty
 */
public record JdbcDriver(String className, String coordinates, String note) {
    /** The rule a missing driver breaks. */
    public static final String RULE = "backend.driver";

    /**
     * A driver declared by class name and coordinates.
     *
     * @param className the driver's class, for example {@code org.postgresql.Driver}
     * @param coordinates the Maven {@code groupId:artifactId} to add
     * @param note a sentence appended to the error, or empty
     * @throws NullPointerException if an argument is null
     */
    public JdbcDriver {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(coordinates, "coordinates");
        Objects.requireNonNull(note, "note");
    }

    /**
     * A driver with no note.
     *
     * @param className the driver's class
     * @param coordinates its Maven {@code groupId:artifactId}
     * @return the declaration
     */
    public static JdbcDriver of(String className, String coordinates) {
        return new JdbcDriver(className, coordinates, "");
    }

    /**
     * Checks that the driver class can be loaded from {@code loader} (the thread's context class loader when null,
     * else this class's loader). Loads the class without initialising it.
     *
     * @param loader where to look, or null for the context class loader
     * @param backend the backend's name, for the message
     * @throws InvalidInputException with rule {@code backend.driver} naming the coordinates to add when the class
     *     is absent
     */
    public void require(ClassLoader loader, String backend) {
        ClassLoader cl = loader != null ? loader : Thread.currentThread().getContextClassLoader();
        if (cl == null) {
            cl = JdbcDriver.class.getClassLoader();
        }
        try {
            Class.forName(className, false, cl);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new InvalidInputException(RULE, "no JDBC driver for backend '" + backend + "': " + className
                    + " is not on the class path; add the Maven dependency " + coordinates
                    + " (README.md, \"JDBC drivers\", lists the versions the build tests)"
                    + (note.isEmpty() ? "" : "; " + note));
        }
    }
}
