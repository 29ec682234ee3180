package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Pausing a queue (C28): while a queue is paused no claim of any client receives its messages, other queues go on,
 * enqueues and the settling of messages claimed before the pause go on; resume delivers what waited. Runs only where
 * {@link Capability#PAUSE} is declared.
 */
public interface PauseCases extends SuiteContext {
    /**
     * C28: A message is claimed, then the queue is paused ({@code pause} answers true, a second {@code pause}
     * false; another client's {@code isPaused} sees it; {@code pause} of a queue that does not exist is
     * refused, rule {@code queue.exists}); while paused, claims of both clients, one with a 500 ms wait, get
     * nothing though a message was enqueued meanwhile, another queue is consumed as usual, and the message
     * claimed before the pause is acked; {@code stats} counts the waiting messages as ready; after {@code
     * resume} (true, then false) the waiting messages are delivered, each once.
     *
     * <p>Guards against a pause held in one process's memory that other workers ignore, a pause that also stops
     * enqueues or acks, or a resume that loses what waited.
     */
    @Test
    @DisplayName("C28 paused queue is not consumed; resume delivers")
    default void c28PausedQueueIsNotConsumedResumeDelivers() {
        requires(Capability.PAUSE);
        QueueName q = newQueue("c28");
        QueueName other = newQueue("c28-other");
        queue().enqueue(q, Message.ofText("before-1"));
        queue().enqueue(q, Message.ofText("before-2"));
        queue().enqueue(other, Message.ofText("elsewhere"));
        Delivery held = consumeOne(queue(), q, Duration.ofSeconds(10)); // claimed before the pause

        assertFalse(queue().isPaused(q), "a new queue runs");
        assertTrue(queue().pause(q), "paused by this call");
        assertFalse(queue().pause(q), "pausing a paused queue changes nothing");
        SqlQueue another = openAnother();
        assertTrue(another.isPaused(q), "the pause is the database's: another client sees it");
        assertFalse(another.isPaused(other), "one queue only");

        queue().enqueue(q, Message.ofText("during"));
        assertEquals(List.of(), queue().consume(q, claim(10).withWait(Duration.ofMillis(500))), "a paused queue is not consumed");
        assertEquals(List.of(), another.consume(q, claim(10)), "by no client");
        Delivery elsewhere = consumeOne(another, other, Duration.ofSeconds(10));
        another.ack(elsewhere.receipt());
        queue().ack(held.receipt()); // a message claimed before the pause is settled as usual
        assertEquals(2, queue().stats(q).ready(), "the paused queue's messages wait, counted as ready");
        assertEquals(0, queue().stats(q).inFlight());

        assertEquals("queue.exists", assertThrows(InvalidInputException.class,
                () -> queue().pause(QueueName.of("c28-missing"))).rule(), "a queue that does not exist");

        assertTrue(another.resume(q), "resumed by this call");
        assertFalse(another.resume(q), "resuming a running queue changes nothing");
        assertFalse(queue().isPaused(q));
        List<Delivery> got = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (got.size() < 2 && System.nanoTime() < deadline) {
            List<Delivery> batch = queue().consume(q, claim(10).withWait(Duration.ofSeconds(1)));
            got.addAll(batch);
            batch.forEach(d -> queue().ack(d.receipt()));
        }
        Set<String> texts = new TreeSet<>();
        got.forEach(d -> texts.add(d.text()));
        Set<String> waited = new TreeSet<>(Set.of("before-1", "before-2", "during"));
        waited.remove(held.text());
        assertEquals(waited, texts, "resume delivers what waited, each once");
        assertEquals(2, got.size());
        assertEquals(0, queue().stats(q).depth());
    }
}
