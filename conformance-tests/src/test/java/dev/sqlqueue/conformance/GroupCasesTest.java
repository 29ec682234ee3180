package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.Ordering;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.spi.QueueBackend;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * Checks the C22 case itself, since no backend that runs on the project's machines declares message
 * groups (only {@code sqlserver-broker}, which needs a SQL Server): the case passes on an in-memory
 * queue that keeps groups one at a time and in order, and fails on one that ignores groups. The
 * in-memory queue is a test double of a backend for this purpose only; it is not a sqlqueue backend.
 */
class GroupCasesTest {
    /** Messages of every queue, in enqueue order; guarded by itself. */
    private static final class Store {
        record Stored(long id, byte[] payload, String group) {
        }

        final Map<QueueName, List<Stored>> queues = new LinkedHashMap<>();
        final Set<Long> inHand = new HashSet<>();
        final AtomicLong ids = new AtomicLong();
        final boolean honourGroups;

        Store(boolean honourGroups) {
            this.honourGroups = honourGroups;
        }

        synchronized List<Delivery> consume(QueueName q, ConsumeRequest r) {
            List<Delivery> out = new ArrayList<>();
            Set<String> blocked = new HashSet<>();
            for (Stored m : queues.getOrDefault(q, List.of())) {
                if (out.size() >= r.maxMessages()) {
                    break;
                }
                boolean held = inHand.contains(m.id());
                if (honourGroups && m.group() != null && !blocked.add(m.group())) {
                    continue; // not the first unacked message of its group
                }
                if (held) {
                    continue;
                }
                inHand.add(m.id());
                out.add(new Delivery(new Receipt(q, m.id(), m.id(), r.mode()), m.payload(), Map.of(), 1, 0, Instant.EPOCH,
                        m.group()));
            }
            return out;
        }

        synchronized void ack(Receipt r) {
            queues.get(r.queue()).removeIf(m -> m.id() == r.messageId());
            inHand.remove(r.messageId());
        }

        QueueBackend backend() {
            Capabilities caps = new Capabilities("test-memory", EnumSet.of(ClaimMode.TRANSACTIONAL),
                    EnumSet.of(Capability.MESSAGE_GROUPS), Ordering.PER_GROUP, 1 << 20, 100);
            return (QueueBackend) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {QueueBackend.class},
                    (p, m, a) -> switch (m.getName()) {
                        case "capabilities" -> caps;
                        case "waitsInConsume" -> false;
                        case "onWakeup", "close", "migrate" -> null;
                        case "createQueue" -> {
                            synchronized (this) {
                                queues.computeIfAbsent((QueueName) a[0], k -> new ArrayList<>());
                            }
                            yield null;
                        }
                        case "enqueueAll" -> {
                            List<Long> got = new ArrayList<>();
                            synchronized (this) {
                                for (Object o : (List<?>) a[1]) {
                                    Message msg = (Message) o;
                                    long id = ids.incrementAndGet();
                                    queues.get((QueueName) a[0]).add(new Stored(id, msg.payload(), msg.group()));
                                    got.add(id);
                                }
                            }
                            yield got;
                        }
                        case "consume" -> consume((QueueName) a[0], (ConsumeRequest) a[1]);
                        case "ack" -> {
                            ack((Receipt) a[0]);
                            yield null;
                        }
                        case "ackAll" -> {
                            for (Object o : (Collection<?>) a[0]) {
                                ack((Receipt) o);
                            }
                            yield Set.of();
                        }
                        case "toString" -> "test-memory";
                        case "hashCode" -> System.identityHashCode(p);
                        case "equals" -> p == a[0];
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }
    }

    private static final class Context implements GroupCases {
        private final Store store;
        private final QueueConfig config = QueueConfig.builder().url("jdbc:test-memory:c22").backend("test-memory").build();
        private final List<SqlQueue> opened = new CopyOnWriteArrayList<>();
        private final SqlQueue main;

        Context(Store store) {
            this.store = store;
            this.main = openAnother();
        }

        @Override
        public SqlQueue queue() {
            return main;
        }

        @Override
        public QueueConfig config() {
            return config;
        }

        @Override
        public FaultHooks hooks() {
            return new FaultHooks() {
            };
        }

        @Override
        public ClaimMode claimMode() {
            return ClaimMode.TRANSACTIONAL;
        }

        @Override
        public SqlQueue openAnother() {
            return openAnother(config);
        }

        @Override
        public SqlQueue openAnother(QueueConfig c) {
            SqlQueue q = SqlQueue.wrap(store.backend(), c);
            opened.add(q);
            return q;
        }

        void close() {
            opened.forEach(SqlQueue::close);
        }
    }

    private Context context;

    @AfterEach
    void close() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void passesOnAQueueThatKeepsGroupsOneAtATimeInOrder() throws Exception {
        context = new Context(new Store(true));
        context.c22MessageGroups();
    }

    @Test
    void failsOnAQueueThatIgnoresGroups() {
        context = new Context(new Store(false));
        AssertionFailedError e = assertThrows(AssertionFailedError.class, context::c22MessageGroups);
        assertTrue(e.getMessage().contains("was delivered while its head was held by another consumer"), e.getMessage());
    }
}
