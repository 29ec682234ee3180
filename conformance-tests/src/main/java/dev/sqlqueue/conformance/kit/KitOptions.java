package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.ClaimMode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What one kit run does. Immutable; build with {@link #builder()}. Setters validate at once and throw
 * {@link IllegalArgumentException} naming the rule broken.
 *
 * <ul>
 *   <li>{@code url} (required): the JDBC URL of the database under test.</li>
 *   <li>{@code user}, {@code password}: credentials, may be null.</li>
 *   <li>{@code backend}: a provider name ({@code h2}, {@code postgresql}, {@code mariadb}, {@code sqlserver},
 *       {@code sqlserver-broker}, {@code teradata}); null chooses by URL.</li>
 *   <li>{@code modes}: {@code lease}, {@code transactional} or {@code all} (default): {@code all} runs
 *       every claim mode the backend declares.</li>
 *   <li>{@code cases}: case ids such as {@code C01,C07}; null runs every case, an empty list or item is refused.</li>
 *   <li>{@code reportDir}: where {@code conformance.md}, the JUnit XML and {@code prefixes.log} go;
 *       default {@code conformance-report}.</li>
 *   <li>{@code driverPath}: jar files (or directories of jars) holding a JDBC driver, or a dialect, that
 *       is not on the class path (the Teradata driver is never bundled).</li>
 *   <li>{@code allowKill}: lets the MariaDB/MySQL and H2 server-mode hooks kill every other session of
 *       the same user and database when the kit cannot single out its own (dangerous on a shared server).</li>
 *   <li>{@code restartCommand}, {@code startCommand}: shell commands ({@code sh -c}) that take the
 *       database down and bring it back, for C17; both or neither.</li>
 *   <li>{@code options}: backend options passed to every case's {@code QueueConfig.option(key, value)}
 *       (for example {@code teradata.database=queues}, SQL Server's {@code ordering=priority-first}).</li>
 *   <li>{@code caseTimeout}: the time limit of one case in one claim mode, its set-up included (not its
 *       clean-up), 1 s to 24 h; default {@link #DEFAULT_CASE_TIMEOUT}. A case still running then is reported
 *       failed with "timed out after N s" and what it was waiting on.</li>
 *   <li>{@code console}: where progress and the summary table go; default {@code System.out}.</li>
 *   <li>{@code errors}: where errors go (a setup error, an unknown case, a failed clean-up); default
 *       {@code System.err}.</li>
 * </ul>
 */
public final class KitOptions {
    private static final Pattern CASE_ID = Pattern.compile("C\\d\\d");
    private static final Pattern SECONDS = Pattern.compile("(\\d{1,6})\\s*(s|m|min|h)?");

    /**
     * 600 s. The slowest cases on the project's PostgreSQL and MariaDB take about 16 s (C18) and 12 s
     * (C10); C10 stops itself after 5 minutes, which H2 file databases reached under load
     * (docs/conformance.md), so the default is twice that.
     */
    public static final int DEFAULT_CASE_TIMEOUT_SECONDS = 600;
    /** {@link #DEFAULT_CASE_TIMEOUT_SECONDS} as a duration. */
    public static final Duration DEFAULT_CASE_TIMEOUT = Duration.ofSeconds(DEFAULT_CASE_TIMEOUT_SECONDS);

    private final String url;
    private final String user;
    private final String password;
    private final String backend;
    private final String modes;
    private final List<String> cases;
    private final Path reportDir;
    private final List<Path> driverPath;
    private final boolean allowKill;
    private final String restartCommand;
    private final String startCommand;
    private final PrintStream console;
    private final PrintStream errors;
    private final java.util.Map<String, String> backendOptions;
    private final Duration caseTimeout;

    private KitOptions(Builder b) {
        this.backendOptions = Collections.unmodifiableMap(new java.util.LinkedHashMap<>(b.backendOptions));
        this.url = b.url;
        this.user = b.user;
        this.password = b.password;
        this.backend = b.backend;
        this.modes = b.modes;
        this.cases = Collections.unmodifiableList(new ArrayList<>(b.cases));
        this.reportDir = b.reportDir;
        this.driverPath = Collections.unmodifiableList(new ArrayList<>(b.driverPath));
        this.allowKill = b.allowKill;
        this.restartCommand = b.restartCommand;
        this.startCommand = b.startCommand;
        this.console = b.console;
        this.caseTimeout = b.caseTimeout;
        this.errors = b.errors;
    }

    /** These options with other console and error streams. */
    KitOptions withStreams(PrintStream console, PrintStream errors) {
        Builder b = new Builder();
        b.url = url;
        b.user = user;
        b.password = password;
        b.backend = backend;
        b.modes = modes;
        b.cases.addAll(cases);
        b.reportDir = reportDir;
        b.driverPath.addAll(driverPath);
        b.allowKill = allowKill;
        b.restartCommand = restartCommand;
        b.startCommand = startCommand;
        b.backendOptions.putAll(backendOptions);
        b.caseTimeout = caseTimeout;
        b.console = console;
        b.errors = errors;
        return new KitOptions(b);
    }

    /**
     * A builder with the defaults: every mode, every case, report in {@code conformance-report}.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the JDBC URL of the database under test */
    public String url() { return url; }
    /** @return the database user, or null */
    public String user() { return user; }
    /** @return the user's password, or null */
    public String password() { return password; }
    /**
     * Provider name asked for, or null to choose by URL.
     *
     * @return the provider name, or null
     */
    public String backend() { return backend; }
    /**
     * {@code lease}, {@code transactional} or {@code all}.
     *
     * @return the claim modes asked for, lower case
     */
    public String modes() { return modes; }
    /**
     * Case ids to run (e.g. {@code C01}); empty means all.
     *
     * @return the ids, upper case, in the order given; unmodifiable
     */
    public List<String> cases() { return cases; }
    /** @return where {@code conformance.md}, the JUnit XML and {@code prefixes.log} go */
    public Path reportDir() { return reportDir; }
    /** @return jar files or directories of jars for a driver not on the class path; unmodifiable, empty when none */
    public List<Path> driverPath() { return driverPath; }
    /** @return whether the hooks may kill every other session of the same user and database */
    public boolean allowKill() { return allowKill; }
    /**
     * Shell command that takes the database down, or null.
     *
     * @return the command, run with {@code sh -c}
     */
    public String restartCommand() { return restartCommand; }
    /**
     * Shell command that brings the database back, or null.
     *
     * @return the command, run with {@code sh -c}
     */
    public String startCommand() { return startCommand; }
    /** @return where progress and the summary table go */
    public PrintStream console() { return console; }

    /** @return where errors go */
    public PrintStream errors() { return errors; }
    /**
     * Backend options ({@code QueueConfig.option}) for every case, in the order given.
     *
     * @return the options by key, unmodifiable
     */
    public java.util.Map<String, String> backendOptions() { return backendOptions; }
    /**
     * The time limit of one case (set-up and body, not clean-up).
     *
     * @return the limit, whole seconds from 1 s to 24 h
     */
    public Duration caseTimeout() { return caseTimeout; }

    /** The claim modes asked for; {@code all} is every mode, narrowed later to the backend's. */
    Set<ClaimMode> requestedModes() {
        return switch (modes) {
            case "lease" -> EnumSet.of(ClaimMode.LEASE);
            case "transactional" -> EnumSet.of(ClaimMode.TRANSACTIONAL);
            default -> EnumSet.allOf(ClaimMode.class);
        };
    }

    /** Builder. */
    public static final class Builder {
        private String url;
        private String user;
        private String password;
        private String backend;
        private String modes = "all";
        private final List<String> cases = new ArrayList<>();
        private Path reportDir = Path.of("conformance-report");
        private final List<Path> driverPath = new ArrayList<>();
        private boolean allowKill;
        private String restartCommand;
        private String startCommand;
        private PrintStream console = System.out;
        private PrintStream errors = System.err;
        private final java.util.Map<String, String> backendOptions = new java.util.LinkedHashMap<>();
        private Duration caseTimeout = DEFAULT_CASE_TIMEOUT;

        /**
         * Sets the JDBC URL of the database under test (required).
         *
         * @param url the URL, starting with {@code jdbc:}
         * @return this builder
         * @throws IllegalArgumentException if {@code url} is null or does not start with {@code jdbc:}
         */
        public Builder url(String url) {
            if (url == null || !url.startsWith("jdbc:")) {
                throw new IllegalArgumentException("url: '" + url + "' is not a JDBC URL (it must start with jdbc:)");
            }
            this.url = url;
            return this;
        }

        /**
         * Sets the database user.
         *
         * @param user the user, or null for none
         * @return this builder
         */
        public Builder user(String user) { this.user = user; return this; }

        /**
         * Sets the user's password.
         *
         * @param password the password, or null for none
         * @return this builder
         */
        public Builder password(String password) { this.password = password; return this; }

        /**
         * Forces a backend provider instead of choosing one by URL.
         *
         * @param backend a provider name such as {@code postgresql}; null or blank chooses by URL
         * @return this builder
         */
        public Builder backend(String backend) {
            this.backend = backend == null || backend.isBlank() ? null : backend.trim();
            return this;
        }

        /**
         * {@code lease}, {@code transactional} or {@code all} (case-insensitive); null means all.
         *
         * @param modes the claim modes to run
         * @return this builder
         * @throws IllegalArgumentException for any other value
         */
        public Builder modes(String modes) {
            String m = modes == null ? "all" : modes.trim().toLowerCase(Locale.ROOT);
            if (!m.equals("lease") && !m.equals("transactional") && !m.equals("all")) {
                throw new IllegalArgumentException("mode: must be lease, transactional or all, was '" + modes + "'");
            }
            this.modes = m;
            return this;
        }

        /**
         * Case ids separated by commas, for example {@code C01,C07}; null means every case. An empty or blank
         * list, or an empty item ({@code C01,,C02}), is refused: it is a mistake, not a request for every case.
         *
         * @param commaSeparated case ids ({@code C} and two digits, any case), separated by commas
         * @return this builder
         * @throws IllegalArgumentException for an empty list or item, or an item that is not a case id
         */
        public Builder cases(String commaSeparated) {
            cases.clear();
            if (commaSeparated == null) {
                return this;
            }
            if (commaSeparated.isBlank()) {
                throw new IllegalArgumentException("cases: the list is empty; name case ids such as C01,C07, or leave"
                        + " the option out to run every case");
            }
            for (String c : commaSeparated.split(",", -1)) {
                if (c.isBlank()) {
                    throw new IllegalArgumentException("cases: '" + commaSeparated + "' has an empty item; name case ids"
                            + " separated by single commas, such as C01,C07");
                }
                String id = c.trim().toUpperCase(Locale.ROOT);
                if (!CASE_ID.matcher(id).matches()) {
                    throw new IllegalArgumentException("cases: '" + c.trim() + "' is not a case id such as C01");
                }
                cases.add(id);
            }
            return this;
        }

        /**
         * Sets where the report goes.
         *
         * @param dir the directory, created when missing
         * @return this builder
         * @throws NullPointerException if {@code dir} is null
         */
        public Builder reportDir(Path dir) {
            this.reportDir = Objects.requireNonNull(dir, "reportDir");
            return this;
        }

        /**
         * Jar files or directories of jars, separated by the platform path separator ({@code :} or {@code ;}).
         *
         * @param pathList the paths; null or blank for none
         * @return this builder
         */
        public Builder driverPath(String pathList) {
            driverPath.clear();
            if (pathList != null && !pathList.isBlank()) {
                Arrays.stream(pathList.split(java.io.File.pathSeparator)).filter(s -> !s.isBlank())
                        .map(Path::of).forEach(driverPath::add);
            }
            return this;
        }

        /**
         * Lets the MariaDB/MySQL and H2 server-mode hooks kill every other session of the same user and database.
         *
         * @param allow true to allow it (dangerous on a shared server)
         * @return this builder
         */
        public Builder allowKill(boolean allow) { this.allowKill = allow; return this; }

        /**
         * Sets the shell command that takes the database down (C17); give {@link #startCommand} too.
         *
         * @param cmd the command, run with {@code sh -c}; null or blank for none
         * @return this builder
         */
        public Builder restartCommand(String cmd) { this.restartCommand = blankToNull(cmd); return this; }

        /**
         * Sets the shell command that brings the database back (C17); give {@link #restartCommand} too.
         *
         * @param cmd the command, run with {@code sh -c}; null or blank for none
         * @return this builder
         */
        public Builder startCommand(String cmd) { this.startCommand = blankToNull(cmd); return this; }

        /**
         * Sets where errors go.
         *
         * @param err the stream
         * @return this builder
         * @throws NullPointerException if {@code err} is null
         */
        public Builder errors(PrintStream err) {
            this.errors = Objects.requireNonNull(err, "errors");
            return this;
        }

        /**
         * Sets where progress and the summary table go.
         *
         * @param out the stream
         * @return this builder
         * @throws NullPointerException if {@code out} is null
         */
        public Builder console(PrintStream out) {
            this.console = Objects.requireNonNull(out, "console");
            return this;
        }

        /**
         * One backend option as {@code key=value}, for example {@code teradata.database=queues}.
         *
         * @param keyEqualsValue the key, {@code =} and the value; the key is trimmed, the value kept as given
         * @return this builder
         * @throws IllegalArgumentException if there is no {@code =} after a non-empty key
         */
        public Builder option(String keyEqualsValue) {
            int eq = keyEqualsValue == null ? -1 : keyEqualsValue.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("option: '" + keyEqualsValue + "' is not key=value");
            }
            backendOptions.put(keyEqualsValue.substring(0, eq).trim(), keyEqualsValue.substring(eq + 1));
            return this;
        }

        /**
         * The time limit of one case, 1 s to 24 h, whole seconds.
         *
         * @param limit the limit
         * @return this builder
         * @throws IllegalArgumentException if {@code limit} is null, outside 1 s..24 h or not whole seconds
         */
        public Builder caseTimeout(Duration limit) {
            if (limit == null || limit.compareTo(Duration.ofSeconds(1)) < 0 || limit.compareTo(Duration.ofHours(24)) > 0
                    || limit.toNanos() % 1_000_000_000L != 0) {
                throw new IllegalArgumentException("case-timeout: must be whole seconds from 1 s to 24 h, was " + limit);
            }
            this.caseTimeout = limit;
            return this;
        }

        /**
         * The time limit as {@code KitMain} takes it: seconds ({@code 90}, {@code 90s}), minutes ({@code 10m}) or
         * hours ({@code 1h}). {@code sqlqueue conformance} takes every duration form of the CLI.
         *
         * @param text a number with an optional unit {@code s}, {@code m}, {@code min} or {@code h}
         * @return this builder
         * @throws IllegalArgumentException if the text has another form, or the limit is outside 1 s..24 h
         */
        public Builder caseTimeout(String text) {
            java.util.regex.Matcher m = text == null ? null : SECONDS.matcher(text.trim().toLowerCase(Locale.ROOT));
            if (m == null || !m.matches()) {
                throw new IllegalArgumentException("case-timeout: '" + text + "' is not a number of seconds (90, 90s), minutes (10m) or hours (1h)");
            }
            long n = Long.parseLong(m.group(1));
            return caseTimeout(m.group(2) == null || m.group(2).equals("s") ? Duration.ofSeconds(n)
                    : m.group(2).equals("h") ? Duration.ofHours(n) : Duration.ofMinutes(n));
        }

        /**
         * The options.
         *
         * @return the options, immutable
         * @throws IllegalArgumentException if no URL was given, or only one of the restart and start commands
         */
        public KitOptions build() {
            if (url == null) {
                throw new IllegalArgumentException("url: required");
            }
            if ((restartCommand == null) != (startCommand == null)) {
                throw new IllegalArgumentException("restart: --restart-command and --start-command go together");
            }
            return new KitOptions(this);
        }

        private static String blankToNull(String s) {
            return s == null || s.isBlank() ? null : s;
        }
    }
}
