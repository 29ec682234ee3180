package dev.sqlqueue.dashboard;

import dev.sqlqueue.InvalidInputException;
import java.time.Duration;

/**
 * What the dashboard shows and allows. Immutable; start from {@link #defaults()}.
 *
 * <ul>
 *   <li>{@code token}: when set, every request must carry it (header {@code Authorization: Bearer T},
 *       the cookie set by opening {@code ?token=T} once); otherwise it gets 401 and changes nothing.
 *       16..200 characters, each a letter A-Z or a-z, a digit or one of {@code - . _ ~} (it goes into a
 *       cookie and an address unchanged). Default none (the JDK server then accepts loopback binds only).</li>
 *   <li>{@code readOnly}: hide every action; the server refuses them (403). Default false.</li>
 *   <li>{@code payloadPreview}: show dead letters' payloads (text or hex, truncated). Default true.</li>
 *   <li>{@code previewChars}: length of a preview, 16..100,000 characters; default 500. The dead-letter view
 *       reads only each payload's first {@link dev.sqlqueue.DeadLetterSummary#PREVIEW_BYTES} (256) bytes, so a
 *       preview never shows more than those, whatever this says.</li>
 *   <li>{@code refresh}: how often the page reloads its data, 1 s..10 min; default 5 s.</li>
 *   <li>{@code sampleInterval}: how often the chart sampler reads each queue's stats and new history,
 *       100 ms..10 min; default 10 s.</li>
 *   <li>{@code listLimit}: dead letters and history rows shown per queue, 1..10,000; default 100.</li>
 * </ul>
 */
public final class DashboardOptions {
    private final String token;
    private final boolean readOnly;
    private final boolean payloadPreview;
    private final int previewChars;
    private final Duration refresh;
    private final Duration sampleInterval;
    private final int listLimit;

    private DashboardOptions(String token, boolean readOnly, boolean payloadPreview, int previewChars,
                             Duration refresh, Duration sampleInterval, int listLimit) {
        this.token = token;
        this.readOnly = readOnly;
        this.payloadPreview = payloadPreview;
        this.previewChars = previewChars;
        this.refresh = refresh;
        this.sampleInterval = sampleInterval;
        this.listLimit = listLimit;
    }

    /**
     * No token, actions on, payload previews on, 500 characters, refresh 5 s, samples every 10 s, 100 rows.
     *
     * @return the default options
     */
    public static DashboardOptions defaults() {
        return new DashboardOptions(null, false, true, 500, Duration.ofSeconds(5), Duration.ofSeconds(10), 100);
    }

    /**
     * With this token (null or blank: none).
     *
     * @param t the bearer token requests must carry, or null or blank for no token
     * @return a copy with this token
     * @throws InvalidInputException {@code dashboard.token.length} unless 16..200 characters,
     *         {@code dashboard.token.characters} for a character other than A-Z, a-z, 0-9 and {@code - . _ ~}
     */
    public DashboardOptions withToken(String t) {
        String v = t == null || t.isBlank() ? null : t;
        if (v != null && (v.length() < 16 || v.length() > 200)) {
            throw new InvalidInputException("dashboard.token.length",
                    "the dashboard token must be 16..200 characters, was " + v.length());
        }
        if (v != null) {
            for (int i = 0; i < v.length(); i++) {
                if (!tokenCharacter(v.charAt(i))) {
                    // the token is a secret: say where, not what
                    throw new InvalidInputException("dashboard.token.characters", "the dashboard token may hold only "
                            + "letters A-Z and a-z, digits and - . _ ~ (it goes into a cookie and an address), character "
                            + (i + 1) + " of " + v.length() + " is not one of them");
                }
            }
        }
        return new DashboardOptions(v, readOnly, payloadPreview, previewChars, refresh, sampleInterval, listLimit);
    }

    private static boolean tokenCharacter(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~';
    }

    /**
     * With or without actions.
     *
     * @param b true to hide every action and have the server refuse them (403)
     * @return a copy with this setting
     */
    public DashboardOptions withReadOnly(boolean b) {
        return new DashboardOptions(token, b, payloadPreview, previewChars, refresh, sampleInterval, listLimit);
    }

    /**
     * With or without dead letters' payload previews.
     *
     * @param b true to show each dead letter's payload (text or hex, truncated to {@link #previewChars()})
     * @return a copy with this setting
     */
    public DashboardOptions withPayloadPreview(boolean b) {
        return new DashboardOptions(token, readOnly, b, previewChars, refresh, sampleInterval, listLimit);
    }

    /**
     * With this preview length.
     *
     * @param n characters of a payload preview, 16..100,000
     * @return a copy with this length
     * @throws InvalidInputException {@code dashboard.preview-chars.range} unless 16..100,000
     */
    public DashboardOptions withPreviewChars(int n) {
        if (n < 16 || n > 100_000) {
            throw new InvalidInputException("dashboard.preview-chars.range", "preview length must be 16..100000 characters, was " + n);
        }
        return new DashboardOptions(token, readOnly, payloadPreview, n, refresh, sampleInterval, listLimit);
    }

    /**
     * With this page refresh interval.
     *
     * @param d how often the page reloads its data, 1 s..10 min
     * @return a copy with this interval
     * @throws InvalidInputException {@code dashboard.refresh.range} unless 1 s..10 min (also for null)
     */
    public DashboardOptions withRefresh(Duration d) {
        if (d == null || d.toMillis() < 1000 || d.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new InvalidInputException("dashboard.refresh.range", "refresh must be 1 s..10 min, was " + d);
        }
        return new DashboardOptions(token, readOnly, payloadPreview, previewChars, d, sampleInterval, listLimit);
    }

    /**
     * With this chart sampling interval.
     *
     * @param d how often the chart sampler reads each queue's stats and new history, 100 ms..10 min
     * @return a copy with this interval
     * @throws InvalidInputException {@code dashboard.sample-interval.range} unless 100 ms..10 min (also for null)
     */
    public DashboardOptions withSampleInterval(Duration d) {
        if (d == null || d.toMillis() < 100 || d.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new InvalidInputException("dashboard.sample-interval.range", "sample interval must be 100 ms..10 min, was " + d);
        }
        return new DashboardOptions(token, readOnly, payloadPreview, previewChars, refresh, d, listLimit);
    }

    /**
     * With this list limit.
     *
     * @param n dead letters and history rows shown per queue, 1..10,000
     * @return a copy with this limit
     * @throws InvalidInputException {@code dashboard.list-limit.range} unless 1..10,000
     */
    public DashboardOptions withListLimit(int n) {
        if (n < 1 || n > 10_000) {
            throw new InvalidInputException("dashboard.list-limit.range", "list limit must be 1..10000, was " + n);
        }
        return new DashboardOptions(token, readOnly, payloadPreview, previewChars, refresh, sampleInterval, n);
    }

    /** @return the bearer token every request must carry, or null for none */
    public String token() { return token; }
    /** @return true when actions are hidden and refused (403) */
    public boolean readOnly() { return readOnly; }
    /** @return true when dead letters' payloads are previewed */
    public boolean payloadPreview() { return payloadPreview; }
    /** @return the length of a payload preview in characters, 16..100,000 */
    public int previewChars() { return previewChars; }
    /** @return how often the page reloads its data, 1 s..10 min */
    public Duration refresh() { return refresh; }
    /** @return how often the chart sampler reads each queue, 100 ms..10 min */
    public Duration sampleInterval() { return sampleInterval; }
    /** @return dead letters and history rows shown per queue, 1..10,000 */
    public int listLimit() { return listLimit; }

    @Override
    public String toString() {
        return "DashboardOptions[token=" + (token == null ? "none" : "set") + ", readOnly=" + readOnly
                + ", payloadPreview=" + payloadPreview + ", refresh=" + refresh + ", sampleInterval=" + sampleInterval + "]";
    }
}
