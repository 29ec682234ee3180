package dev.sqlqueue.skiplocked;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.BackendDiscovery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Provider {@code h2}: embedded or server-mode H2 2.3+, chosen by {@code jdbc:h2:} URLs.
 *
 * <p><b>Durability.</b> H2 delays writing commits to the file by up to 500 ms by default
 * ({@code WRITE_DELAY}, H2 manual "SET WRITE_DELAY"), so a process killed in that window loses
 * enqueues and acks that had returned. This provider makes every file database durable: an embedded
 * URL ({@code jdbc:h2:file:}, {@code jdbc:h2:~/...}, {@code jdbc:h2:./...}, with or without
 * {@code AUTO_SERVER}) gets {@code ;WRITE_DELAY=0} appended when it does not set it, and a URL that sets
 * another value is refused with {@link InvalidInputException} (rule {@code h2.write-delay}). For a server
 * URL ({@code jdbc:h2:tcp:}, {@code jdbc:h2:ssl:}) or a {@code DataSource}, the database's setting is read
 * at open and a non-zero value is refused the same way: the URL that opens the database must set
 * {@code ;WRITE_DELAY=0} (H2 2.3.232 stores {@code SET WRITE_DELAY 0} but opens the database with its default
 * of 500 ms again; {@code INFORMATION_SCHEMA.SETTINGS} then lists both, and both are read). In-memory databases ({@code jdbc:h2:mem:}) have nothing to lose to a delay.
 *
 * <p><b>Files.</b> A file database opened from its URL (not a {@code DataSource}) is kept owner-only: the folders
 * the provider has to create are {@code rwx------}, its files are set to {@code rw-------} at each open
 * ({@code H2Files}). The provider never sets H2's JVM-wide {@code h2.bindAddress}: an {@code AUTO_SERVER} URL's server
 * listens where the application's JVM says (docs/backends/h2.md, "Who can reach the database").
 */
public final class H2Provider extends SkipLockedProvider {
    static final String WRITE_DELAY_RULE = "h2.write-delay";

    /** Found by {@link java.util.ServiceLoader}. */
    public H2Provider() {
        super("h2", SkipLockedDialect.H2);
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:h2:");
    }

    @Override
    String poolUrl(QueueConfig config) {
        return durableUrl(config.url());
    }

    /**
     * {@code url} with {@code ;WRITE_DELAY=0} appended when it names an embedded file database and sets no
     * write delay; unchanged for in-memory and server URLs. Throws {@link InvalidInputException} when the
     * URL of a file or server database sets a write delay other than 0 (an in-memory one may set any).
     */
    static String durableUrl(String url) {
        String[] parts = url.split(";");
        // an in-memory database has no file a delayed commit could miss
        boolean inMemory = parts[0].toLowerCase(Locale.ROOT).startsWith("jdbc:h2:mem:");
        for (int i = 1; i < parts.length; i++) {
            String[] kv = parts[i].split("=", 2);
            if (kv[0].trim().toUpperCase(Locale.ROOT).equals("WRITE_DELAY")) {
                String value = kv.length > 1 ? kv[1].trim() : "";
                if (!inMemory && !value.matches("0+")) {
                    throw new InvalidInputException(WRITE_DELAY_RULE, "the H2 URL sets WRITE_DELAY=" + value
                            + ": a commit must reach the file before enqueue or ack returns, so sqlqueue needs WRITE_DELAY=0"
                            + " (or leave it out and sqlqueue sets it)");
                }
                return url;
            }
        }
        String base = parts[0].toLowerCase(Locale.ROOT);
        if (base.startsWith("jdbc:h2:mem:") || base.startsWith("jdbc:h2:tcp:") || base.startsWith("jdbc:h2:ssl:")) {
            return url;
        }
        return url + ";WRITE_DELAY=0";
    }

    /**
     * H2 errors that processes opening one file at once meet, and that pass (H2 2.3.232, {@code ErrorCode}):
     * 90020 "Database may be already in use" (another process holds the file, for example a second {@code
     * sqlqueue work} started while the first is still opening it; with {@code AUTO_SERVER=TRUE} the second then
     * connects to the first's server); 8000 "Lock file recently modified" (an {@code AUTO_SERVER} process is
     * starting to serve the file); 90067 "Connection is broken" and 90121 "Database is already closed" (the
     * process that served the file exited while this one was opening or migrating through it).
     */
    static final java.util.Set<Integer> PASSING_AT_OPEN = java.util.Set.of(90020, 8000, 90067, 90121);

    /** HikariCP's message for a call on a connection its pool closed ({@code ProxyConnection.ClosedConnection}). */
    private static final String POOL_CLOSED_IT = "Connection is closed";

    /** Any error of {@link #PASSING_AT_OPEN} in the chain: the open, the check and the migration are retried for up to 60 s. */
    @Override
    boolean retryOpen(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            // or the pool's own "Connection is closed" when the serving process exits under it: HikariCP 6.3.3 throws
            // it without an SQLState (ProxyConnection.ClosedConnection), so it is matched by its whole message
            if (t instanceof SQLException e && (PASSING_AT_OPEN.contains(e.getErrorCode()) || JdbcErrors.isConnectionLoss(e)
                    || e.getSQLState() == null && POOL_CLOSED_IT.equals(e.getMessage()))) {
                return true;
            }
        }
        return false;
    }

    /** The missing folders of a file database this provider opens from its URL: owner-only ({@link H2Files}). */
    @Override
    void beforePoolOpens(QueueConfig config) {
        H2Files.databasePath(config.url()).ifPresent(H2Files::createFolders);
    }

    @Override
    void checkOpened(DataSource ds, QueueConfig config) {
        if (config.dataSource() == null) {
            // the files of a file database this provider opened from its URL: owner-only (H2Files)
            H2Files.databasePath(config.url()).ifPresent(H2Files::restrictFiles);
        }
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")) {
            // every row: H2 2.3.232 lists the stored value (SET WRITE_DELAY) and, after it, the live one, which
            // is the default of 500 ms again when the database was opened by a URL that does not set it
            String delay = null;
            if (c.getMetaData().getURL().toLowerCase(Locale.ROOT).startsWith("jdbc:h2:mem:")) {
                return; // an in-memory database has no file a delayed commit could miss
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String v = rs.getString(1);
                    if (v != null && !v.trim().equals("0")) {
                        delay = v.trim();
                    }
                }
            } finally {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            }
            if (delay != null) {
                throw new InvalidInputException(WRITE_DELAY_RULE, "the H2 database "
                        + (config.url() != null ? BackendDiscovery.redact(config.url()) + " " : "")
                        + "delays writing commits by " + delay + " ms (WRITE_DELAY), so a crash could lose enqueues and acks"
                        + " that had returned; add ;WRITE_DELAY=0 to the URL the database is opened with (H2 opens a"
                        + " database with a delay of 500 ms again even after SET WRITE_DELAY 0)");
            }
        } catch (SQLException e) {
            throw new SqlQueueException("cannot read the H2 database's WRITE_DELAY setting: " + e.getMessage(), e);
        }
    }

    @Override
    public String description() {
        return "H2 2.3+ (embedded default), FOR UPDATE SKIP LOCKED, lease and transactional modes";
    }

    /** H2's own driver, {@code com.h2database:h2}. */
    @Override
    public java.util.Optional<dev.sqlqueue.spi.JdbcDriver> driver(String jdbcUrl) {
        return java.util.Optional.of(dev.sqlqueue.spi.JdbcDriver.of("org.h2.Driver", "com.h2database:h2"));
    }
}
