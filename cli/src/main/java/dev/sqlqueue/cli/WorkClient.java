package dev.sqlqueue.cli;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@code sqlqueue work} puts between its {@link dev.sqlqueue.runtime.WorkerPool} and the real
 * client ({@link #client()}), two changes that make small tasks cheap (measured in docs/benchmarks.md,
 * "sqlqueue against xargs -P"):
 *
 * <ul>
 *   <li><b>Group commit of acks</b> (lease mode). An {@link #ackAll} (the pool's ack of a command that
 *   exited 0) joins the acks that other worker threads are waiting to commit: one thread commits them
 *   all in one {@code ackAll} transaction while the others wait for it, then each gets its own result
 *   (its lost leases). A commit thus serves as many commands as finished while the previous one was
 *   being written, instead of one durable commit per command. An ack still returns only after its
 *   commit, as before.</li>
 *   <li><b>Claims sized to the tasks</b> (with {@code --batch-size auto}). A claim takes about
 *   {@link #TARGET_BATCH_MS} of work by the recent average run time of a command (at most the pool's
 *   batch size, at least 1): one message at a time while commands are slow, so no message waits in
 *   a busy worker's batch while another worker is idle; up to a batch while they take milliseconds,
 *   so the claim's round trip and commit are shared.</li>
 * </ul>
 *
 * Everything else goes straight to the real client. Thread-safe.
 */
final class WorkClient {
    /** Milliseconds of work one adaptive claim aims at. */
    static final long TARGET_BATCH_MS = 100;

    private final QueueClient delegate;
    private final boolean coalesce;
    private final boolean adaptive;
    private final Object lock = new Object();
    private Group open = new Group();
    private boolean committing;
    /** Exponentially weighted mean run time of a command, nanoseconds; negative until the first one. */
    private volatile double meanNanos = -1;

    /**
     * @param coalesce group-commit acks (lease mode only: a transactional claim's ack belongs to its own transaction)
     * @param adaptive size claims by the recent run time of commands (the request's size is the maximum)
     */
    WorkClient(QueueClient delegate, boolean coalesce, boolean adaptive) {
        this.delegate = delegate;
        this.coalesce = coalesce;
        this.adaptive = adaptive;
    }

    /** Record how long one command ran (the handler calls this). */
    void ran(long nanos) {
        double m = meanNanos;
        meanNanos = m < 0 ? nanos : m * 0.9 + nanos * 0.1;
    }

    /** The claim size for a pool batch size of {@code max}. */
    int claimSize(int max) {
        double m = meanNanos;
        if (!adaptive || max <= 1) {
            return max;
        }
        if (m < 0) {
            return 1;
        }
        long n = Math.round(TARGET_BATCH_MS * 1e6 / Math.max(m, 1));
        return (int) Math.max(1, Math.min(max, n));
    }

    private static final class Group {
        final List<Receipt> receipts = new ArrayList<>();
        boolean done;
        Set<Receipt> lost;
        RuntimeException error;
    }

    /** Ack through the group commit (see the class comment); the receipts whose lease was lost. */
    Set<Receipt> ackAll(Collection<Receipt> receipts) {
        if (!coalesce) {
            return delegate.ackAll(receipts);
        }
        Group mine;
        synchronized (lock) {
            mine = open;
            mine.receipts.addAll(receipts);
            while (committing && !mine.done) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break; // commit this group ourselves below, or report its result
                }
            }
            if (!mine.done) {
                if (committing) {
                    // interrupted while another thread commits: acks of this thread stay unconfirmed
                    throw new IllegalStateException("interrupted while waiting for a group commit");
                }
                committing = true;
                open = new Group();
            }
        }
        if (mine.done) {
            return result(mine, receipts);
        }
        Set<Receipt> lost = null;
        RuntimeException error = null;
        try {
            lost = delegate.ackAll(mine.receipts);
        } catch (RuntimeException e) {
            error = e;
        }
        synchronized (lock) {
            mine.lost = lost;
            mine.error = error;
            mine.done = true;
            committing = false;
            lock.notifyAll();
        }
        return result(mine, receipts);
    }

    private static Set<Receipt> result(Group g, Collection<Receipt> mine) {
        if (g.error != null) {
            throw g.error;
        }
        Set<Receipt> lost = new HashSet<>();
        for (Receipt r : mine) {
            if (g.lost.contains(r)) {
                lost.add(r);
            }
        }
        return lost;
    }

    /** Ack one receipt through the group commit; LeaseLostException if its lease was lost. */
    void ack(Receipt receipt) {
        if (!ackAll(List.of(receipt)).isEmpty()) {
            throw new LeaseLostException(receipt.messageId(), "lease of message " + receipt.messageId() + " lost before its ack");
        }
    }

    /** Claim with the size {@link #claimSize} gives. */
    List<Delivery> consume(QueueName queue, ConsumeRequest request) {
        int n = claimSize(request.maxMessages());
        return delegate.consume(queue, n == request.maxMessages() ? request
                : new ConsumeRequest(n, request.lease(), request.maxWait(), request.mode()));
    }

    /**
     * The client to hand the pool: {@code ackAll}, {@code ack} without a detail, and {@code consume} go
     * through this object, every other call straight to the real client. (A dynamic proxy, so the command
     * names no JDBC type: {@code QueueClient} also has {@code enqueue(java.sql.Connection, ...)}.)
     */
    QueueClient client() {
        InvocationHandler h = (proxy, method, args) -> {
            try {
                switch (method.getName()) {
                    case "ackAll":
                        if (coalesce) {
                            @SuppressWarnings("unchecked")
                            Collection<Receipt> receipts = (Collection<Receipt>) args[0];
                            return ackAll(receipts);
                        }
                        break;
                    case "ack":
                        if (coalesce && (args.length == 1 || args[1] == null)) {
                            ack((Receipt) args[0]);
                            return null;
                        }
                        break;
                    case "consume":
                        return consume((QueueName) args[0], (ConsumeRequest) args[1]);
                    case "close":
                        return null; // the real client's owner closes it
                    default:
                        break;
                }
                return method.invoke(delegate, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (QueueClient) Proxy.newProxyInstance(QueueClient.class.getClassLoader(), new Class<?>[] {QueueClient.class}, h);
    }
}
