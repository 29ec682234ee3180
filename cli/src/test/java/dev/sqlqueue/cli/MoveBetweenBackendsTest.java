package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.HeldForMove;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.MoveOptions;
import dev.sqlqueue.MovedMessage;
import dev.sqlqueue.MoveReport;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueMover;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The move (issue 35) between every two backends that run here, through {@link QueueMover} on real databases:
 * payload bytes, headers, priority, group order, attempts and remaining delay arrive, and so do dead letters (payload,
 * headers, attempts, reason); a consumer's lease stays on the source and is counted; a second run moves nothing; a run after a mover died between its two
 * transactions, or while it held messages, finishes the job with every message on the target once.
 */
class MoveBetweenBackendsTest {
    @TempDir
    Path dir;

    private QueueConfig config(String db) {
        return QueueConfig.builder().url(Cli.on(db, dir).url()).build();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"h2, postgresql", "h2, mariadb", "postgresql, h2", "postgresql, mariadb", "mariadb, h2", "mariadb, postgresql"})
    void aQueueMovesWithEverythingItCarries(String from, String to) {
        QueueName queue = QueueName.of(Cli.uniqueQueue("move"));
        int deadAttempts;
        byte[] allBytes = new byte[256];
        for (int i = 0; i < 256; i++) {
            allBytes[i] = (byte) i;
        }
        List<HistoryEntry> history;
        try (SqlQueue source = SqlQueue.open(config(from).toBuilder().history(true).build())) {
            source.createQueue(queue);
            // a producer's key whose message was processed on the source: still in its window
            source.enqueueDeduplicated(queue, Message.builder("done".getBytes(StandardCharsets.UTF_8)).deduplicationKey("order-0").build());
            source.ack(source.consume(queue, ConsumeRequest.of(1)).get(0).receipt());
            source.enqueue(queue, Message.builder("dead".getBytes(StandardCharsets.UTF_8)).header("why", "bad ✗").build());
            Delivery poison = source.consume(queue, ConsumeRequest.of(1)).get(0);
            source.nack(poison.receipt(), Duration.ZERO, "first try");
            source.deadLetter(source.consume(queue, ConsumeRequest.of(1)).get(0).receipt(), "poison ☠");
            deadAttempts = source.deadLetters(queue, 10).get(0).attempts();
            source.enqueue(queue, Message.builder(allBytes).header("ключ", "значение ✓").header("k2", "").priority(7).build());
            // the priority message fails once on the source: it arrives with that attempt counted
            Delivery once = source.consume(queue, ConsumeRequest.of(1)).get(0);
            assertEquals(256, once.payload().length, "set-up: the priority message is claimed first");
            source.nack(once.receipt(), Duration.ZERO, "transient");
            source.enqueueDeduplicated(queue, Message.builder(new byte[0]).deduplicationKey("order-1").build());
            for (int i = 1; i <= 3; i++) {
                source.enqueue(queue, Message.builder(("g" + i).getBytes(StandardCharsets.UTF_8)).group("g").build());
            }
            source.enqueue(queue, Message.builder("later".getBytes(StandardCharsets.UTF_8)).delay(Duration.ofHours(1)).build());
            source.enqueue(queue, Message.ofText("leased"));
            // a consumer holds the newest message: taken as the only one visible that is not a group's follower
            List<Delivery> held = List.of();
            for (int i = 0; i < 10 && held.isEmpty(); i++) {
                List<Delivery> got = source.consume(queue, ConsumeRequest.of(100).withLease(Duration.ofMinutes(10)));
                for (Delivery d : got) {
                    if (d.text().equals("leased")) {
                        held = List.of(d);
                    } else {
                        source.release(d.receipt());
                    }
                }
            }
            assertEquals(1, held.size(), "set-up: a consumer holds 'leased'");
            history = source.history(queue, 10);
            assertEquals(List.of("dead-lettered", "acked"), history.stream().map(HistoryEntry::outcome).toList(),
                    "set-up: an acked and a dead-lettered history row");
        }

        MoveReport report;
        try (QueueMover mover = QueueMover.open(config(from), config(to))) {
            assertEquals(2, mover.move(queue, MoveOptions.defaults().withHistory(true).withDryRun(true), null).historyMoved(),
                    "a dry run counts the history rows");
            report = mover.move(queue, MoveOptions.defaults().withBatch(2).withHistory(true), null);
        }
        assertEquals(2, report.historyMoved(), report::toString);
        assertEquals(6, report.moved(), report::toString);
        assertEquals(0, report.alreadyOnTarget());
        assertEquals(1, report.leftInFlight(), "the consumer's lease is left");
        assertEquals(1, report.deadLettersMoved(), report::toString);
        assertEquals(0, report.deadLettersLeft(), report::toString);

        try (SqlQueue target = SqlQueue.open(config(to)); SqlQueue source = SqlQueue.open(config(from))) {
            QueueStats s = source.stats(queue);
            assertEquals(0, s.ready() + s.delayed(), "only the leased message is left on the source: " + s);
            assertEquals(1, s.inFlight());
            QueueStats t = target.stats(queue);
            assertEquals(5, t.ready(), t.toString());
            assertEquals(1, t.delayed(), "the delayed message is still delayed on the target");
            // the producer's keys still in their window came along: enqueuing them again on the target is deduplicated
            EnqueueResult again1 = target.enqueueDeduplicated(queue, Message.builder(new byte[0]).deduplicationKey("order-1").build());
            EnqueueResult again0 = target.enqueueDeduplicated(queue, Message.builder("done".getBytes(StandardCharsets.UTF_8)).deduplicationKey("order-0").build());
            assertTrue(again1.duplicate() && again0.duplicate(), again1 + " " + again0);
            assertEquals(2, report.deduplicationKeysMoved(), report::toString);
            List<Delivery> got = drain(target, queue);
            assertEquals(got.get(1).id(), again1.id(), "the key stands for the moved message on the target");
            assertEquals(List.of("\u0000", "", "g1", "g2", "g3"), got.stream().map(d -> d.payload().length == 256 ? "\u0000" : d.text()).toList(),
                    "priority first, the group in order");
            assertArrayEquals(allBytes, got.get(0).payload());
            assertEquals(Map.of("ключ", "значение ✓", "k2", ""), got.get(0).headers());
            assertEquals(7, got.get(0).priority());
            assertEquals(2, got.get(0).attempt(), "its failed delivery on the source is counted on the target");
            assertEquals(1, got.get(1).attempt(), "a message never delivered starts at the first delivery");
            assertEquals("g", got.get(2).group());
            assertEquals(0, s.dead(), "the dead letter left the source");
            List<DeadLetter> dead = target.deadLetters(queue, 10);
            assertEquals(1, dead.size(), "the dead letter is on the target: " + dead);
            assertEquals("dead", new String(dead.get(0).payload(), StandardCharsets.UTF_8));
            assertEquals(Map.of("why", "bad ✗"), dead.get(0).headers());
            assertEquals("poison ☠", dead.get(0).reason());
            assertEquals(deadAttempts, dead.get(0).attempts());
            assertTrue(deadAttempts >= 2, "set-up: two deliveries before the dead letter, was " + deadAttempts);
            // the history rows arrive with their message ids, times, attempts, outcome and detail, and leave the source
            assertEquals(history, target.history(queue, 10));
            assertEquals(List.of(), source.history(queue, 10), "the moved history left the source");
        }
        try (QueueMover again = QueueMover.open(config(from), config(to))) {
            MoveReport second = again.move(queue, MoveOptions.defaults(), null);
            assertEquals(0, second.moved() + second.alreadyOnTarget(), second.toString());
            // the shared servers keep no queue of this test
            again.source().dropQueue(queue);
            again.target().dropQueue(queue);
        }
    }

    /** Consume and ack everything visible, in delivery order (a group delivers one message per claim). */
    private static List<Delivery> drain(SqlQueue q, QueueName queue) {
        List<Delivery> all = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            List<Delivery> got = q.consume(queue, ConsumeRequest.of(1));
            if (got.isEmpty()) {
                break;
            }
            all.addAll(got);
            q.ackAll(got.stream().map(Delivery::receipt).toList());
        }
        return all;
    }

    @Test
    void aRunAfterAMoverDiedFinishesTheJobOnce() {
        QueueName queue = QueueName.of("resume");
        QueueConfig from = QueueConfig.builder().url("jdbc:h2:file:" + dir.resolve("from") + ";AUTO_SERVER=TRUE").build();
        QueueConfig to = QueueConfig.builder().url("jdbc:h2:file:" + dir.resolve("to") + ";AUTO_SERVER=TRUE").build();
        try (SqlQueue source = SqlQueue.open(from.toBuilder().history(true).build()); SqlQueue target = SqlQueue.open(to)) {
            for (int i = 0; i < 10; i++) {
                source.enqueue(queue, Message.builder(("m" + i).getBytes(StandardCharsets.UTF_8)).delay(i == 9 ? Duration.ofHours(2) : Duration.ZERO).build());
            }
            // a mover that died after its enqueue on the target: messages m0, m1 are on both databases
            List<HeldForMove> first = source.claimForMove(queue, 2, Duration.ofMinutes(10));
            QueueMover keys = new QueueMover(source, target, QueueMover.sourceIdentity(from));
            target.createQueue(queue);
            for (HeldForMove h : first) {
                target.enqueueDeduplicated(queue, Message.builder(h.payload()).deduplicationKey(keys.keyOf(h.id())).build());
            }
            // and two dead letters: one a mover wrote on the target before it died, one not moved yet
            source.enqueue(queue, Message.ofText("d1"));
            source.enqueue(queue, Message.ofText("d2"));
            for (Delivery d : source.consume(queue, ConsumeRequest.of(10))) {
                if (d.text().startsWith("d")) {
                    source.deadLetter(d.receipt(), "bad " + d.text());
                } else {
                    source.release(d.receipt());
                }
            }
            DeadLetter d1 = source.deadLetters(queue, 10).get(0);
            assertEquals("d1", new String(d1.payload(), StandardCharsets.UTF_8));
            target.enqueueMoved(queue, List.of(new MovedMessage(Message.builder(d1.payload())
                    .deduplicationKey(keys.keyOf(d1.messageId())).build(), d1.attempts(), d1.reason())));
            // and the history rows of d1 and d2: a mover wrote d1's on the target and died before it deleted it on the source
            List<dev.sqlqueue.HistoryRow> rows = source.historyForMove(queue, 10);
            assertEquals(List.of("bad d1", "bad d2"), rows.stream().map(r -> r.entry().detail()).toList(), "oldest first");
            assertEquals(1, target.enqueueMovedHistory(queue, List.of(rows.get(0).entry())));
            assertEquals(0, target.enqueueMovedHistory(queue, List.of(rows.get(0).entry())), "a row the target has is not written twice");
            // bad input to the move's target ports names its rule and writes nothing
            long deadBefore = target.stats(queue).dead();
            long depthBefore = target.stats(queue).depth();
            assertEquals("move.max-messages", assertThrows(InvalidInputException.class,
                    () -> target.enqueueMoved(queue, List.of())).rule());
            assertEquals("payload.max-size", assertThrows(InvalidInputException.class, () -> target.enqueueMoved(queue,
                    List.of(new MovedMessage(Message.builder("ok".getBytes(StandardCharsets.UTF_8)).deduplicationKey("bad-1").build(), 0, null),
                            new MovedMessage(Message.builder(new byte[target.capabilities().maxPayloadBytes() + 1])
                                    .deduplicationKey("bad-2").build(), 0, "too big")))).rule());
            assertEquals("move.max-messages", assertThrows(InvalidInputException.class,
                    () -> target.enqueueMovedKeys(queue, List.of(), null)).rule());
            assertEquals("limit.range", assertThrows(InvalidInputException.class,
                    () -> source.deduplicationKeys(queue, null, 0)).rule());
            assertEquals("move.max-messages", assertThrows(InvalidInputException.class,
                    () -> target.enqueueMovedHistory(queue, List.of())).rule());
            assertEquals("limit.range", assertThrows(InvalidInputException.class,
                    () -> source.historyForMove(queue, 0)).rule());
            assertEquals(depthBefore, target.stats(queue).depth(), "nothing written");
            assertEquals(deadBefore, target.stats(queue).dead());
            assertFalse(target.deduplicationKeys(queue, null, 1000).stream().anyMatch(k -> k.key().startsWith("bad-")),
                    "the refused batch took no key");
            // and one that died holding m0..m4 (a move claim takes over the holds of another)
            List<HeldForMove> second = source.claimForMove(queue, 5, Duration.ofMinutes(10));
            assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), second.stream()
                    .map(h -> new String(h.payload(), StandardCharsets.UTF_8)).toList());
            List<Delivery> visible = source.consume(queue, ConsumeRequest.of(10));
            visible.forEach(d -> source.release(d.receipt()));
            assertEquals(List.of("m5", "m6", "m7", "m8"), visible.stream().map(Delivery::text).sorted().toList(),
                    "held messages are hidden from consumers");
        }
        // consumers above took m5..m8 and the releases put them back; now run the mover again
        MoveReport report;
        try (QueueMover mover = QueueMover.open(from, to)) {
            report = mover.move(queue, MoveOptions.defaults().withHistory(true), null);
        }
        assertEquals(2, report.alreadyOnTarget(), report::toString);
        assertEquals(2, report.historyMoved(), "d1's found on the target and deleted from the source, d2's moved");
        assertEquals(8, report.moved());
        assertEquals(2, report.deadLettersMoved(), "d1 found on the target and removed from the source, d2 moved");
        try (SqlQueue source = SqlQueue.open(from); SqlQueue target = SqlQueue.open(to)) {
            assertEquals(0, source.stats(queue).depth(), "nothing left on the source");
            assertEquals(0, source.stats(queue).dead(), "no dead letter left on the source");
            assertEquals(List.of("bad d1", "bad d2"), target.deadLetters(queue, 10).stream().map(DeadLetter::reason).toList(),
                    "each dead letter once on the target");
            assertEquals(List.of("bad d2", "bad d1"), target.history(queue, 10).stream().map(HistoryEntry::detail).toList(),
                    "each history row once on the target, in its order");
            assertEquals(List.of(), source.history(queue, 10), "no history left on the source");
            QueueStats t = target.stats(queue);
            assertEquals(9, t.ready(), t.toString());
            assertEquals(1, t.delayed());
            Map<String, Integer> seen = new HashMap<>();
            drain(target, queue).forEach(d -> seen.merge(d.text(), 1, Integer::sum));
            assertEquals(9, seen.size());
            assertTrue(seen.values().stream().allMatch(n -> n == 1), seen::toString);
        }
    }

    /**
     * A source without {@link dev.sqlqueue.Capability#MOVE_CLAIM} (Service Broker, Teradata
     * declare none): its ready messages move by ordinary claims, its delayed ones are left and counted. The H2 backend
     * stands in, with the capability taken away.
     */
    @Test
    void aSourceWithoutMoveClaimsMovesItsReadyMessagesByClaims() {
        QueueName queue = QueueName.of("plain");
        QueueConfig from = QueueConfig.builder().url("jdbc:h2:file:" + dir.resolve("from") + ";AUTO_SERVER=TRUE").build();
        QueueConfig to = QueueConfig.builder().url("jdbc:h2:file:" + dir.resolve("to") + ";AUTO_SERVER=TRUE").build();
        dev.sqlqueue.spi.QueueBackend raw = dev.sqlqueue.spi.BackendDiscovery.find(from).open(from);
        dev.sqlqueue.Capabilities caps = raw.capabilities();
        java.util.Set<dev.sqlqueue.Capability> less = java.util.EnumSet.copyOf(caps.features());
        less.remove(dev.sqlqueue.Capability.MOVE_CLAIM);
        dev.sqlqueue.Capabilities without = new dev.sqlqueue.Capabilities(caps.backend(), caps.claimModes(), less,
                caps.ordering(), caps.maxPayloadBytes(), caps.maxClaimBatch());
        try (SqlQueue source = SqlQueue.wrap(new dev.sqlqueue.spi.ForwardingQueueBackend(raw) {
                @Override
                public dev.sqlqueue.Capabilities capabilities() {
                    return without;
                }
            }, from); SqlQueue target = SqlQueue.open(to)) {
            for (int i = 0; i < 5; i++) {
                source.enqueue(queue, Message.builder(("p" + i).getBytes(StandardCharsets.UTF_8)).header("n", "" + i).build());
            }
            source.enqueue(queue, Message.builder("later".getBytes(StandardCharsets.UTF_8)).delay(Duration.ofHours(1)).build());
            MoveReport report = new QueueMover(source, target, QueueMover.sourceIdentity(from))
                    .move(queue, MoveOptions.defaults().withBatch(2), null);
            assertEquals(5, report.moved(), report::toString);
            assertEquals(1, report.leftDelayed());
            assertEquals(1, source.stats(queue).delayed());
            assertEquals(0, source.stats(queue).ready() + source.stats(queue).inFlight());
            List<Delivery> got = drain(target, queue);
            assertEquals(List.of("p0", "p1", "p2", "p3", "p4"), got.stream().map(Delivery::text).toList());
            assertEquals("3", got.get(3).headers().get("n"));
            assertEquals(1, got.get(0).attempt(), "a claim on the target counts from 1 again");
        }
    }

    /**
     * A paused queue (QueueAdmin.pause, issue 33) moves as it is: its messages move, and the target's queue is paused
     * too, so that the target's consumers do not take them before someone resumes it (issue 35, "its settings").
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"h2, postgresql"})
    void aPausedQueueMovesAndStaysPaused(String from, String to) {
        QueueName queue = QueueName.of(Cli.uniqueQueue("paused"));
        try (SqlQueue source = SqlQueue.open(config(from)); SqlQueue target = SqlQueue.open(config(to))) {
            try {
                source.createQueue(queue);
                source.enqueue(queue, Message.ofText("waits"));
                assertTrue(source.pause(queue));
                MoveReport report;
                try (QueueMover mover = QueueMover.open(config(from), config(to))) {
                    report = mover.move(queue, MoveOptions.defaults(), null);
                }
                assertEquals(1, report.moved(), report::toString);
                assertTrue(target.isPaused(queue), "the target's queue is paused as the source's was: " + report);
                assertEquals(List.of(), target.consume(queue, ConsumeRequest.of(10)), "held by the pause");
                target.resume(queue);
                assertEquals(List.of("waits"), drain(target, queue).stream().map(Delivery::text).toList());
            } finally {
                target.dropQueue(queue);
                source.dropQueue(queue);
            }
        }
    }
}
