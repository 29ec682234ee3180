package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void groupsThatDifferOnlyInTrailingSpacesOrCaseAreDifferentGroups(SkipLockedDialect d) {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password())
                .tablePrefix("mg" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_").build();
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
}
