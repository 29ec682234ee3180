package dev.sqlqueue.spi;

import dev.sqlqueue.QueueConfig;

/**
 * A backend factory found through {@link java.util.ServiceLoader}: a dialect module lists its
 * implementations in {@code META-INF/services/dev.sqlqueue.spi.BackendProvider}.
 */
public interface BackendProvider {
    /**
     * The name users select it by, for example {@code postgresql}. Lower case, unique.
     *
     * @return the provider name
     */
    String name();

    /**
     * Whether a JDBC URL alone selects this provider. A provider that must be chosen by name (for
     * example {@code sqlserver-broker}) returns false for every URL.
     *
     * @param jdbcUrl a JDBC URL, such as {@code jdbc:postgresql://db/app}
     * @return true when the URL selects this provider
     */
    boolean acceptsUrl(String jdbcUrl);

    /**
     * One line for people: what this backend is.
     *
     * @return the description
     */
    String description();

    /**
     * Open a backend. Runs the schema migration first when {@link QueueConfig#migrate()} is set.
     *
     * @param config the connection, table prefix and options
     * @return the open backend; the caller closes it
     * @throws dev.sqlqueue.TransientBackendException if the database cannot be reached
     * @throws dev.sqlqueue.SqlQueueException if the database refuses the backend's requirements
     */
    QueueBackend open(QueueConfig config);

    /**
     * The DDL this backend would run to create {@code queue}, for a DBA who must run it by hand,
     * without connecting. Backends whose schema comes from Flyway migrations or provisioning at run
     * time return an empty list (the default).
     *
     * @param config the table prefix and options
     * @param queue the queue to create
     * @return the statements, in order; empty when the backend creates its schema itself
     * @throws dev.sqlqueue.InvalidInputException if an option the DDL needs is malformed
     */
    default java.util.List<String> ddl(QueueConfig config, dev.sqlqueue.QueueName queue) {
        return java.util.List.of();
    }

    /**
     * The experiments that settle, on a real server, what this backend's documentation could not
     * (see {@link Probe}); run by {@code sqlqueue probe --backend NAME}. Empty by default: the backends
     * that run for real in the project's own tests need none.
     *
     * @return the probes, in the order they run
     */
    default java.util.List<Probe> probes() {
        return java.util.List.of();
    }

    /**
     * The JDBC driver this backend needs to open {@code jdbcUrl} itself (without a caller's {@code DataSource}):
     * {@link dev.sqlqueue.SqlQueue#open} checks it is on the class path and otherwise refuses with rule
     * {@code backend.driver}, naming the Maven coordinates. Empty (the default) when the backend checks nothing.
     *
     * @param jdbcUrl the URL the backend will open
     * @return the driver the URL needs, or empty
     */
    default java.util.Optional<JdbcDriver> driver(String jdbcUrl) {
        return java.util.Optional.empty();
    }
}
