package dev.sqlqueue.cli;

import picocli.CommandLine.Option;

/**
 * {@code --history}/{@code --no-history} (a picocli mixin): keep processed messages in the history table
 * (start, end, duration, attempts, outcome, detail) instead of deleting them on ack. Each command picks
 * its own default ({@code work} and {@code demo}: on, as the starter's {@code sqlqueue.history}).
 */
public final class HistoryOption {
    @Option(names = "--history", negatable = true,
            description = "Keep processed messages (start, end, duration, outcome) in the history; "
                    + "'work' and 'demo' keep them unless --no-history is given.")
    Boolean history;

    /**
     * The flag given, or {@code def} when neither --history nor --no-history was.
     *
     * @param def the command's own default
     * @return true to keep processed messages in the history table
     */
    public boolean orDefault(boolean def) {
        return history == null ? def : history;
    }
}
