package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerErrors;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Errors the probes' concurrent sessions met, counted by kind, with the first message of each kind: error 1205
 * (deadlock victim), 1222 (lock request time-out), a query time-out (the driver's {@link SQLTimeoutException}
 * after its attention, or the backend's lease-derived bound), any other server error by number, and anything
 * else by exception class. The kind is read from the first {@link SQLException} in the cause chain. Babelfish for
 * PostgreSQL reports a deadlock as 1205 but a lock time-out as its unmapped error
 * ({@link SqlServerErrors#BABELFISH_UNMAPPED}) with PostgreSQL's text "canceling statement due to lock timeout";
 * that is counted as a lock time-out too. Thread-safe.
 */
final class ErrorTally {
    static final String DEADLOCK = "1205 deadlock victim";
    static final String LOCK_TIMEOUT = "1222 lock time-out";
    static final String QUERY_TIMEOUT = "query time-out";

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final Map<String, String> examples = new ConcurrentHashMap<>();

    /** Count {@code e} under its kind. */
    void add(Throwable e) {
        String kind = kind(e);
        counts.computeIfAbsent(kind, k -> new LongAdder()).increment();
        examples.putIfAbsent(kind, String.valueOf(e.getMessage()).replace('\n', ' '));
    }

    /** The kind of {@code e}: {@link #DEADLOCK}, {@link #LOCK_TIMEOUT}, {@link #QUERY_TIMEOUT}, {@code error N} or a class name. */
    static String kind(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTimeoutException) {
                return QUERY_TIMEOUT;
            }
            if (t instanceof SQLException s) {
                if (s.getErrorCode() == SqlServerErrors.BABELFISH_UNMAPPED && s.getMessage() != null
                        && s.getMessage().contains("due to lock timeout")) {
                    return LOCK_TIMEOUT;
                }
                return switch (s.getErrorCode()) {
                    case SqlServerErrors.DEADLOCK_VICTIM -> DEADLOCK;
                    case SqlServerErrors.LOCK_TIMEOUT -> LOCK_TIMEOUT;
                    default -> "error " + s.getErrorCode();
                };
            }
        }
        return e.getClass().getSimpleName();
    }

    /** How many errors of this kind were counted. */
    long count(String kind) {
        LongAdder a = counts.get(kind);
        return a == null ? 0 : a.sum();
    }

    /** All errors counted. */
    long total() {
        return counts.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** {@code none}, or each kind with its count and first message, in a stable order. */
    @Override
    public String toString() {
        if (counts.isEmpty()) {
            return "none";
        }
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, LongAdder> e : new TreeMap<>(counts).entrySet()) {
            String example = examples.get(e.getKey());
            b.append(b.length() == 0 ? "" : "; ").append(e.getKey()).append(" x").append(e.getValue().sum()).append(" (first: ")
                    .append(example.length() > 200 ? example.substring(0, 200) + "..." : example).append(')');
        }
        return b.toString();
    }
}
