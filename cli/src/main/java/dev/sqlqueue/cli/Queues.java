package dev.sqlqueue.cli;

import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueName;
import java.util.List;
import java.util.stream.Collectors;

/** Checks shared by the commands that act on one existing queue. */
final class Queues {
    private Queues() {
    }

    /**
     * Fail with exit 1 and a one-line error naming the queues that do exist, unless {@code queue} exists:
     * a typo in a queue name must not pass silently as an empty queue.
     */
    static void requireExisting(QueueClient client, QueueName queue) {
        List<QueueName> all = client.queues();
        if (!all.contains(queue)) {
            String known = all.isEmpty() ? "there are no queues"
                    : "queues: " + all.stream().map(QueueName::value).collect(Collectors.joining(", "));
            throw new CliException(ExitCodes.FAILURE, "no queue '" + queue + "' (" + known + ") [rule: queue.exists]");
        }
    }
}
