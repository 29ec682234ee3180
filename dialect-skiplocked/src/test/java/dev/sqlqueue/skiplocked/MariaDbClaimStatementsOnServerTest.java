package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.AckedAndClaimed;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * On MariaDB the statements the server runs for a lease claim and for the acks of a claim do not grow with the
 * claim's size (issue 32): the claim is its locking select and one lease update of the ids it locked, the acks
 * one delete of the claim's ids, and {@code ackAllAndConsume} the two. A JDBC batch counts one
 * server statement per row it holds. Counted on the shared server with 50 messages (about 2 s).
 */
class MariaDbClaimStatementsOnServerTest {
    /** Statements the server runs (each executed statement, each row of a batch) and commits, through the pool. */
    static final class Counts {
        final AtomicInteger statements = new AtomicInteger();
        final AtomicInteger commits = new AtomicInteger();

        void reset() {
            statements.set(0);
            commits.set(0);
        }

        DataSource wrap(DataSource ds) {
            return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                    (p, m, a) -> {
                        Object r = invoke(ds, m, a);
                        return m.getName().equals("getConnection") ? connection((Connection) r) : r;
                    });
        }

        private Connection connection(Connection c) {
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (p, m, a) -> {
                        if (m.getName().equals("commit")) {
                            commits.incrementAndGet();
                        }
                        Object r = invoke(c, m, a);
                        return m.getName().equals("prepareStatement") ? statement((PreparedStatement) r) : r;
                    });
        }

        private PreparedStatement statement(PreparedStatement ps) {
            return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {PreparedStatement.class},
                    (p, m, a) -> {
                        String n = m.getName();
                        if (n.equals("addBatch") || ((n.equals("execute") || n.equals("executeQuery") || n.equals("executeUpdate"))
                                && (a == null || a.length == 0))) {
                            statements.incrementAndGet();
                        }
                        return invoke(ps, m, a);
                    });
        }

        private static Object invoke(Object target, java.lang.reflect.Method m, Object[] a) throws Throwable {
            try {
                return m.invoke(target, a);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    @Test
    void aClaimAndItsAcksAreAFewStatementsWhateverTheirSize() throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(SkipLockedDialect.MARIADB);
        Counts counts = new Counts();
        String prefix = "mcs" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix)
                .dataSourceWrapper(counts::wrap).build();
        QueueName q = QueueName.of("sizes");
        try (SqlQueue queue = SqlQueue.open(config)) {
            try {
                queue.createQueue(q);
                List<Message> fifty = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    fifty.add(Message.ofText("m" + i));
                }
                queue.enqueueAll(q, fifty);
                ConsumeRequest twenty = ConsumeRequest.of(20).withLease(Duration.ofMinutes(5));

                counts.reset();
                List<Delivery> first = queue.consume(q, twenty);
                assertEquals(20, first.size());
                assertEquals(2, counts.statements.get(), "the claim of 20: the locking select and one lease update");
                assertEquals(1, counts.commits.get());

                counts.reset();
                AckedAndClaimed next = queue.ackAllAndConsume(first.stream().map(Delivery::receipt).toList(), q, twenty);
                assertEquals(Set.of(), next.lost());
                assertEquals(20, next.claimed().size());
                assertEquals(3, counts.statements.get(), "the acks of 20 (one delete), then the select and the lease update");
                assertEquals(2, counts.commits.get(), "the acks' transaction, then the claim's");

                counts.reset();
                assertEquals(Set.of(), queue.ackAll(next.claimed().stream().map(Delivery::receipt).toList()));
                assertEquals(1, counts.statements.get(), "the acks of 20: one delete");
                assertEquals(1, counts.commits.get());
                assertEquals(10, queue.stats(q).depth(), "the 40 acked rows are gone, the other 10 wait");
            } finally {
                queue.dropSchema();
            }
        }
    }
}
