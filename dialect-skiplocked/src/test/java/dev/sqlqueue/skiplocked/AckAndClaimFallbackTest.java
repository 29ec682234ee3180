package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerListener;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link QueueClient#ackAllAndConsume}'s fallback (ackAll, then consume, as on H2 and MariaDB) commits the acks
 * before it claims: when the claim fails, the acks' outcome is still what the call returns, so a worker reports
 * its messages acked, not lost (a retry of the acks would find their rows gone and call them lost leases).
 */
class AckAndClaimFallbackTest {
    @Test
    void aClaimFailingAfterTheAcksStillReportsThemAcked(@TempDir Path dir) throws Exception {
        QueueConfig config = QueueConfig.builder().url("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath()).poolSize(4).build();
        QueueName q = QueueName.of("fallback");
        try (SqlQueue real = SqlQueue.open(config)) {
            real.createQueue(q);
            List<Message> twenty = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                twenty.add(Message.ofText("m" + i));
            }
            real.enqueueAll(q, twenty);
            // the second claim reaching the database fails once: the one right after the first batch's acks
            AtomicInteger consumes = new AtomicInteger();
            InvocationHandler h = (proxy, method, args) -> {
                if (method.getName().equals("consume") && consumes.incrementAndGet() == 2) {
                    throw new TransientBackendException("the database went away (test)", null);
                }
                if (method.isDefault() && method.getName().equals("ackAllAndConsume")) {
                    return InvocationHandler.invokeDefault(proxy, method, args);
                }
                try {
                    return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            };
            QueueClient failing = (QueueClient) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {QueueClient.class}, h);
            AtomicInteger acked = new AtomicInteger();
            AtomicInteger lost = new AtomicInteger();
            WorkerListener listener = new WorkerListener() {
                @Override
                public void acked(Delivery d, long handlerNanos) {
                    acked.incrementAndGet();
                }

                @Override
                public void leaseLost(Delivery d) {
                    lost.incrementAndGet();
                }
            };
            WorkerPool pool = WorkerPool.start(failing, q, d -> Outcome.ack(), WorkerOptions.defaults().withThreads(1)
                    .withBatchSize(5).withMode(ClaimMode.LEASE).withPollWait(Duration.ofMillis(100)), listener);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (acked.get() + lost.get() < 20 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            pool.close();
            assertTrue(consumes.get() >= 2, "the failing claim was reached");
            assertEquals(0, lost.get(), "no acked message is reported as a lost lease");
            assertEquals(20, acked.get());
            assertEquals(0, real.stats(q).depth());
            real.dropSchema();
        }
    }
}
