package dev.sqlqueue.cli;

/**
 * An error of the command itself (a file that cannot be read, a stalled run), reported as one line
 * {@code sqlqueue: error: <message>} with {@link #exitCode()}.
 */
public final class CliException extends RuntimeException {
    private final int exitCode;

    /**
     * An error without an underlying cause.
     *
     * @param exitCode the process exit code, one of {@link ExitCodes}
     * @param message one line for people
     */
    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /**
     * An error caused by another exception.
     *
     * @param exitCode the process exit code, one of {@link ExitCodes}
     * @param message one line for people
     * @param cause kept for {@code --verbose}, which prints its stack trace
     */
    public CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** @return the process exit code, one of {@link ExitCodes} */
    public int exitCode() {
        return exitCode;
    }
}
