package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code stats()} is one snapshot of the queue: a message that moves from the message table to the
 * dead-letter table and the history (dead-letter with history) or to the history (ack with history) while
 * stats are read is counted in flight or settled, never both and never neither. Before, the counts came
 * from three statements, each with its own snapshot at READ COMMITTED, so a move committed between them
 * was counted twice (the Micrometer test saw in-flight 1 beside dead letters 2, CI of 2026-12-01).
 */
class StatsSnapshotOnServerTest {
    private static final int MESSAGES = 300;

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void aMessageMovingToTheDeadLettersOrTheHistoryIsCountedOnce(SkipLockedDialect d) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).history(true)
                .tablePrefix("ss" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_").build();
        QueueName q = QueueName.of("snap");
        try (SqlQueue queue = SqlQueue.open(config)) {
            try {
                queue.createQueue(q);
                List<Message> batch = new ArrayList<>();
                for (int i = 0; i < MESSAGES; i++) {
                    batch.add(Message.ofText("m" + i));
                }
                queue.enqueueAll(q, batch);
                List<Delivery> held = new ArrayList<>();
                while (held.size() < MESSAGES) {
                    held.addAll(queue.consume(q, ConsumeRequest.of(100).withLease(Duration.ofMinutes(10))
                            .withWait(Duration.ofSeconds(5))));
                }
                // one at a time, so each move commits on its own while stats are read beside it
                CompletableFuture<Void> mover = CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < held.size(); i++) {
                        if (i % 2 == 0) {
                            queue.deadLetter(held.get(i).receipt(), "poison");
                        } else {
                            queue.ack(held.get(i).receipt());
                        }
                    }
                });
                int samples = 0;
                List<String> wrong = new ArrayList<>();
                while (!mover.isDone() || samples == 0) {
                    QueueStats st = queue.stats(q);
                    samples++;
                    // with history, every settled message has a history row (acked or dead-lettered); the
                    // moves alternate dead-letter, ack, ... one at a time, so after k of them ceil(k / 2) are dead
                    long queued = st.ready() + st.inFlight() + st.delayed();
                    if (queued + st.processed() != MESSAGES || st.dead() != (st.processed() + 1) / 2) {
                        wrong.add(st.toString());
                    }
                }
                mover.get(60, TimeUnit.SECONDS);
                assertTrue(wrong.isEmpty(), d + ": " + wrong.size() + " of " + samples
                        + " samples did not count each of " + MESSAGES + " messages once, e.g. " + wrong.stream().limit(3).toList());
                QueueStats end = queue.stats(q);
                assertEquals(MESSAGES / 2, end.dead(), "dead letters at the end");
                assertEquals(MESSAGES, end.processed(), "processed at the end: acked and dead-lettered");
                assertEquals(0, end.inFlight() + end.ready() + end.delayed(), "nothing left in the queue");
            } finally {
                queue.dropSchema();
            }
        }
    }
}
