package dev.sqlqueue.cli;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.UnsupportedCapabilityException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns every error into one line {@code sqlqueue: error: <message>} on the command's error writer and
 * an exit code ({@link ExitCodes}); the stack trace is printed only with {@code --verbose}.
 *
 * <p>Bad command lines and rule-breaking input ({@link InvalidInputException}, which names the rule,
 * and {@link UnsupportedCapabilityException}) exit with {@link ExitCodes#USAGE}; everything else
 * (an unreachable database, an unreadable file) with {@link ExitCodes#FAILURE}.
 */
final class ErrorHandler implements IExecutionExceptionHandler, IParameterExceptionHandler {
    static final String PREFIX = "sqlqueue: error: ";

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        // picocli words a bad map entry "Value for option option '--header' ..."
        String message = oneLine(ex.getMessage()).replace("option option ", "option ");
        if (ex instanceof CommandLine.UnmatchedArgumentException u && cmd.getParent() == null && !cmd.getSubcommands().isEmpty()
                && !u.getUnmatched().isEmpty() && args.length > 0 && args[0].equals(u.getUnmatched().get(0))
                && !args[0].startsWith("-")) {
            // the first word is not one of the commands
            message = "unknown command '" + args[0] + "'; commands: " + String.join(", ", cmd.getSubcommands().keySet());
        }
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            // picocli's own "did you mean" (a similarity over the command's subcommands or options)
            message = message + "; did you mean '" + u.getSuggestions().get(0) + "'?";
        }
        if (!message.contains("[rule: ")) {
            message = message + " [rule: " + rule(ex, message) + "]";
        }
        err.println(PREFIX + message + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')");
        if (verbose(args)) {
            ex.printStackTrace(err);
        }
        err.flush();
        return ExitCodes.USAGE;
    }

    /**
     * The rule a bad command line breaks, by picocli's exception: {@code command.unknown}, {@code option.unknown},
     * {@code option.required}, {@code option.repeated}, {@code option.exclusive}, {@code option.value} (a value of the
     * wrong form), else {@code usage}.
     */
    static String rule(ParameterException ex, String message) {
        if (message.startsWith("unknown command ")) {
            return "command.unknown";
        }
        if (ex instanceof CommandLine.UnmatchedArgumentException u) {
            return u.getUnmatched().stream().anyMatch(a -> a.startsWith("-")) ? "option.unknown" : "argument.unexpected";
        }
        if (ex instanceof CommandLine.MissingParameterException) {
            return "option.required";
        }
        if (ex instanceof CommandLine.OverwrittenOptionException) {
            return "option.repeated";
        }
        if (ex instanceof CommandLine.MutuallyExclusiveArgsException) {
            return "option.exclusive";
        }
        if (ex.getCause() instanceof CommandLine.TypeConversionException || message.startsWith("Invalid value")) {
            return "option.value";
        }
        return "usage";
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
        PrintWriter err = cmd.getErr();
        err.println(PREFIX + describe(ex));
        if (verbose(parseResult)) {
            ex.printStackTrace(err);
        }
        err.flush();
        return exitCode(ex);
    }

    /** The exit code for an error thrown by a command. */
    static int exitCode(Throwable ex) {
        if (ex instanceof CliException c) {
            return c.exitCode();
        }
        if (ex instanceof InvalidInputException || ex instanceof UnsupportedCapabilityException) {
            return ExitCodes.USAGE;
        }
        return ExitCodes.FAILURE;
    }

    /** One line that says what went wrong, without a stack trace. */
    static String describe(Throwable ex) {
        if (ex instanceof InvalidInputException || ex instanceof UnsupportedCapabilityException
                || ex instanceof CliException) {
            return oneLine(TypedDurations.echo(ex.getMessage()));
        }
        if (ex instanceof SqlQueueException) {
            String prefix = ex instanceof TransientBackendException ? "database unavailable: " : "";
            return oneLine(prefix + withRootCause(ex));
        }
        return oneLine("unexpected " + ex.getClass().getSimpleName() + ": " + withRootCause(ex)
                + " (run with --verbose for the stack trace)");
    }

    private static String withRootCause(Throwable ex) {
        String text = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
        Throwable root = ex;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root == ex) {
            return text;
        }
        // a host name alone (UnknownHostException's message) is already in the URL: say what it is
        // (the dialects pass masked copies of the driver's exceptions, whose toString keeps the original class name)
        boolean unknownHost = root instanceof java.net.UnknownHostException
                || root.toString().startsWith(java.net.UnknownHostException.class.getName() + ":");
        String rootText = unknownHost
                ? "unknown host " + root.getMessage()
                : root.getMessage();
        if (rootText != null && !text.contains(rootText)) {
            text = text + ": " + rootText;
        }
        return text;
    }

    /** Collapse line breaks and runs of white space so a message is one line. */
    static String oneLine(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }

    private static boolean verbose(ParseResult pr) {
        for (ParseResult r = pr; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }

    private static boolean verbose(String[] args) {
        for (String a : args) {
            if ("--verbose".equals(a) || "-v".equals(a)) {
                return true;
            }
        }
        return false;
    }
}
