package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite: every behaviour of {@code shared/notes/conformance.md}, one test method per
 * case (C01..C21). A backend's test class extends this, supplies its {@link ConformanceTarget} and a
 * {@link ClaimMode}, and inherits every case. Cases whose capability or fault hook is missing abort
 * with an assumption naming what is missing, so JUnit reports them as skipped, never passed.
 */
public abstract class ConformanceSuite {
    /** The backend under test. Called once per case. */
    protected abstract ConformanceTarget target();

    /** The claim mode every case of this class uses. */
    protected abstract ClaimMode mode();

    protected ConformanceTarget target;
    protected String prefix;
    protected QueueConfig config;
    protected SqlQueue queue;

    @BeforeEach
    void openBackend() {
        target = target();
        Optional<String> why = target.unavailableReason();
        assumeTrue(why.isEmpty(), () -> "backend unavailable: " + why.orElse(""));
        prefix = "kt" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "_";
        config = target.config(prefix);
        queue = SqlQueue.open(config);
        assumeTrue(queue.capabilities().supports(mode()),
                () -> "claim mode " + mode().name().toLowerCase() + " not offered by " + target.name());
    }

    @AfterEach
    void closeBackend() {
        try {
            if (queue != null) {
                queue.close();
            }
        } finally {
            if (target != null && prefix != null) {
                target.cleanUp(prefix);
            }
        }
    }

    /** A fresh queue created on the backend. */
    protected QueueName newQueue(String name) {
        QueueName q = QueueName.of(name);
        queue.createQueue(q);
        return q;
    }

    protected ConsumeRequest claim(int n) {
        return ConsumeRequest.of(n).withMode(mode());
    }

    protected void requires(Capability c) {
        assumeTrue(queue.capabilities().has(c), () -> "missing capability: " + c.describe());
    }

    @Test
    @DisplayName("C01 round trip: enqueue, consume, ack")
    void c01RoundTrip() {
        QueueName q = newQueue("c01");
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        byte[] max = new byte[queue.capabilities().maxPayloadBytes()];
        ThreadLocalRandom.current().nextBytes(max);
        Map<String, String> headers = Map.of("grüße", "日本語 ✓", "k=v", "line\nbreak");
        for (byte[] payload : List.of(new byte[0], all, max)) {
            queue.enqueue(q, Message.builder(payload).headers(headers).build());
            List<Delivery> got = queue.consume(q, claim(1).withWait(Duration.ofSeconds(5)));
            assertEquals(1, got.size(), "one delivery");
            assertArrayEquals(payload, got.get(0).payload(), "payload bytes identical");
            assertEquals(headers, got.get(0).headers(), "headers intact");
            queue.ack(got.get(0).receipt());
        }
        assertEquals(0, queue.stats(q).depth(), "queue empty after acks");
        assertTrue(queue.consume(q, claim(1)).isEmpty(), "nothing left to consume");
    }
}
