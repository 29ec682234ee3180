package dev.sqlqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeduplicationKeyTest {
    private static InvalidInputException refused(String key) {
        return assertThrows(InvalidInputException.class, () -> Message.builder(new byte[0]).deduplicationKey(key));
    }

    @Test
    void keysAreValidatedLikeGroups() {
        assertNull(Message.of(new byte[0]).deduplicationKey());
        String max = "k".repeat(Message.MAX_DEDUPLICATION_KEY_LENGTH);
        assertEquals(max, Message.builder(new byte[0]).deduplicationKey(max).build().deduplicationKey());
        assertEquals("a ", Message.builder(new byte[0]).deduplicationKey("a ").build().deduplicationKey(),
                "kept exactly, trailing space included");
        assertEquals("dedupe.length", refused("").rule());
        assertEquals("dedupe.length", refused(max + "k").rule());
        assertEquals("dedupe.length", refused("\uD834\uDD1E".repeat(65)).rule(), "an emoji counts as 2 code units");
        assertEquals("dedupe.text", refused("a\u0000b").rule());
        assertEquals("dedupe.text", refused("a\uD800").rule());
        assertEquals("dedupe.text", refused("\uDC00b").rule());
        assertEquals("\uD834\uDD1E", Message.builder(new byte[0]).deduplicationKey("\uD834\uDD1E").build().deduplicationKey());
    }

    @Test
    void theWindowDefaultsToFiveMinutesAndIsBounded() {
        QueueConfig c = QueueConfig.ofUrl("jdbc:h2:mem:x");
        assertEquals(Duration.ofMinutes(5), c.deduplicationWindow());
        assertEquals(Duration.ofSeconds(2), c.toBuilder().deduplicationWindow(Duration.ofSeconds(2)).build()
                .toBuilder().build().deduplicationWindow());
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1), Duration.ofDays(366)}) {
            assertEquals("dedupe.window", assertThrows(InvalidInputException.class,
                    () -> QueueConfig.builder().deduplicationWindow(bad)).rule());
        }
    }

    @Test
    void anAbsentCapabilityCarriesItsReason() {
        Capabilities caps = new Capabilities("x", EnumSet.of(ClaimMode.LEASE), EnumSet.noneOf(Capability.class),
                Ordering.FIFO_APPROXIMATE, 10, 10).withAbsentReason(Capability.DEDUPLICATION, "no unique index here");
        assertTrue(caps.whyAbsent(Capability.DEDUPLICATION).contains("no unique index here"));
        assertEquals("missing capability: priority", caps.whyAbsent(Capability.PRIORITY));
        Capabilities declared = new Capabilities("x", EnumSet.of(ClaimMode.LEASE), EnumSet.of(Capability.DEDUPLICATION),
                Ordering.FIFO_APPROXIMATE, 10, 10, Map.of(Capability.DEDUPLICATION, "stale"));
        assertEquals(Map.of(), declared.absentReasons(), "a declared feature has no absence reason");
    }
}
