package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.conformance.FaultHooks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link ConformanceTarget} built from a JDBC URL alone: every case gets the user's URL, user and
 * password with its own table prefix (and a session tag on the URL, see {@link KitUrls}); clean-up opens
 * the backend on that prefix without migrating and calls {@link SqlQueue#dropSchema()}, then checks with
 * {@link DatabaseMetaData} that no table or view of the prefix is left and drops any that is.
 *
 * <p>Every prefix handed out is recorded in memory and appended to a ledger file
 * ({@code prefixes.log} in the report directory) before the backend is opened with it, so that the
 * shutdown hook, the final sweep, or a person after a {@code kill -9}, can remove what was created.
 * Thread-safe.
 */
public final class UrlTarget implements ConformanceTarget {
    private final String name;
    private final String url;
    private final String user;
    private final String password;
    private final String backend;
    private final Path ledger;
    private final Set<String> used = new LinkedHashSet<>();
    private final Set<String> cleaned = new LinkedHashSet<>();
    private volatile FaultHooks faults = new FaultHooks() { };
    private volatile String stopReason;
    private volatile java.util.Map<String, String> options = java.util.Map.of();
    private final StatementTracker tracker = new StatementTracker();
    private final SessionWaits waits;
    private volatile java.time.Duration caseTimeout;
    private volatile java.io.PrintStream console = System.out;

    /**
     * @param name display name (the backend's provider name)
     * @param url the JDBC URL of the database under test
     * @param user the database user, may be null
     * @param password the user's password, may be null
     * @param backend provider name to force, or null to choose by URL
     * @param ledger file each prefix is appended to, or null
     */
    public UrlTarget(String name, String url, String user, String password, String backend, Path ledger) {
        this.name = name;
        this.url = url;
        this.user = user;
        this.password = password;
        this.backend = backend;
        this.ledger = ledger;
        this.waits = new SessionWaits(url, user, password);
    }

    private volatile Boolean babelfish;

    /**
     * On a {@code jdbc:sqlserver:} URL that reaches Babelfish for PostgreSQL ({@code SERVERPROPERTY('Babelfish')}
     * is 1), the transactional cases of {@link dev.sqlqueue.conformance.KnownGaps#BABELFISH_TRANSACTIONAL}; else none.
     */
    @Override
    public Optional<String> knownGap(String caseId, dev.sqlqueue.ClaimMode mode, dev.sqlqueue.Capabilities capabilities) {
        Optional<String> gap = dev.sqlqueue.conformance.KnownGaps.babelfish(caseId, mode, capabilities);
        if (!KitUrls.isSqlServer(url) || !capabilities.backend().equals("sqlserver") || gap.isEmpty()) {
            return Optional.empty();
        }
        if (babelfish == null) {
            babelfish = isBabelfish();
        }
        return babelfish ? gap : Optional.empty();
    }

    private boolean isBabelfish() {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CAST(SERVERPROPERTY('Babelfish') AS int)")) {
            return rs.next() && rs.getInt(1) == 1;
        } catch (SQLException e) {
            return false; // the case itself reports the unreachable server
        }
    }

    /** The time limit of one case, or null for none; progress lines about time-outs go to {@code out}. */
    void caseTimeout(java.time.Duration limit, java.io.PrintStream out) {
        this.caseTimeout = limit;
        this.console = out;
    }

    java.time.Duration caseTimeout() {
        return caseTimeout;
    }

    java.io.PrintStream console() {
        return console;
    }

    StatementTracker tracker() {
        return tracker;
    }

    SessionWaits waits() {
        return waits;
    }

    /** Prefixes handed out from position {@code from} on (those of the running case). */
    synchronized List<String> prefixesFrom(int from) {
        List<String> all = new ArrayList<>(used);
        return new ArrayList<>(all.subList(Math.min(from, all.size()), all.size()));
    }

    synchronized int prefixCount() {
        return used.size();
    }

    /** Backend options ({@code QueueConfig.option}) for every config this target builds. */
    void options(java.util.Map<String, String> backendOptions) {
        this.options = java.util.Map.copyOf(backendOptions);
    }

    void faults(FaultHooks hooks) {
        this.faults = hooks;
    }

    /** From now on every case is skipped with {@code reason} before it creates anything. */
    void stop(String reason) {
        this.stopReason = reason;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(stopReason);
    }

    @Override
    public QueueConfig config(String uniquePrefix) {
        if (stopReason != null) {
            throw new IllegalStateException("kit run stopped: " + stopReason);
        }
        record(uniquePrefix);
        QueueConfig.Builder b = QueueConfig.builder().url(KitUrls.tagged(url, uniquePrefix)).user(user).password(password)
                .tablePrefix(uniquePrefix).poolSize(12)
                // the statement in flight of every connection, for a time-out report (StatementTracker)
                .dataSourceWrapper(ds -> tracker.wrap(uniquePrefix, ds));
        options.forEach(b::option);
        if (backend != null) {
            b.backend(backend);
        }
        return b.build();
    }

    @Override
    public FaultHooks faults() {
        return faults;
    }

    /**
     * Every prefix handed out so far, in order.
     *
     * @return a copy of the prefixes, oldest first
     */
    public synchronized List<String> prefixes() {
        return new ArrayList<>(used);
    }

    private synchronized void record(String prefix) {
        if (used.add(prefix) && ledger != null) {
            try {
                Files.writeString(ledger, prefix + System.lineSeparator(), StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot record prefix in " + ledger, e);
            }
        }
    }

    /**
     * Drops every object of {@code uniquePrefix}: the backend's own {@code dropSchema}, then any table or
     * view with the prefix that is still listed.
     *
     * @throws IllegalStateException if objects of the prefix remain
     */
    @Override
    public void cleanUp(String uniquePrefix) {
        record(uniquePrefix);
        RuntimeException dropFailure = null;
        QueueConfig.Builder b = QueueConfig.builder().url(url).user(user).password(password).tablePrefix(uniquePrefix)
                .poolSize(2).migrate(false);
        options.forEach(b::option);
        if (backend != null) {
            b.backend(backend);
        }
        try (SqlQueue q = SqlQueue.open(b.build())) {
            q.dropSchema();
        } catch (RuntimeException e) {
            dropFailure = e;
        }
        List<String> left;
        java.util.Map<String, String> refused = new java.util.LinkedHashMap<>();
        try {
            left = dropLeftovers(uniquePrefix, refused);
        } catch (SQLException e) {
            IllegalStateException ex = new IllegalStateException("clean-up of prefix " + uniquePrefix
                    + ": cannot list what is left: " + e.getMessage(), e);
            if (dropFailure != null) {
                ex.addSuppressed(dropFailure);
            }
            throw ex;
        }
        if (!left.isEmpty()) {
            // the server's reasons, so a DBA sees a missing right (MariaDB: "DROP command denied to user ...")
            StringBuilder why = new StringBuilder();
            left.forEach(o -> {
                if (refused.containsKey(o)) {
                    why.append("; DROP ").append(o).append(": ").append(refused.get(o));
                }
            });
            if (dropFailure != null) {
                why.append("; dropSchema: ").append(dropFailure.getMessage());
            }
            IllegalStateException ex = new IllegalStateException("clean-up of prefix " + uniquePrefix + " left " + left + why);
            if (dropFailure != null) {
                ex.addSuppressed(dropFailure);
            }
            throw ex;
        }
        synchronized (this) {
            cleaned.add(uniquePrefix);
        }
        tracker.forget(uniquePrefix);
    }

    /** Prefixes handed out and not yet cleaned up. */
    synchronized List<String> notCleaned() {
        List<String> out = new ArrayList<>(used);
        out.removeAll(cleaned);
        return out;
    }

    /**
     * Tables and views whose name starts with {@code prefix}, as the driver's metadata lists them.
     *
     * @param prefix the case's prefix, matched without regard to case
     * @return the names, as the driver gives them; empty when none is left
     * @throws SQLException when the database cannot be reached or its metadata read
     */
    public List<String> objectsOf(String prefix) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            return list(c, prefix);
        }
    }

    private static List<String> list(Connection c, String prefix) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        String esc = md.getSearchStringEscape();
        String pattern = esc == null || esc.isEmpty() ? prefix : prefix.replace(esc, esc + esc).replace("_", esc + "_")
                .replace("%", esc + "%");
        List<String> out = new ArrayList<>();
        for (String p : Set.of(pattern + "%", pattern.toUpperCase(java.util.Locale.ROOT) + "%")) {
            try (ResultSet rs = md.getTables(c.getCatalog(), null, p, new String[] {"TABLE", "VIEW", "BASE TABLE"})) {
                while (rs.next()) {
                    String n = quote(md, rs.getString("TABLE_SCHEM")) + "." + quote(md, rs.getString("TABLE_NAME"));
                    if (rs.getString("TABLE_SCHEM") == null) {
                        n = quote(md, rs.getString("TABLE_NAME"));
                    }
                    String entry = rs.getString("TABLE_TYPE").contains("VIEW") ? "VIEW " + n : "TABLE " + n;
                    if (!out.contains(entry)) {
                        out.add(entry);
                    }
                }
            }
        }
        return out;
    }

    private static String quote(DatabaseMetaData md, String identifier) throws SQLException {
        if (identifier == null) {
            return null;
        }
        String q = md.getIdentifierQuoteString();
        q = q == null || q.isBlank() ? "\"" : q;
        return q + identifier.replace(q, q + q) + q;
    }

    /**
     * Drops one listed object. On H2 a table is emptied first, in the drop's transaction: H2 2.3.232 takes no
     * table lock for {@code SELECT ... FOR UPDATE}, so a {@code DROP TABLE} would not wait for a session that
     * holds rows that way, and that session's commit or rollback after the drop breaks the database file;
     * the {@code DELETE} waits for those row locks (the backends' own {@code dropSchema} does the same, see
     * docs/backends/h2.md).
     */
    private void drop(Connection c, Statement st, String object) throws SQLException {
        if (!url.startsWith("jdbc:h2:") || !object.startsWith("TABLE ")) {
            st.execute("DROP " + object);
            return;
        }
        c.setAutoCommit(false);
        try {
            st.execute("DELETE FROM " + object.substring("TABLE ".length()));
            st.execute("DROP " + object);
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * Drops listed leftovers (a few rounds, for foreign keys) and returns what is still there; {@code refused}
     * gets each object's last refusal, the server's message.
     */
    private List<String> dropLeftovers(String prefix, java.util.Map<String, String> refused) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            c.setAutoCommit(true);
            List<String> left = list(c, prefix);
            for (int round = 0; round < 3 && !left.isEmpty(); round++) {
                try (Statement st = c.createStatement()) {
                    for (String o : left) {
                        try {
                            drop(c, st, o);
                        } catch (SQLException dependentsFirst) {
                            // another round after its dependents are gone; kept for the message if it stays
                            refused.put(o, dependentsFirst.getMessage());
                        }
                    }
                }
                left = list(c, prefix);
            }
            return left;
        }
    }
}
