package dev.sqlqueue.cli;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.MoveOptions;
import dev.sqlqueue.MoveReport;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueMover;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.QueueClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue move}: moves queues (messages, then dead letters) from one database to another with {@link QueueMover} (issue 35), exactly once
 * and resumable: killed at any point, the same command run again finishes the job. Every queue is checked before
 * anything moves (a queue missing on the source, a target lacking a feature, the same database twice: exit 2, rule
 * named). Progress on standard error, one summary line per queue on standard output.
 */
@Command(name = "move", sortOptions = false,
        description = "Move queues (ready and delayed messages, then dead letters) from one database to another, exactly once; "
                + "run it again after an interruption to finish the job.")
public final class MoveCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--from", paramLabel = "JDBC_URL",
            description = "Source database. Default: the H2 database that sqlqueue commands use by default in the current directory.")
    String from;

    @Option(names = "--to", required = true, paramLabel = "JDBC_URL", description = "Target database.")
    String to;

    @Option(names = {"-q", "--queue"}, paramLabel = "QUEUE", converter = QueueNameConverter.class,
            description = "A queue to move (repeatable).")
    List<QueueName> queues = new ArrayList<>();

    @Option(names = "--all", description = "Move every queue of the source.")
    boolean all;

    @Option(names = "--until-empty", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Keep moving (producers may still write to the source) until the source has had nothing to "
                    + "move for this long, e.g. 10s. Default: stop when nothing is left to move.")
    Duration untilEmpty;

    @Option(names = "--dry-run", description = "Check and print what would move; move nothing.")
    boolean dryRun;

    @Option(names = "--history", description = "Also move the processed-message history: its rows are written to the target once, then deleted from"
            + " the source. Default: the history stays on the source.")
    boolean history;

    @Option(names = "--dead-letter-refused",
            description = "Go on when the target lacks a feature the source has (priority, groups, delay, payload size): "
                    + "a message the target refuses is dead-lettered on the source with the reason.")
    boolean deadLetterRefused;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "100",
            description = "Messages per step (one transaction on each side), 1 to 1000. Default: ${DEFAULT-VALUE}.")
    int batch;

    @Option(names = "--lease", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "5m",
            description = "How long held messages stay hidden on the source if the mover dies; run the command again "
                    + "within it. Default: ${DEFAULT-VALUE}.")
    Duration lease;

    @Option(names = "--from-table-prefix", paramLabel = "PREFIX", description = "Table prefix on the source (default sqlq_).")
    String fromPrefix;

    @Option(names = "--to-table-prefix", paramLabel = "PREFIX", description = "Table prefix on the target (default sqlq_).")
    String toPrefix;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (all && !queues.isEmpty()) {
            throw new InvalidInputException("move.queues", "give --queue or --all, not both");
        }
        if (!all && queues.isEmpty()) {
            throw new InvalidInputException("move.queues", "give the queues to move: --queue Q (repeatable) or --all");
        }
        MoveOptions options = new MoveOptions(batch, lease, untilEmpty == null ? Duration.ZERO : untilEmpty,
                deadLetterRefused, dryRun, history);
        String fromUrl = from == null || from.isBlank() ? ConnectionOptions.defaultUrl() : from;
        try (QueueMover mover = QueueMover.open(config(fromUrl, fromPrefix), config(to, toPrefix));
             ShutdownGuard guard = new ShutdownGuard(mover::stop, Duration.ofSeconds(60))) {
            QueueClient source = mover.source();
            List<QueueName> names = all ? source.queues() : List.copyOf(new LinkedHashSet<>(queues));
            for (QueueName q : names) {
                mover.check(q, options); // every queue before anything moves
            }
            String fromName = source.capabilities().backend();
            for (QueueName q : names) {
                QueueStats s = source.stats(q);
                long total = s.ready() + s.delayed();
                AtomicLong done = new AtomicLong();
                Progress progress = new Progress(err, "move '" + q.value() + "'", total, done::get, System.console() != null, 2000);
                MoveReport r = mover.move(q, options, soFar -> {
                    done.set(soFar.moved() + soFar.alreadyOnTarget() + soFar.refused());
                    progress.tick();
                });
                if (!dryRun) {
                    progress.finish();
                }
                print(out, r, fromName);
                if (mover.stopped()) {
                    err.println("sqlqueue: stopped after the step in progress: what moved is on the target only, the rest"
                            + " is on the source; run the same command again to finish the job");
                    err.flush();
                    return guard.exitCode(ExitCodes.OK);
                }
            }
        }
        return ExitCodes.OK;
    }

    private void print(PrintWriter out, MoveReport r, String fromName) {
        String what = dryRun ? "would move" : "moved";
        String dead = r.deadLettersMoved() == 0 ? "" : String.format("; %s %d dead letter%s", what, r.deadLettersMoved(),
                r.deadLettersMoved() == 1 ? "" : "s");
        if (r.deduplicationKeysMoved() > 0) {
            dead += String.format("; %s %d deduplication key%s", what, r.deduplicationKeysMoved(),
                    r.deduplicationKeysMoved() == 1 ? "" : "s");
        }
        if (r.historyMoved() > 0) {
            dead += String.format("; %s %d history row%s", what, r.historyMoved(), r.historyMoved() == 1 ? "" : "s");
        }
        out.printf("%s %d message%s of '%s' from %s to the target (%d already on the target, %d refused and dead-lettered"
                        + " on the source)%s; left on the source: %d in flight, %d delayed, %d dead letter%s%n", what, r.moved(),
                r.moved() == 1 ? "" : "s", r.queue().value(), fromName, r.alreadyOnTarget(), r.refused(), dead,
                r.leftInFlight(), r.leftDelayed(), r.deadLettersLeft(), r.deadLettersLeft() == 1 ? "" : "s");
        for (String note : r.notes()) {
            out.println("  " + note);
        }
    }

    private static QueueConfig config(String url, String prefix) {
        QueueConfig.Builder b = QueueConfig.builder().url(url);
        if (prefix != null) {
            b.tablePrefix(prefix);
        }
        return b.build();
    }
}
