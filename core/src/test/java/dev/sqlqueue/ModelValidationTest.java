package dev.sqlqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.runtime.RetryPolicy;
import dev.sqlqueue.spi.HeaderCodec;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelValidationTest {
    @Test
    void queueNamesFollowOnePattern() {
        assertEquals("jobs-2_a", QueueName.of("jobs-2_a").value());
        assertEquals("queue-name.pattern", assertThrows(InvalidInputException.class, () -> QueueName.of("1jobs")).rule());
        assertEquals("queue-name.pattern", assertThrows(InvalidInputException.class, () -> QueueName.of("jobs]")).rule());
        InvalidInputException lookAlike = assertThrows(InvalidInputException.class, () -> QueueName.of("j\u043Ebs"));
        assertTrue(lookAlike.getMessage().contains("\\u043E"), "the look-alike is shown escaped: " + lookAlike.getMessage());
        assertEquals("queue-name.max-length", assertThrows(InvalidInputException.class,
                () -> QueueName.of("a".repeat(QueueName.MAX_LENGTH + 1))).rule());
    }

    @Test
    void headersRoundTripThroughTheCodec() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("a=b", "x\ny\\z=w");
        h.put("ünï", "");
        h.put("k", "v\r");
        assertEquals(h, HeaderCodec.decode(HeaderCodec.encode(h)));
        assertEquals(Map.of(), HeaderCodec.decode(""));
    }

    @Test
    void headersHoldAtMostTheirLimitInAllAndARefusalChangesNothing() {
        int max = Message.MAX_HEADERS_LENGTH;
        // exactly at the limit: two keys of one character and their values
        Message.Builder b = Message.builder(new byte[0]).header("a", "x".repeat(max / 2 - 1)).header("b", "y".repeat(max / 2 - 1));
        assertEquals(2, b.build().headers().size());
        InvalidInputException over = assertThrows(InvalidInputException.class, () -> b.header("c", ""));
        assertEquals("headers.size", over.rule());
        assertTrue(over.getMessage().contains(Integer.toString(max)), over.getMessage());
        assertEquals(Map.of("a", "x".repeat(max / 2 - 1), "b", "y".repeat(max / 2 - 1)), b.build().headers(),
                "a refused header leaves the builder as it was");
        // a key set again counts once, with its new value
        b.header("a", "").header("a", "z".repeat(max / 2 - 1));
        assertEquals("z".repeat(max / 2 - 1), b.build().headers().get("a"));
        // headers(Map) is all or none, and counts the headers already set
        Map<String, String> more = new LinkedHashMap<>();
        more.put("b", "");
        more.put("d", "w".repeat(max / 2));
        InvalidInputException all = assertThrows(InvalidInputException.class, () -> b.headers(more));
        assertEquals("headers.size", all.rule());
        assertEquals(2, b.build().headers().size());
        assertEquals("y".repeat(max / 2 - 1), b.build().headers().get("b"));
        more.put("d", "w".repeat(max / 2 - 2));
        assertEquals(3, b.headers(more).build().headers().size());
        assertEquals("headers.size", assertThrows(InvalidInputException.class,
                () -> Message.builder(new byte[0]).header("k", "v".repeat(max))).rule());
    }

    @Test
    void malformedHeadersAreRejected() {
        assertThrows(HeaderCodec.MalformedHeadersException.class, () -> HeaderCodec.decode("no equals"));
        assertThrows(HeaderCodec.MalformedHeadersException.class, () -> HeaderCodec.decode("a=1\na=2"));
        assertThrows(HeaderCodec.MalformedHeadersException.class, () -> HeaderCodec.decode("a\\q=1"));
        assertThrows(HeaderCodec.MalformedHeadersException.class, () -> HeaderCodec.decode("=1"));
    }

    @Test
    void retryBackoffGrowsAndIsCapped() {
        RetryPolicy p = new RetryPolicy(5, Duration.ofMillis(100), Duration.ofMillis(1000), 2.0, 0.0);
        assertEquals(100, p.backoff(1).toMillis());
        assertEquals(400, p.backoff(3).toMillis());
        assertEquals(1000, p.backoff(10).toMillis());
        assertTrue(p.exhausted(5));
        RetryPolicy jittered = p.withBackoff(Duration.ofMillis(1000), Duration.ofMillis(1000));
        RetryPolicy j = new RetryPolicy(5, Duration.ofMillis(1000), Duration.ofMillis(1000), 2.0, 0.2);
        for (int i = 0; i < 100; i++) {
            long ms = j.backoff(1).toMillis();
            assertTrue(ms >= 800 && ms <= 1200, "jitter stays within 20%: " + ms);
        }
        assertEquals(1000, jittered.backoff(1).toMillis());
    }

    @Test
    void messageOptionsAreValidated() {
        assertEquals("priority.range", assertThrows(InvalidInputException.class,
                () -> Message.builder(new byte[0]).priority(5000)).rule());
        assertEquals("header.key", assertThrows(InvalidInputException.class,
                () -> Message.builder(new byte[0]).header("", "x")).rule());
        assertEquals("consume.lease", assertThrows(InvalidInputException.class,
                () -> ConsumeRequest.of(1).withLease(Duration.ZERO)).rule());
    }

    /**
     * The own pool's schema migration holds two connections at once (Flyway: one for the history table's lock,
     * one for the statements), so a pool of one waited its connection time-out of 10 s at open and failed on H2
     * and PostgreSQL. A pool of one is refused when it is configured.
     */
    @Test
    void aPoolOfOneConnectionIsRefusedWhenConfigured() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> QueueConfig.builder().poolSize(1));
        assertEquals("pool-size.range", e.rule());
        assertTrue(e.getMessage().contains("2..1000"), e.getMessage());
        assertEquals(2, QueueConfig.builder().url("jdbc:h2:mem:x").poolSize(2).build().poolSize());
    }

    @Test
    void movedMessagesAndKeysNameTheRuleTheyBreak() {
        Message keyed = Message.builder(new byte[0]).deduplicationKey("move:0123456789abcdef:1").build();
        assertEquals(3, new MovedMessage(keyed, 3, null).attempts());
        assertTrue(new MovedMessage(keyed, 0, "").deadLetter());
        assertEquals("move.message", assertThrows(InvalidInputException.class,
                () -> new MovedMessage(Message.of(new byte[0]), 0, null)).rule(), "a moved message needs its key");
        assertEquals("move.message", assertThrows(InvalidInputException.class, () -> new MovedMessage(null, 0, null)).rule());
        assertEquals("move.attempts", assertThrows(InvalidInputException.class, () -> new MovedMessage(keyed, -1, null)).rule());
        assertEquals("move.reason", assertThrows(InvalidInputException.class, () -> new MovedMessage(keyed, 0, "a\u0000")).rule());

        assertEquals("k", new DeduplicationKey("k", 1, java.time.Duration.ofMillis(1)).key());
        assertEquals("dedupe.length", assertThrows(InvalidInputException.class,
                () -> new DeduplicationKey(null, 1, java.time.Duration.ofMinutes(1))).rule());
        assertEquals("dedupe.length", assertThrows(InvalidInputException.class,
                () -> new DeduplicationKey("", 1, java.time.Duration.ofMinutes(1))).rule());
        assertEquals("move.key-window", assertThrows(InvalidInputException.class,
                () -> new DeduplicationKey("k", 1, java.time.Duration.ZERO)).rule());
        assertEquals("move.key-window", assertThrows(InvalidInputException.class,
                () -> new DeduplicationKey("k", 1, java.time.Duration.ofDays(366))).rule());
    }
}
