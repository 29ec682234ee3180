package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code enqueueAll} on H2, PostgreSQL and MariaDB: the ids it returns belong to the messages in order,
 * also when the backend splits the call into several multi-row inserts (MariaDB and H2: at most
 * {@link SkipLockedProducer#ROWS_PER_INSERT} rows and {@link SkipLockedProducer#BYTES_PER_INSERT} payload
 * bytes per statement), and ids grow with the message order.
 */
class EnqueueAllOnServerTest {
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void idsBelongToTheMessagesInOrderAcrossStatements(SkipLockedDialect d) {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = "ea" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).build();
        QueueName q = QueueName.of("rows");
        try (SqlQueue queue = SqlQueue.open(config)) {
            try {
                List<Message> ms = new ArrayList<>();
                for (int i = 0; i < 250; i++) {
                    // messages 100 to 104 carry 300 KiB each, so the byte bound splits a statement too
                    int size = i >= 100 && i < 105 ? 300 * 1024 : 8 + i % 17;
                    ByteBuffer b = ByteBuffer.allocate(size);
                    b.putInt(i);
                    ms.add(Message.builder(b.array()).header("n", Integer.toString(i)).build());
                }
                List<Long> ids = queue.enqueueAll(q, ms);
                assertEquals(250, ids.size());
                for (int i = 1; i < ids.size(); i++) {
                    assertTrue(ids.get(i) > ids.get(i - 1), d + ": ids grow with the message order at " + i);
                }
                Map<Long, Delivery> byId = new HashMap<>();
                while (byId.size() < 250) {
                    List<Delivery> got = queue.consume(q, ConsumeRequest.of(100));
                    assertTrue(!got.isEmpty(), d + ": all 250 are claimable, got " + byId.size());
                    got.forEach(x -> byId.put(x.id(), x));
                }
                for (int i = 0; i < 250; i++) {
                    Delivery x = byId.get(ids.get(i));
                    assertEquals(Integer.toString(i), x.headers().get("n"), d + ": id " + ids.get(i) + " is message " + i);
                    assertArrayEquals(ms.get(i).payload(), x.payload(), d + ": payload of message " + i);
                }
            } finally {
                queue.dropSchema();
            }
        }
    }

    /**
     * The bytes a multi-row insert sends include the headers: 100 messages of 10 payload bytes and a header of
     * 300,000 characters each made one MariaDB statement of 30 MB, past {@code max_allowed_packet} (16 MiB): error
     * 1153 and a broken connection, reported as "Socket error", for messages each of which enqueues alone.
     */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void largeHeadersSplitAStatementLikeLargePayloads(SkipLockedDialect d) {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = "eh" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).build();
        QueueName q = QueueName.of("heads");
        try (SqlQueue queue = SqlQueue.open(config)) {
            try {
                String big = "h".repeat(300_000);
                List<Message> ms = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    ms.add(Message.builder(new byte[10]).header("big", big).header("n", Integer.toString(i)).build());
                }
                assertEquals(100, queue.enqueueAll(q, ms).size());
                assertEquals(100, queue.stats(q).depth());
            } finally {
                queue.dropSchema();
            }
        }
    }
}
