package dev.sqlqueue.skiplocked;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * The child JVM of {@link H2CrashDurabilityTest}: opens the URL given as the first argument exactly as
 * a user would ({@code SqlQueue.open(QueueConfig.ofUrl(url))}) and enqueues, consumes and acks until it
 * is killed. Prints {@code E id} after an enqueue returned, {@code C id} before an ack is sent and
 * {@code A id} after it returned, each line flushed at once.
 */
public final class H2CrashChild {
    private H2CrashChild() {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true);
        QueueName q = QueueName.of("crash");
        try (SqlQueue queue = SqlQueue.open(QueueConfig.ofUrl(args[0]))) {
            queue.createQueue(q);
            out.println("READY");
            for (long n = 0; ; n++) {
                long id = queue.enqueue(q, Message.ofText("m" + n));
                out.println("E " + id);
                if (n % 4 == 3) {
                    List<Delivery> got = queue.consume(q, ConsumeRequest.of(2).withLease(Duration.ofSeconds(1)));
                    for (Delivery d : got) {
                        out.println("C " + d.id());
                        queue.ack(d.receipt());
                        out.println("A " + d.id());
                    }
                }
            }
        }
    }
}
