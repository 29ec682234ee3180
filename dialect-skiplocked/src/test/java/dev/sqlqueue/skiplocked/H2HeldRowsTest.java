package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * H2 claims read candidate ids without locks, then lock them by id (docs/backends/h2.md, "FOR UPDATE with
 * a limit"). Rows held by open transactional claims come back as candidates: the backend leaves out the
 * ids it holds itself, and rows another backend holds are skipped in up to four rounds of candidates, each
 * leaving out every id tried so far. Both are done in Java on a candidate read widened by the ids left out.
 */
class H2HeldRowsTest {
    private static QueueConfig config(String db) {
        return QueueConfig.builder().url("jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1").user("sa").password("").build();
    }

    private static List<Long> ids(List<Delivery> ds) {
        return ds.stream().map(Delivery::id).toList();
    }

    private static List<Long> enqueue(SqlQueue queue, QueueName q, int n) {
        List<Message> ms = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ms.add(Message.ofText("m" + i));
        }
        return queue.enqueueAll(q, ms);
    }

    @Test
    void aClaimLeavesOutTheRowsItsOwnBackendHoldsAndTakesTheNextOnes() {
        String db = "held" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
        QueueName q = QueueName.of("held");
        try (SqlQueue queue = SqlQueue.open(config(db))) {
            queue.createQueue(q);
            List<Long> all = enqueue(queue, q, 30);
            List<Delivery> held = new ArrayList<>();
            for (int i = 0; i < 5; i++) { // five open transactional claims of 4: the first 20 held
                held.addAll(queue.consume(q, ConsumeRequest.of(4).withMode(ClaimMode.TRANSACTIONAL)));
            }
            assertEquals(all.subList(0, 20), ids(held));
            // more held rows than four rounds of 5 candidates could skip: only leaving them out finds the next
            List<Delivery> next = queue.consume(q, ConsumeRequest.of(5));
            assertEquals(all.subList(20, 25), ids(next), "the five rows after the held ones, in order");
            List<Delivery> rest = queue.consume(q, ConsumeRequest.of(10).withMode(ClaimMode.TRANSACTIONAL));
            assertEquals(all.subList(25, 30), ids(rest), "what is left: five");
            queue.ackAll(held.stream().map(Delivery::receipt).toList());
            queue.ackAll(next.stream().map(Delivery::receipt).toList());
            queue.ackAll(rest.stream().map(Delivery::receipt).toList());
            assertEquals(0, queue.stats(q).depth());
        }
    }

    @Test
    void rowsAnotherBackendHoldsAreSkippedRoundByRound() {
        String db = "other" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
        QueueName q = QueueName.of("other");
        try (SqlQueue a = SqlQueue.open(config(db)); SqlQueue b = SqlQueue.open(config(db).toBuilder().migrate(false).build())) {
            a.createQueue(q);
            List<Long> all = enqueue(a, q, 20);
            List<Delivery> heldByA = a.consume(q, ConsumeRequest.of(5).withMode(ClaimMode.TRANSACTIONAL));
            assertEquals(all.subList(0, 5), ids(heldByA));
            // b does not know a's held ids: round 1 reads 1-3 (locked), round 2 reads 1-6 and tries 4-6 (6 is
            // free), round 3 reads 1-8 and tries 7-8
            List<Delivery> byB = b.consume(q, ConsumeRequest.of(3));
            assertEquals(List.of(all.get(5), all.get(6), all.get(7)), ids(byB));
            a.ackAll(heldByA.stream().map(Delivery::receipt).toList());
            b.ackAll(byB.stream().map(Delivery::receipt).toList());
            assertEquals(12, a.stats(q).depth());
        }
    }
}
