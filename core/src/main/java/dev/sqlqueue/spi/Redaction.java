package dev.sqlqueue.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps passwords out of messages and exceptions: a JDBC URL's {@code password=} parameters and its user-info
 * password ({@code //user:password@host}), and the configured password. A driver's own message may quote the
 * URL it could not use (MariaDB Connector/J: "Incorrect port value : secret@127.0.0.1"), so the texts of
 * causes are masked too, not only the URL. Stateless and thread-safe.
 */
public final class Redaction {
    /** Passwords shorter than this are not searched for in free text: masking "a" would garble the message. */
    static final int MIN_SECRET_LENGTH = 3;

    private static final Pattern PARAM = Pattern.compile("(?i)password=");
    private static final Pattern USER_INFO = Pattern.compile("(//[^/@?;:]*:)([^@/?;]*)@");

    private Redaction() {
    }

    /**
     * The URL with its password parameters and user-info password replaced by {@code ***}; null stays null.
     *
     * @param url a JDBC URL, or null
     * @return the URL with its passwords masked, or null
     */
    public static String url(String url) {
        if (url == null) {
            return null;
        }
        StringBuilder b = new StringBuilder(url.length());
        int from = 0;
        for (int[] v : passwordValues(url)) {
            b.append(url, from, v[0]).append("***");
            from = v[1];
        }
        b.append(url, from, url.length());
        return USER_INFO.matcher(b).replaceAll("$1***@");
    }

    /**
     * Where each {@code password=} parameter's value is in {@code url}: {@code [start, end)}. A value runs to the
     * separator of the URL's form: {@code &} in a query string (the parameter comes after a {@code ?}: PostgreSQL,
     * MariaDB), else {@code ;} (H2, SQL Server); a SQL Server value in braces runs to its closing brace ({@code }}}
     * inside is one brace, Microsoft JDBC Driver, "Setting the connection properties"). A Teradata list
     * ({@code PASSWORD=p,TMODE=...}) is masked to its end or next {@code ;}: more than the password, never less.
     */
    private static List<int[]> passwordValues(String url) {
        List<int[]> out = new ArrayList<>();
        Matcher m = PARAM.matcher(url);
        int at = 0;
        while (at < url.length() && m.find(at)) {
            int start = m.end();
            int end;
            if (start < url.length() && url.charAt(start) == '{') {
                end = url.length();
                for (int i = start + 1; i < url.length(); i++) {
                    if (url.charAt(i) == '}') {
                        if (i + 1 < url.length() && url.charAt(i + 1) == '}') {
                            i++;
                        } else {
                            end = i + 1;
                            break;
                        }
                    }
                }
            } else {
                char separator = url.lastIndexOf('?', m.start()) >= 0 ? '&' : ';';
                end = url.indexOf(separator, start);
                if (end < 0) {
                    end = url.length();
                }
            }
            out.add(new int[] {start, end});
            at = Math.max(end, start);
            if (at == start) {
                at++;
            }
        }
        return out;
    }

    /**
     * The passwords in {@code url} (its {@code password=} values and its user-info password) and
     * {@code password} (either may be null), longest first, whatever their length: for a caller that masks
     * them by its own rule (the conformance kit masks a password only where it stands as a token of its own).
     *
     * @param url a JDBC URL, or null
     * @param password a password, or null
     * @return the non-empty passwords found, longest first (a password may appear more than once); empty when none
     */
    public static List<String> secrets(String url, String password) {
        List<String> out = new ArrayList<>();
        if (password != null && !password.isEmpty()) {
            out.add(password);
        }
        if (url != null) {
            for (int[] v : passwordValues(url)) {
                if (v[1] > v[0]) {
                    out.add(url.substring(v[0], v[1]));
                }
            }
            Matcher m = USER_INFO.matcher(url);
            while (m.find()) {
                if (!m.group(2).isEmpty()) {
                    out.add(m.group(2));
                }
            }
        }
        out.sort((a, b) -> b.length() - a.length());
        return out;
    }

    /**
     * {@code text} with the passwords of {@code url} and {@code password} masked: the URL itself where it
     * appears whole, then every occurrence of a password of at least 3 characters.
     *
     * @param text the text to mask, or null
     * @param url the JDBC URL whose passwords to mask, or null
     * @param password another password to mask, or null
     * @return the masked text, or null for null
     */
    public static String text(String text, String url, String password) {
        if (text == null) {
            return null;
        }
        String out = url != null && !url.isEmpty() ? text.replace(url, url(url)) : text;
        for (String s : secrets(url, password)) {
            if (s.length() >= MIN_SECRET_LENGTH) {
                out = out.replace(s, "***");
            }
        }
        return out;
    }

    /**
     * A copy of {@code e} and its causes whose messages are masked as by {@link #text}, each with the
     * original's stack trace; its {@code toString()} (the first line of a stack trace) names the original's
     * class, and for a {@link java.sql.SQLException} its SQLState and error code. The originals are not kept.
     *
     * @param e the exception to copy, or null
     * @param url the JDBC URL whose passwords to mask, or null
     * @param password another password to mask, or null
     * @return the masked copy (an exception of a private class), or null for null
     */
    public static Throwable throwable(Throwable e, String url, String password) {
        if (e == null) {
            return null;
        }
        String head = e.getClass().getName();
        if (e instanceof java.sql.SQLException s) {
            head += " (SQLState " + s.getSQLState() + ", error " + s.getErrorCode() + ")";
        }
        Throwable cause = e.getCause() == e ? null : throwable(e.getCause(), url, password);
        Masked copy = new Masked(head, text(e.getMessage(), url, password), cause);
        copy.setStackTrace(e.getStackTrace());
        return copy;
    }

    /** An exception whose message was masked. */
    static final class Masked extends Exception {
        private static final long serialVersionUID = 1L;
        private final String original;

        Masked(String original, String message, Throwable cause) {
            super(message, cause);
            this.original = original;
        }

        @Override
        public String toString() {
            return getMessage() == null ? original : original + ": " + getMessage();
        }
    }
}
