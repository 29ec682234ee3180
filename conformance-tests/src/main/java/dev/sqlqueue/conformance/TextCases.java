package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.RetryPolicy;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * C23: text with characters outside Unicode's Basic Multilingual Plane (here U+1D11E, a surrogate pair
 * in Java) in a header, in a handler's error text and in a dead-letter reason.
 *
 * <p>A header is stored intact, or the enqueue is refused with an {@link InvalidInputException} whose
 * rule starts with {@code headers.} and whose message names the code point, the store unchanged (the
 * Teradata backend without Unicode Pass Through). Text the library writes itself (the error a retry
 * records, the dead-letter reason) never makes a settle fail: it is kept intact, or with each character
 * outside the BMP replaced by one BMP character, as the backend documents.
 */
public interface TextCases extends SuiteContext {
    /** U+1D11E MUSICAL SYMBOL G CLEF. */
    String CLEF = "\uD834\uDD1E";

    /**
     * C23: A header holding U+1D11E is stored and read back intact, or refused with an error whose rule
     * starts with {@code headers.} and that names the character, the store unchanged; a handler's error text
     * and a dead-letter reason holding it never stop a settle: the message is dead-lettered after its
     * attempts with the text kept (intact, or each character outside the BMP replaced by one character, as
     * the backend documents), and requeued.
     *
     * <p>Guards against a poison loop: a message whose error text the database refuses is redelivered forever,
     * its attempts never counted.
     *
     * @throws Exception from the backend or the case's own threads when they fail in a way the case
     *     does not expect; it fails the case (a failed check throws an {@link AssertionError} instead)
     */
    @Test
    @DisplayName("C23 text outside the BMP")
    @SuppressWarnings("try") // the worker pool is held for its close only, which stops its workers
    default void c23TextOutsideTheBmp() throws Exception {
        QueueName q = newQueue("c23");
        Message withClef = Message.builder(new byte[] {1}).header("clef", "G " + CLEF).build();
        boolean stored;
        try {
            queue().enqueue(q, withClef);
            stored = true;
        } catch (InvalidInputException e) {
            assertTrue(e.rule().startsWith("headers."), "refused under a headers rule: " + e.rule());
            assertTrue(e.getMessage().contains("U+1D11E"), "the error names the character: " + e.getMessage());
            assertEquals(0, queue().stats(q).depth(), "store unchanged after the refusal");
            stored = false;
        }
        if (stored) {
            Delivery d = consumeOne(queue(), q, Duration.ofSeconds(5));
            assertEquals("G " + CLEF, d.headers().get("clef"), "a stored header comes back intact");
            queue().ack(d.receipt());
        }

        queue().enqueue(q, Message.builder(new byte[] {2}).header("h", "v").build());
        RetryPolicy retry = new RetryPolicy(2, Duration.ZERO, Duration.ZERO, 1.0, 0.0);
        WorkerOptions options = WorkerOptions.defaults().withThreads(1).withBatchSize(1).withMode(claimMode())
                .withRetry(retry).withPollWait(Duration.ofMillis(100));
        try (WorkerPool pool = WorkerPool.start(queue(), q, d -> Outcome.retry("failed on " + CLEF + " input"), options, null)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (queue().stats(q).dead() == 0 && System.nanoTime() < deadline) {
                pause(50);
            }
        }
        List<DeadLetter> dead = queue().deadLetters(q, 10);
        assertEquals(1, dead.size(), "dead-lettered after the retries, never stuck on its error text");
        assertEquals(2, dead.get(0).attempts(), "every attempt counted");
        assertTrue(containsIntactOrReplaced(dead.get(0).reason(), "failed on " + CLEF + " input"),
                "the handler's text is in the reason: " + dead.get(0).reason());

        queue().enqueue(q, Message.builder(new byte[] {3}).build());
        Delivery d = consumeOne(queue(), q, Duration.ofSeconds(5));
        queue().deadLetter(d.receipt(), "poison " + CLEF);
        dead = queue().deadLetters(q, 10);
        assertEquals(2, dead.size());
        assertTrue(dead.stream().anyMatch(x -> containsIntactOrReplaced(x.reason(), "poison " + CLEF)),
                "the reason is kept: " + dead);
        assertEquals(0, queue().stats(q).depth(), "nothing left on the queue");

        assertEquals(2, queue().requeueDeadLetters(q, List.of()));
        for (int i = 0; i < 2; i++) {
            queue().ack(consumeOne(queue(), q, Duration.ofSeconds(5)).receipt());
        }
        assertEquals(0, queue().stats(q).dead());
    }

    /**
     * True when {@code actual} contains {@code expected}, or {@code expected} with each code point
     * outside the BMP replaced by one BMP character.
     *
     * @param actual the text read back, may be null (then false)
     * @param expected the text written
     * @return whether the text survived, intact or with its supplementary characters replaced
     */
    static boolean containsIntactOrReplaced(String actual, String expected) {
        if (actual == null) {
            return false;
        }
        if (actual.contains(expected)) {
            return true;
        }
        int[] want = expected.codePoints().toArray();
        int[] got = actual.codePoints().toArray();
        for (int start = 0; start + want.length <= got.length; start++) {
            boolean match = true;
            for (int i = 0; i < want.length && match; i++) {
                int w = want[i];
                int g = got[start + i];
                match = Character.isBmpCodePoint(w) ? g == w : Character.isBmpCodePoint(g);
            }
            if (match) {
                return true;
            }
        }
        return false;
    }
}
