package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 34: every history row keeps the first {@link HistoryEntry#PREVIEW_BYTES} bytes of its payload, exactly (binary
 * bytes too), whichever statement wrote it: {@code historyById} (transactional claims: ack and dead letter) and
 * {@code historyLeased} (lease claims: ack and dead letter).
 */
class HistoryPreviewOnServerTest {
    static java.util.stream.Stream<SkipLockedTarget> backends() {
        return SchemaVersionOnServerTest.backends();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void everyHistoryRowKeepsThePayloadsFirstBytes(SkipLockedTarget target) {
        String prefix = SchemaVersionOnServerTest.newPrefix("hp");
        byte[] binary = new byte[100];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) (255 - i);
        }
        Map<Long, byte[]> expected = new HashMap<>();
        QueueName q = QueueName.of("jobs");
        try (SqlQueue queue = SqlQueue.open(target.config(prefix).toBuilder().history(true).poolSize(2).build())) {
            queue.createQueue(q);
            // transactional claims, one message each: ack, then dead letter
            for (String text : List.of("tx-acked", "tx-dead")) {
                queue.enqueue(q, Message.ofText(text));
                Delivery d = queue.consume(q, ConsumeRequest.of(1).withMode(ClaimMode.TRANSACTIONAL)).get(0);
                if (text.equals("tx-acked")) {
                    queue.ack(d.receipt());
                } else {
                    queue.deadLetter(d.receipt(), "poison");
                }
                expected.put(d.id(), d.payload());
            }
            // lease claims: a 100-byte binary payload acked (kept: its first 64 bytes), a short one dead-lettered
            long big = queue.enqueue(q, Message.of(binary));
            long small = queue.enqueue(q, Message.ofText("lease-dead"));
            List<Delivery> leased = queue.consume(q, ConsumeRequest.of(2).withLease(Duration.ofSeconds(30)));
            assertEquals(2, leased.size());
            for (Delivery d : leased) {
                if (d.id() == big) {
                    queue.ack(d.receipt());
                } else {
                    queue.deadLetter(d.receipt(), "poison");
                }
            }
            expected.put(big, Arrays.copyOf(binary, HistoryEntry.PREVIEW_BYTES));
            expected.put(small, "lease-dead".getBytes(java.nio.charset.StandardCharsets.UTF_8));

            List<HistoryEntry> rows = queue.history(q, 10);
            assertEquals(4, rows.size(), rows::toString);
            for (HistoryEntry h : rows) {
                assertArrayEquals(expected.get(h.messageId()), h.payloadPreview(), h::toString);
            }
        } finally {
            target.cleanUp(prefix);
        }
    }
}
