package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.spi.OptionKeys;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The backend-specific settings, read from {@link QueueConfig#options()} (keys below). Every value is
 * checked at open; a bad one is an {@link InvalidInputException} with rule {@code broker.option}, a key
 * not listed here one with rule {@code option.unknown}.
 *
 * <ul>
 *   <li>{@code broker.dialogPoolSize}: pooled dialogs per queue and process, 1..1000; default the
 *       connection pool size. One dialog per concurrently sending connection.</li>
 *   <li>{@code broker.spreadFactor}: the "150 trick" (seed 000): begin poolSize x factor dialogs and keep
 *       every factor-th; 1 disables it (default), 150 is the documented value; 1..1000, and
 *       dialogPoolSize x spreadFactor at most {@value #MAX_DIALOGS_PER_FILL}.</li>
 *   <li>{@code broker.dialogLifetimeSeconds}: the explicit LIFETIME of every dialog, default 604800
 *       (7 days); at least 2 x {@code dialogMaxAgeSeconds}. A message not received within it is
 *       dead-lettered when the dialog's Error arrives (on the target side, or by the sweeper while it
 *       still waited in sys.transmission_queue), so it must exceed the longest consumer outage you plan
 *       for.</li>
 *   <li>{@code broker.dialogMaxAgeSeconds}: recycle a pooled dialog this old, default 3600.</li>
 *   <li>{@code broker.dialogMaxMessages}: recycle a pooled dialog after this many sends, default
 *       100000.</li>
 *   <li>{@code broker.maxAttempts}: deliveries before the adapter dead-letters a message on receipt,
 *       1..1000, default 10 (set it at or above the worker's retry limit).</li>
 *   <li>{@code broker.activationProcedure}: {@code schema.procedure} to attach as internal activation
 *       when a queue is created; absent = none. Each part {@code [A-Za-z_][A-Za-z0-9_]{0,127}}.</li>
 *   <li>{@code broker.maxQueueReaders}: MAX_QUEUE_READERS for it, 1..32767, default 1.</li>
 *   <li>{@code broker.activationExecuteAs}: {@code OWNER} (default) or {@code SELF}.</li>
 *   <li>{@code broker.sweepIntervalMillis}: how often the initiator queue is drained of EndDialog and
 *       Error messages, 100..600000, default 5000.</li>
 *   <li>{@code broker.sendWaitMillis}: how long a sender waits for a free pooled dialog, default 30000.</li>
 *   <li>{@code broker.disabledRecheckMillis}: after error 9617, how long consumes fail without asking
 *       the server again, default 30000.</li>
 *   <li>{@code broker.groupIdleMillis}: a message group's dialog with nothing pending is retired
 *       (end-of-stream) after this long without a send, 0..2147483647, default 60000; one with nothing
 *       pending is also retired once older than {@code dialogMaxAgeSeconds}.</li>
 *   <li>{@code broker.probeUser}: probes only, see {@link #PROBE_USER}.</li>
 * </ul>
 *
 * @param dialogPoolSize pooled dialogs per queue and process
 * @param spreadFactor 1 = off, 150 = the 150 trick
 * @param dialogLifetimeSeconds LIFETIME of each dialog, s
 * @param dialogMaxAgeSeconds recycling age, s
 * @param dialogMaxMessages recycling message count
 * @param maxAttempts adapter's poison limit
 * @param activationProcedure {@code schema.name} or null
 * @param maxQueueReaders MAX_QUEUE_READERS
 * @param activationExecuteAs OWNER or SELF
 * @param sweepIntervalMillis initiator-queue sweep period, ms
 * @param sendWaitMillis wait for a free dialog, ms
 * @param disabledRecheckMillis quiet period after error 9617, ms
 * @param groupIdleMillis idle time before a group's drained dialog is retired, ms
 */
public record BrokerOptions(int dialogPoolSize, int spreadFactor, int dialogLifetimeSeconds, int dialogMaxAgeSeconds,
                            long dialogMaxMessages, int maxAttempts, String activationProcedure, int maxQueueReaders,
                            String activationExecuteAs, long sweepIntervalMillis, long sendWaitMillis,
                            long disabledRecheckMillis, int groupIdleMillis) {
    private static final Pattern PROC = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}\\.[A-Za-z_][A-Za-z0-9_]{0,127}");

    /** At most this many dialogs begun by one fill (dialogPoolSize x spreadFactor): one auto-commit batch. */
    public static final int MAX_DIALOGS_PER_FILL = 20_000;

    /**
     * Checks the options that depend on each other.
     *
     * @param dialogPoolSize pooled dialogs per queue and process
     * @param spreadFactor 1 = off, 150 = the 150 trick
     * @param dialogLifetimeSeconds LIFETIME of each dialog, s
     * @param dialogMaxAgeSeconds recycling age, s
     * @param dialogMaxMessages recycling message count
     * @param maxAttempts adapter's poison limit
     * @param activationProcedure {@code schema.name} or null
     * @param maxQueueReaders MAX_QUEUE_READERS
     * @param activationExecuteAs OWNER or SELF
     * @param sweepIntervalMillis initiator-queue sweep period, ms
     * @param sendWaitMillis wait for a free dialog, ms
     * @param disabledRecheckMillis quiet period after error 9617, ms
     * @param groupIdleMillis idle time before a group's drained dialog is retired, ms
     * @throws InvalidInputException (rule {@code broker.option}) naming the option when a value is out of its range
     *     or does not fit another (for example a dialog lifetime under twice the dialogs' maximum age)
     */
    public BrokerOptions {
        if ((long) dialogPoolSize * spreadFactor > MAX_DIALOGS_PER_FILL) {
            throw bad("broker.spreadFactor", "times broker.dialogPoolSize must be at most " + MAX_DIALOGS_PER_FILL
                    + " (dialogs begun by one fill), was " + spreadFactor + " x " + dialogPoolSize);
        }
        if (dialogLifetimeSeconds < 2L * dialogMaxAgeSeconds) {
            throw bad("broker.dialogLifetimeSeconds", "must be at least twice broker.dialogMaxAgeSeconds ("
                    + dialogMaxAgeSeconds + " s), was " + dialogLifetimeSeconds);
        }
        if (activationProcedure != null && !PROC.matcher(activationProcedure).matches()) {
            throw bad("broker.activationProcedure", "must be schema.procedure of [A-Za-z_][A-Za-z0-9_]*, was '"
                    + activationProcedure + "'");
        }
        if (!activationExecuteAs.equals("OWNER") && !activationExecuteAs.equals("SELF")) {
            throw bad("broker.activationExecuteAs", "must be OWNER or SELF, was '" + activationExecuteAs + "'");
        }
    }

    /** The option keys this backend reads; any other key is refused ({@code option.unknown}). */
    public static final Set<String> KEYS = Set.of("broker.dialogPoolSize", "broker.spreadFactor",
            "broker.dialogLifetimeSeconds", "broker.dialogMaxAgeSeconds", "broker.dialogMaxMessages", "broker.maxAttempts",
            "broker.activationProcedure", "broker.maxQueueReaders", "broker.activationExecuteAs",
            "broker.sweepIntervalMillis", "broker.sendWaitMillis", "broker.disabledRecheckMillis", "broker.groupIdleMillis",
            "broker.probeUser");

    /**
     * Probes only ({@code sqlqueue probe --backend sqlserver-broker}): the application's database user, as
     * which probe V8 runs its experiment ({@code EXECUTE AS USER}) while it provisions with the login it
     * connects with. Absent: V8 is INCONCLUSIVE.
     */
    public static final String PROBE_USER = "broker.probeUser";

    /**
     * {@link #PROBE_USER} of {@code config}, or null.
     *
     * @param config the queue configuration (URL, table prefix and options)
     * @return the database user name, or null when the option is not set
     * @throws InvalidInputException rule {@code broker.option} for an empty name, one longer than 128
     *     characters (sysname) or one with a control character
     */
    public static String probeUser(QueueConfig config) {
        String v = config.option(PROBE_USER, null);
        if (v == null) {
            return null;
        }
        if (v.isBlank() || v.length() > 128 || v.chars().anyMatch(Character::isISOControl)) {
            throw bad(PROBE_USER, "must be a database user name of 1..128 characters without control characters");
        }
        return v;
    }

    /**
     * Reads and validates the options of {@code config}.
     *
     * @param config the queue configuration (URL, table prefix and options)
     * @return the options, defaults for those not given
     * @throws InvalidInputException rule {@code option.unknown} for a key not in {@link #KEYS} (a misspelt key
     *     was ignored, so the backend ran on the default it was meant to change); rule {@code broker.option}
     *     for a value out of its range
     */
    public static BrokerOptions from(QueueConfig config) {
        OptionKeys.requireKnown(ServiceBrokerBackend.NAME, config, KEYS);
        return new BrokerOptions(
                (int) num(config, "broker.dialogPoolSize", config.poolSize(), 1, 1000),
                (int) num(config, "broker.spreadFactor", 1, 1, 1000),
                (int) num(config, "broker.dialogLifetimeSeconds", 604_800, 60, Integer.MAX_VALUE),
                (int) num(config, "broker.dialogMaxAgeSeconds", 3600, 1, Integer.MAX_VALUE / 2),
                num(config, "broker.dialogMaxMessages", 100_000, 1, Long.MAX_VALUE),
                (int) num(config, "broker.maxAttempts", 10, 1, 1000),
                config.option("broker.activationProcedure", null),
                (int) num(config, "broker.maxQueueReaders", 1, 1, 32767),
                config.option("broker.activationExecuteAs", "OWNER").toUpperCase(Locale.ROOT),
                num(config, "broker.sweepIntervalMillis", 5000, 100, 600_000),
                num(config, "broker.sendWaitMillis", 30_000, 1, 3_600_000),
                num(config, "broker.disabledRecheckMillis", 30_000, 0, 3_600_000),
                (int) num(config, "broker.groupIdleMillis", 60_000, 0, Integer.MAX_VALUE));
    }

    private static long num(QueueConfig c, String key, long def, long min, long max) {
        String v = c.option(key, null);
        if (v == null) {
            return def;
        }
        long x;
        try {
            x = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw bad(key, "must be a whole number, was '" + v + "'");
        }
        if (x < min || x > max) {
            throw bad(key, "must be " + min + ".." + max + ", was " + x);
        }
        return x;
    }

    private static InvalidInputException bad(String key, String what) {
        return new InvalidInputException("broker.option", "option " + key + " " + what);
    }
}
