package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.ModelFixture.JOBS;
import static dev.sqlqueue.teradata.ModelFixture.claim;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How the backend ends consumes with terajdbc's own means (review N2, N9), on the model: the
 * connection of a consume whose Abort may still arrive is closed rather than reused, and the interrupt
 * the driver gives a thread whose request it cancelled before sending does not linger.
 */
class ConsumeBoundsOnModelTest {

    @Test
    void aConnectionWhoseAbortMayStillArriveIsClosedNotReturnedToThePool() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.cancelArrivesLate = true;
        ReusingPool pool = new ReusingPool(m.dataSource());
        QueueConfig config = QueueConfig.builder().backend("teradata").dataSource(pool.dataSource())
                .option("teradata.consume-cancel-ms", "50").build();
        try (SqlQueue queue = SqlQueue.open(config); Connection producer = m.dataSource().getConnection()) {
            queue.createQueue(JOBS);
            producer.setAutoCommit(false);
            queue.enqueue(producer, JOBS, Message.ofText("late"));
            CompletableFuture<List<Delivery>> first = CompletableFuture.supplyAsync(() -> queue.consume(JOBS, claim(1)));
            Waits.until(() -> m.log.stream().anyMatch(s -> s.endsWith(" cancel")));
            producer.commit();
            assertTrue(first.get(5, TimeUnit.SECONDS).isEmpty(), "the cancelled claim gave its row back");
            assertTrue(m.log.stream().anyMatch(s -> s.endsWith(" logoff")), "its session was logged off: " + m.log);
            Delivery d = queue.consume(JOBS, claim(1)).get(0); // a reused session would meet the late Abort (751)
            assertEquals("late", d.text());
            queue.ack(d.receipt());
        }
    }

    @Test
    void theDriversInterruptOfACancelBeforeSendingDoesNotStayOnTheConsumerThread() {
        TeradataModel m = new TeradataModel("qdb");
        ModelFixture f = new ModelFixture(m, "teradata.consume-cancel-ms", "50");
        f.queue.enqueue(JOBS, Message.ofText("x"));
        String consume = TeradataStatements.consume(ModelFixture.N);
        m.beforeNext(consume::equals, () -> { // the request is still ACTIVE when the watchdog cancels it
            long end = System.nanoTime() + 5_000_000_000L;
            while (!Thread.currentThread().isInterrupted() && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        });
        assertTrue(f.queue.consume(JOBS, claim(1)).isEmpty(), "the consume was cancelled before it was sent");
        assertFalse(Thread.currentThread().isInterrupted(), "TDStatement.cancel's interrupt was cleared");
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        assertEquals("x", d.text(), "the next claim on this thread works");
        f.queue.ack(d.receipt());
    }
}
