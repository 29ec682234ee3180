package dev.sqlqueue.runtime;

import dev.sqlqueue.OpenTransaction;
import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueName;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link WorkerPool}'s check for transactions held open elsewhere on the database (issue 31): every
 * {@link #interval(Duration)} it asks {@link QueueClient#oldestTransactions} for the oldest few, and when the oldest is
 * at least the warn age old it logs a WARN naming that session (and the ids of up to four more past the warn age).
 * Rate-limited: one WARN when a session first passes the warn age (or a new transaction of the same session does), then
 * one every {@link #REPEAT} while it stays open, and one INFO when none is past the warn age any more. A failing check
 * (for example a user without {@code pg_read_all_stats} sees nothing, a MariaDB user without {@code PROCESS} is refused)
 * is logged once at INFO, then at DEBUG. Runs on the pool's own daemon thread, never on a claim's path. Not
 * thread-safe: one thread calls {@link #check()}.
 */
final class TransactionWatch {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionWatch.class);
    /** How often the same session is named again while its transaction stays open: 10 min. */
    static final Duration REPEAT = Duration.ofMinutes(10);
    /** Sessions read per check. */
    private static final int READ = 5;

    private final QueueClient client;
    private final QueueName queue;
    private final long warnMillis;
    private String warnedSession;
    private long warnedAge;
    private long warnedAtNanos;
    private boolean failed;

    TransactionWatch(QueueClient client, QueueName queue, Duration warnAge) {
        this.client = client;
        this.queue = queue;
        this.warnMillis = warnAge.toMillis();
    }

    /** Half the warn age, within 1 s..30 s: a session is named at most 30 s after it passed the warn age. */
    static long interval(Duration warnAge) {
        return Math.min(30_000, Math.max(1_000, warnAge.toMillis() / 2));
    }

    void check() {
        List<OpenTransaction> open;
        try {
            open = client.oldestTransactions(READ);
        } catch (RuntimeException e) {
            if (!failed) {
                failed = true;
                LOG.info("queue '{}': cannot read the open transactions of the database, so a transaction held open"
                        + " elsewhere will not be reported (later failures at DEBUG): {}", queue, e.toString());
            } else {
                LOG.debug("queue '{}': reading the open transactions failed: {}", queue, e.toString());
            }
            return;
        }
        List<OpenTransaction> old = open.stream().filter(t -> t.ageMillis() >= warnMillis).toList();
        if (old.isEmpty()) {
            if (warnedSession != null) {
                LOG.info("queue '{}': no transaction of the database has been open for {} s or more any more (session {}"
                        + " was)", queue, warnMillis / 1000.0, warnedSession);
                warnedSession = null;
            }
            return;
        }
        OpenTransaction oldest = old.get(0);
        long now = System.nanoTime();
        boolean fresh = !oldest.sessionId().equals(warnedSession) || oldest.ageMillis() < warnedAge;
        if (fresh || now - warnedAtNanos >= REPEAT.toNanos()) {
            String others = old.size() == 1 ? "" : "; also past " + warnMillis + " ms: " + old.subList(1, old.size()).stream()
                    .map(t -> "session " + t.sessionId() + " (" + t.ageMillis() / 1000 + " s)").collect(Collectors.joining(", "));
            LOG.warn("queue '{}': {}. While it stays open the database cannot clean up the row versions that claims and acks"
                    + " leave behind, so claims slow down and the queue backs up; end that transaction or bound such"
                    + " transactions on the server (docs/backends/{}.md, \"A transaction held open elsewhere\"){}",
                    queue, oldest.describe(), client.capabilities().backend(), others);
            warnedAtNanos = now;
        }
        warnedSession = oldest.sessionId();
        warnedAge = oldest.ageMillis();
    }
}
