package dev.sqlqueue.bench;

import dev.sqlqueue.AckedAndClaimed;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Message;
import dev.sqlqueue.OpenTransaction;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 31, point 1: what a transaction held open elsewhere does to the queue, and what the library now says about
 * it. On a private server of its own (PostgreSQL or MariaDB, stock settings; the machine's shared servers are never
 * touched, since MariaDB's purge is server-wide), a producer paced at {@code --rate} msg/s and a {@link WorkerPool} of
 * 8 threads (default options, handler acks) run {@code --seconds} without a holder, then {@code --seconds} while
 * another session holds a REPEATABLE READ snapshot (it read the message table once at the start of the phase). Per
 * phase: claim p50/p99 (every call of the backend's {@code consume} or {@code ackAllAndConsume}, empty ones
 * included), acks/s, the depth at the end and its maximum (sampled every second), and the clean-up backlog the
 * database reports ({@link OpenTransaction#cleanupBacklog()}). In the held phase it also prints what
 * {@code oldestTransactions} reported and the pool's WARN goes to stderr ({@code transactionWarnAge} 30 s).
 *
 * <pre>
 * HeldSnapshot --db=postgresql|mariadb [--rate=1000] [--seconds=60] [--warmup=10]
 * </pre>
 *
 * <p>Run it with {@code java -cp} (benchmarks.md), not {@code mvn -q exec:java}: under {@code -q} Maven's own SLF4J
 * logger, which exec:java hands the program, drops the WARN.
 */
public final class HeldSnapshot {
    private HeldSnapshot() {
    }

    /** consume() and ackAllAndConsume() round trips (what the worker pool's claims are). */
    static final class TimedBackend extends Sustained.TimedBackend {
        TimedBackend(QueueBackend delegate) {
            super(delegate, new Sustained.Claims());
        }

        @Override
        public AckedAndClaimed ackAllAndConsume(Collection<Receipt> receipts, QueueName queue, ConsumeRequest request) {
            long t0 = System.nanoTime();
            AckedAndClaimed got = super.ackAllAndConsume(receipts, queue, request);
            claims.record(System.nanoTime() - t0, got.claimed().isEmpty());
            return got;
        }
    }

    public static void main(String[] args) throws Exception {
        String db = "postgresql";
        int rate = 1000;
        int seconds = 60;
        int warmup = 10;
        for (String a : args) {
            String v = a.substring(a.indexOf('=') + 1);
            if (a.startsWith("--db=")) {
                db = v;
            } else if (a.startsWith("--rate=")) {
                rate = Integer.parseInt(v);
            } else if (a.startsWith("--seconds=")) {
                seconds = Integer.parseInt(v);
            } else if (a.startsWith("--warmup=")) {
                warmup = Integer.parseInt(v);
            } else {
                throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        try (PrivateServer server = db.equals("mariadb") ? PrivateServer.mariadb() : PrivateServer.postgres(100)) {
            String url = db.equals("mariadb") ? "jdbc:mariadb://127.0.0.1:" + server.port() + "/test"
                    : "jdbc:postgresql://127.0.0.1:" + server.port() + "/postgres";
            String user = db.equals("mariadb") ? "root" : "postgres";
            QueueConfig config = QueueConfig.builder().url(url).user(user).password("").poolSize(12).build();
            TimedBackend timed = new TimedBackend(BackendDiscovery.find(config).open(config));
            QueueName q = QueueName.of("held");
            try (SqlQueue queue = SqlQueue.wrap(timed, config)) {
                queue.createQueue(q);
                AtomicLong acked = new AtomicLong();
                AtomicLong produced = new AtomicLong();
                AtomicBoolean producing = new AtomicBoolean(true);
                int perTick = Math.max(1, rate / 100);
                Thread producer = new Thread(() -> {
                    long next = System.nanoTime();
                    byte[] payload = new byte[100];
                    while (producing.get()) {
                        List<Message> batch = new ArrayList<>(perTick);
                        for (int i = 0; i < perTick; i++) {
                            batch.add(Message.of(payload));
                        }
                        queue.enqueueAll(q, batch);
                        produced.addAndGet(perTick);
                        next += 10_000_000L;
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                            try {
                                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    }
                }, "producer");
                producer.start();
                try (WorkerPool pool = WorkerPool.start(queue, q, d -> {
                    acked.incrementAndGet();
                    return Outcome.ack();
                }, WorkerOptions.defaults().withThreads(8).withTransactionWarnAge(Duration.ofSeconds(30)), null)) {
                    Thread.sleep(warmup * 1000L);
                    timed.claims.drain();
                    System.out.printf(Locale.ROOT, "%s %s, producer %d msg/s, 8 workers, %d s per phase%n", db,
                            queue.serverVersion(), rate, seconds);
                    phase("no holder", queue, q, timed, acked, produced, seconds, null);
                    try (Connection holder = DriverManager.getConnection(url, user, "")) {
                        holder.setAutoCommit(false);
                        holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                        try (Statement st = holder.createStatement(); ResultSet rs = st.executeQuery(
                                "select count(*) from " + (db.equals("mariadb") ? "`sqlq_message`" : "\"sqlq_message\""))) {
                            rs.next();
                        }
                        phase("snapshot held", queue, q, timed, acked, produced, seconds, holder);
                        holder.rollback();
                    }
                } finally {
                    producing.set(false);
                    producer.join();
                }
                queue.dropSchema();
            }
        }
    }

    private static void phase(String name, SqlQueue queue, QueueName q, TimedBackend timed, AtomicLong acked,
                              AtomicLong produced, int seconds, Connection holder) throws Exception {
        timed.claims.drain();
        long ackedBefore = acked.get();
        long producedBefore = produced.get();
        long maxDepth = 0;
        long maxBacklog = -1;
        String reported = "-";
        long t0 = System.nanoTime();
        for (int s = 0; s < seconds; s++) {
            Thread.sleep(1000);
            maxDepth = Math.max(maxDepth, queue.stats(q).depth());
            List<OpenTransaction> open = queue.oldestTransactions(1);
            if (!open.isEmpty()) {
                maxBacklog = Math.max(maxBacklog, open.get(0).cleanupBacklog());
                if (holder != null) {
                    reported = open.get(0).describe();
                }
            }
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long[] c = timed.claims.drain();
        long depth = queue.stats(q).depth();
        System.out.printf(Locale.ROOT, "%-14s claims %7d (empty %6d)  claim p50 %8.2f ms  p99 %8.2f ms  enqueued %6.0f/s  acks %6.0f/s"
                        + "  depth end %7d max %7d  clean-up backlog max %d%n", name, c[0], c[1], c[2] / 1e6, c[3] / 1e6,
                (produced.get() - producedBefore) / elapsed, (acked.get() - ackedBefore) / elapsed, depth, maxDepth, maxBacklog);
        if (holder != null) {
            System.out.println("  oldestTransactions(1) at the end of the phase: " + reported);
        }
    }
}
