package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.TransientBackendException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Message groups (C22, beyond the shared list of C01..C21): strict one-at-a-time order within a
 * {@link Message#group()}, while other groups go on. Runs only where {@link Capability#MESSAGE_GROUPS}
 * is declared.
 */
public interface GroupCases extends SuiteContext {
    /** C22's message groups. */
    int GROUPS = 3;
    /** C22's messages per group. */
    int PER_GROUP = 20;

    private static Message member(String group, int index) {
        return Message.builder((group + ":" + index).getBytes(StandardCharsets.UTF_8)).group(group).build();
    }

    private static int indexOf(Delivery d) {
        String text = d.text();
        return Integer.parseInt(text.substring(text.indexOf(':') + 1));
    }

    /**
     * C22: 3 groups x 20 messages: while one consumer holds a group's first message, another consumer gets
     * only other groups (and does get them); then four concurrent consumers receive every group in enqueue
     * order, each message once.
     *
     * <p>Guards against "ordered" processing that runs two messages of one customer at once, or one group
     * blocking every other.
     *
     * @throws Exception from the backend or the case's own threads when they fail in a way the case
     *     does not expect; it fails the case (a failed check throws an {@link AssertionError} instead)
     */
    @Test
    @DisplayName("C22 message groups")
    default void c22MessageGroups() throws Exception {
        requires(Capability.MESSAGE_GROUPS);
        QueueName q = newQueue("c22");
        List<String> groups = List.of("g-a", "g-b", "g-c");
        List<Message> batch = new ArrayList<>();
        for (int i = 0; i < PER_GROUP; i++) {
            for (String g : groups) {
                batch.add(member(g, i));
            }
        }
        queue().enqueueAll(q, batch);

        // while one consumer holds a group's head, another consumer gets other groups only
        Delivery held = consumeOne(queue(), q, Duration.ofSeconds(10));
        String heldGroup = held.group();
        assertEquals(0, indexOf(held), "the first delivery of a group is its first message");
        SqlQueue other = openAnother();
        List<Delivery> meanwhile = new ArrayList<>();
        for (int round = 0; round < 6; round++) {
            List<Delivery> got = other.consume(q, claim(1).withWait(Duration.ofMillis(500)));
            for (Delivery d : got) {
                assertTrue(!heldGroup.equals(d.group()), "a message of group " + heldGroup + " (" + d.text()
                        + ") was delivered while its head was held by another consumer");
                meanwhile.add(d);
            }
            other.ackAll(got.stream().map(Delivery::receipt).toList());
        }
        assertTrue(!meanwhile.isEmpty(), "other groups went on while one group's head was held");
        Map<String, AtomicInteger> next = new ConcurrentHashMap<>();
        groups.forEach(g -> next.put(g, new AtomicInteger()));
        next.get(heldGroup).set(1);
        for (Delivery d : meanwhile) {
            assertEquals(next.get(d.group()).getAndIncrement(), indexOf(d), "order within group " + d.group());
        }
        queue().ack(held.receipt());

        // the rest with four concurrent consumers: each group still comes out in order, exactly once,
        // and never two of one group in hand at the same time
        int left = GROUPS * PER_GROUP - 1 - meanwhile.size();
        AtomicInteger acked = new AtomicInteger();
        List<String> errors = new CopyOnWriteArrayList<>();
        Set<String> inHand = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                SqlQueue client = t == 0 ? queue() : openAnother();
                running.add(pool.submit(() -> {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (acked.get() < left && System.nanoTime() < until) {
                        List<Delivery> got;
                        try {
                            got = client.consume(q, claim(1).withWait(Duration.ofMillis(300)));
                        } catch (TransientBackendException e) {
                            continue; // a deadlock victim or lost connection: try again, as a worker would
                        }
                        for (Delivery d : got) {
                            if (!inHand.add(d.group())) {
                                errors.add("group " + d.group() + ": " + d.text() + " delivered while another of the group was in hand");
                            }
                            int want = next.get(d.group()).getAndIncrement();
                            if (indexOf(d) != want) {
                                errors.add("group " + d.group() + ": got " + d.text() + ", expected index " + want);
                            }
                            pause(5); // hold it a moment, so that a second delivery of the group would overlap
                            inHand.remove(d.group()); // before the ack: a next delivery after the commit is fine
                            client.ack(d.receipt());
                            acked.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), errors, "per-group order under four consumers");
        assertEquals(left, acked.get(), "every message acked exactly once");
        for (String g : groups) {
            assertEquals(PER_GROUP, next.get(g).get(), "all of group " + g);
        }
        assertTrue(queue().consume(q, claim(1).withWait(Duration.ofMillis(300))).isEmpty(), "nothing left");
    }
}
