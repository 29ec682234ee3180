package dev.sqlqueue.cli;

import dev.sqlqueue.DeadLetterSummary;
import dev.sqlqueue.SqlQueue;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sqlqueue dlq list}: id, attempts, reason and a payload preview of each dead letter, oldest first. */
@Command(name = "list", description = "List dead letters, oldest first.")
public final class DlqListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DlqCommand.QueueOption queue;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
            description = "Show at most N, 1 to 100000. Default: ${DEFAULT-VALUE}.")
    int limit;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (SqlQueue client = connection.open(false)) {
            Queues.requireExisting(client, queue.queue);
            // summaries: the first bytes of each payload, never whole payloads (issue 31: 1,000 dead letters of 1 MiB
            // took 134 s and 4.4 GB here)
            List<DeadLetterSummary> dead = client.deadLetterSummaries(queue.queue, limit);
            if (dead.isEmpty()) {
                out.println("no dead letters in '" + queue.queue + "'");
                out.flush();
                return ExitCodes.OK;
            }
            TextTable t = new TextTable("ID", "ATTEMPTS", "GROUP", "REASON", "PAYLOAD");
            for (DeadLetterSummary d : dead) {
                t.row(d.messageId(), d.attempts(), d.group() == null ? "-" : TextTable.preview(d.group(), 24),
                        TextTable.preview(d.reason() == null ? "" : d.reason(), 80),
                        TextTable.preview(new String(d.payloadPreview(), java.nio.charset.StandardCharsets.UTF_8), 40));
            }
            t.print(out);
        }
        return ExitCodes.OK;
    }
}
