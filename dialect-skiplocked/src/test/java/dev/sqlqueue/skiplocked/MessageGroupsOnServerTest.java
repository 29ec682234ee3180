package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Group names are compared exactly on every database (C22 covers order and exclusivity). */
class MessageGroupsOnServerTest {
    /** A fresh table prefix on the database of {@code d}. */
    private static QueueConfig config(SkipLockedDialect d) {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        return QueueConfig.builder().url(s.url()).user(s.user()).password(s.password())
                .tablePrefix("mg" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_").build();
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void groupsThatDifferOnlyInTrailingSpacesOrCaseAreDifferentGroups(SkipLockedDialect d) {
        QueueConfig config = config(d);
        QueueName q = QueueName.of("groups");
        try (SqlQueue queue = SqlQueue.open(config)) {
            try {
                queue.createQueue(q);
                for (String g : List.of("G", "G ", "g", "G\u0301")) {
                    queue.enqueue(q, Message.builder(g.getBytes(StandardCharsets.UTF_8)).group(g).build());
                }
                List<Delivery> got = queue.consume(q, ConsumeRequest.of(10).withWait(Duration.ofSeconds(5)));
                Set<String> groups = got.stream().map(Delivery::group).collect(Collectors.toSet());
                assertEquals(Set.of("G", "G ", "g", "G\u0301"), groups, d + ": the head of each of four groups, in one claim");
                got.forEach(x -> assertEquals(x.group(), x.text(), "the group comes back exactly as sent"));
            } finally {
                queue.dropSchema();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void aDeadLetterKeepsItsGroupAndRequeueAppendsItToTheGroup(SkipLockedDialect d) {
        QueueConfig config = config(d);
        QueueName q = QueueName.of("dead");
        try (SqlQueue queue = SqlQueue.open(config)) {
            try {
                queue.createQueue(q);
                queue.enqueue(q, Message.builder(new byte[] {1}).group("order-9").build());
                queue.enqueue(q, Message.builder(new byte[] {2}).group("order-9").build());
                Delivery first = queue.consume(q, ConsumeRequest.of(10).withWait(Duration.ofSeconds(5))).get(0);
                queue.deadLetter(first.receipt(), "bad");
                assertEquals("order-9", queue.deadLetters(q, 10).get(0).group(), d + ": the dead letter shows its group");
                Delivery second = queue.consume(q, ConsumeRequest.of(10).withWait(Duration.ofSeconds(5))).get(0);
                assertEquals(2, second.payload()[0], "the group went on past its dead letter");
                queue.requeueDeadLetters(q, List.of(first.id()));
                assertEquals(List.of(), queue.consume(q, ConsumeRequest.of(10).withWait(Duration.ofMillis(300))),
                        "the requeued message waits: the second is still in hand");
                queue.ack(second.receipt());
                Delivery again = queue.consume(q, ConsumeRequest.of(10).withWait(Duration.ofSeconds(5))).get(0);
                assertEquals(1, again.payload()[0], "the requeued message");
                assertTrue(again.id() > second.id(), "a new id, at the tail of its group (its old id would make it "
                        + "older than a message of the group already in hand)");
                assertEquals("order-9", again.group(), "requeue puts it back in its group");
                queue.ack(again.receipt());
            } finally {
                queue.dropSchema();
            }
        }
    }
}
