package dev.sqlqueue.skiplocked;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;

/**
 * A child JVM of {@link H2OpenRetryTest}: opens the H2 database of the first argument (an {@code AUTO_SERVER}
 * URL that several processes share, as the command's default database), enqueues one message, reads the
 * queue's stats and exits; exit 0 and {@code OK} when all of that worked.
 */
public final class H2SharedOpenChild {
    private H2SharedOpenChild() {
    }

    public static void main(String[] args) {
        QueueName q = QueueName.of("shared");
        try (SqlQueue queue = SqlQueue.open(QueueConfig.builder().url(args[0]).user("sa").password("").build())) {
            queue.createQueue(q);
            queue.enqueue(q, Message.ofText("from " + ProcessHandle.current().pid()));
            queue.stats(q);
            System.out.println("OK");
        } catch (RuntimeException e) {
            System.out.println("FAILED " + e);
            System.exit(1);
        }
    }
}
