package dev.sqlqueue.cli;

/**
 * Exit codes of the {@code sqlqueue} command.
 *
 * <ul>
 *   <li>{@link #OK} 0: done.</li>
 *   <li>{@link #FAILURE} 1: the command could not do its job (database unreachable, a file that cannot
 *       be read, an unexpected error).</li>
 *   <li>{@link #USAGE} 2: bad command line or bad input (an unknown option, an invalid queue name, a
 *       negative delay, an over-size payload, an unknown backend); nothing was written.</li>
 *   <li>{@link #INCOMPLETE} 3: the command ran but not everything succeeded ({@code work}: messages
 *       were dead-lettered; {@code demo}: messages were lost).</li>
 *   <li>130 / 143: {@code work}, {@code demo}, {@code dashboard} or {@code enqueue} stopped by SIGINT (Ctrl-C) / SIGTERM,
 *       after a clean stop.</li>
 * </ul>
 */
public final class ExitCodes {
    /** Done. */
    public static final int OK = 0;
    /** The command could not do its job. */
    public static final int FAILURE = 1;
    /** Bad command line or bad input; nothing was written. */
    public static final int USAGE = 2;
    /** The command ran but some messages failed (dead-lettered or lost). */
    public static final int INCOMPLETE = 3;

    private ExitCodes() {
    }
}
