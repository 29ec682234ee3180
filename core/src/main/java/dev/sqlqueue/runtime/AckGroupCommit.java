package dev.sqlqueue.runtime;

import dev.sqlqueue.QueueClient;
import dev.sqlqueue.Receipt;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Group commit of lease-mode acks across the worker threads of one {@link WorkerPool} (first written for
 * {@code sqlqueue work}, issue 15, which now relies on this one): a thread that acks while no ack transaction is running commits its
 * own receipts at once (no added wait at low load); receipts submitted while one is running are gathered
 * and committed together by the next thread, in one {@link QueueClient#ackAll} transaction, while the
 * others wait for it. Each caller returns only after the transaction holding its receipts has committed,
 * and gets only its own lost leases (or the transaction's error). A set of {@link #DIRECT} receipts or
 * more is committed by its own thread at once, beside any group: it shares its commit well enough
 * already, and waiting for a group in progress would only leave the thread idle (measured, see
 * docs/benchmarks.md). Thread-safe.
 */
final class AckGroupCommit {
    /** Receipts from which a thread commits its acks itself instead of joining a group. */
    static final int DIRECT = 32;

    private final QueueClient client;
    private final Object lock = new Object();
    private Group open = new Group();
    private boolean committing;

    AckGroupCommit(QueueClient client) {
        this.client = client;
    }

    private static final class Group {
        final List<Receipt> receipts = new ArrayList<>();
        boolean done;
        Set<Receipt> lost;
        RuntimeException error;
    }

    /**
     * Ack {@code receipts} in a group commit.
     *
     * @return those of {@code receipts} whose lease was lost (their rows were not deleted by this ack)
     * @throws RuntimeException the ack transaction's failure (nothing of the group was committed), or an
     *     {@link IllegalStateException} if the thread was interrupted while another thread committed its group
     */
    Set<Receipt> ackAll(Collection<Receipt> receipts) {
        if (receipts.size() >= DIRECT) {
            return client.ackAll(receipts);
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
                    break;
                }
            }
            if (!mine.done) {
                if (committing) {
                    // interrupted while another thread commits: this thread's acks stay unconfirmed
                    throw new IllegalStateException("interrupted while waiting for a group commit of acks");
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
            lost = client.ackAll(mine.receipts);
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
}
