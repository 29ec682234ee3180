package dev.sqlqueue.internal;

import dev.sqlqueue.QueueName;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * In-process wake-up: consumers waiting on a queue sleep here and are woken when a message is
 * enqueued through the same JVM or the backend reports a notification. Thread-safe.
 */
public final class WakeupHub {
    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        long generation;
    }

    private final ConcurrentHashMap<QueueName, Slot> slots = new ConcurrentHashMap<>();

    private Slot slot(QueueName q) {
        return slots.computeIfAbsent(q, k -> new Slot());
    }

    /**
     * The current generation of the queue; pass it to {@link #await}.
     *
     * @param q the queue
     * @return a counter that each {@link #signal} of the queue raises
     */
    public long generation(QueueName q) {
        Slot s = slot(q);
        s.lock.lock();
        try {
            return s.generation;
        } finally {
            s.lock.unlock();
        }
    }

    /**
     * Wake every waiter of the queue.
     *
     * @param q the queue that has a new message
     */
    public void signal(QueueName q) {
        Slot s = slot(q);
        s.lock.lock();
        try {
            s.generation++;
            s.changed.signalAll();
        } finally {
            s.lock.unlock();
        }
    }

    /**
     * Sleep until the generation moves past {@code seen} or {@code millis} pass.
     *
     * @param q the queue
     * @param seen the generation read before the caller looked for messages
     * @param millis the longest sleep, in milliseconds
     * @return true if woken by a signal
     * @throws InterruptedException if the thread is interrupted while it sleeps
     */
    public boolean await(QueueName q, long seen, long millis) throws InterruptedException {
        Slot s = slot(q);
        long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        s.lock.lock();
        try {
            while (s.generation == seen) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = s.changed.awaitNanos(nanos);
            }
            return true;
        } finally {
            s.lock.unlock();
        }
    }
}
