package dev.sqlqueue.teradata;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Deletes expired deduplication keys, off the producers' threads (review N5): after every
 * {@value #EVERY}th keyed enqueue of this backend, a background thread reads up to {@value #BATCH} expired
 * keys of that queue under an ACCESS lock ({@link TeradataStatements#expiredKeys}: never waits, blocks no
 * one) and deletes each by its primary index ({@link TeradataStatements#deleteExpiredKey}: a row-hash
 * lock), committing every {@value #CHUNK}. Each statement has a query timeout of {@value #TIMEOUT_SECONDS} s.
 * Failures are dropped: each enqueue deletes its own key when expired, so a missed clean-up leaves only
 * rows. At most one clean-up per queue waits or runs at a time. Thread-safe.
 */
final class KeyCleaner implements AutoCloseable {
    static final int EVERY = 256;
    static final int BATCH = 1000;
    static final int CHUNK = 100;
    static final int TIMEOUT_SECONDS = 30;

    private final Sessions sessions;
    private final AtomicLong keyed = new AtomicLong();
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sqlqueue-teradata-key-cleaner");
        t.setDaemon(true);
        return t;
    });

    KeyCleaner(Sessions sessions) {
        this.sessions = sessions;
    }

    /** Counts {@code count} keyed enqueues just committed on {@code n}'s queue; may start a clean-up. */
    void counted(TeradataNames n, long count) {
        long before = keyed.getAndAdd(count);
        if (count == 0 || before / EVERY == (before + count) / EVERY || !pending.add(n.keysTable())) {
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    clean(n);
                } catch (RuntimeException dropped) {
                    // the next clean-up tries again; each enqueue deletes its own expired key meanwhile
                } finally {
                    pending.remove(n.keysTable());
                }
            });
        } catch (RejectedExecutionException closed) {
            pending.remove(n.keysTable());
        }
    }

    private void clean(TeradataNames n) {
        sessions.run("delete expired deduplication keys of '" + n.queue() + "'", s -> {
            Connection c = s.connection();
            List<String> keys = new ArrayList<>();
            try (Statement st = c.createStatement()) {
                st.setQueryTimeout(TIMEOUT_SECONDS);
                try (ResultSet rs = st.executeQuery(TeradataStatements.expiredKeys(n, BATCH))) {
                    while (rs.next()) {
                        keys.add(rs.getString(1));
                    }
                }
            }
            c.commit();
            try (PreparedStatement ps = c.prepareStatement(TeradataStatements.deleteExpiredKey(n))) {
                ps.setQueryTimeout(TIMEOUT_SECONDS);
                for (int i = 0; i < keys.size(); i++) {
                    ps.setString(1, keys.get(i));
                    ps.executeUpdate();
                    if ((i + 1) % CHUNK == 0) {
                        c.commit();
                    }
                }
            }
            c.commit();
            return null;
        });
    }

    /** Stops the background thread; a running clean-up ends with its session. */
    @Override
    public void close() {
        executor.shutdownNow();
    }

    /** For tests: whether a clean-up is waiting or running. */
    boolean busy() {
        return !pending.isEmpty();
    }
}
