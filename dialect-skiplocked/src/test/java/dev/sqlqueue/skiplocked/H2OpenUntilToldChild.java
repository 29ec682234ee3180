package dev.sqlqueue.skiplocked;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;

/**
 * A child JVM of {@link H2FileModesTest}: opens the H2 database of the first argument through the library
 * ({@code SqlQueue.open}), creates a queue, prints {@code OPEN}, waits until its standard input ends, closes the
 * database and prints {@code CLOSED}.
 */
public final class H2OpenUntilToldChild {
    private H2OpenUntilToldChild() {
    }

    public static void main(String[] args) throws Exception {
        try (SqlQueue queue = SqlQueue.open(QueueConfig.builder().url(args[0]).user("sa").password("").build())) {
            queue.createQueue(QueueName.of("modes"));
            System.out.println("OPEN");
            System.out.flush();
            System.in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        System.out.println("CLOSED");
        System.out.flush();
    }
}
