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

    private static final Pattern PARAM = Pattern.compile("(?i)(password=)([^;&]*)");
    private static final Pattern USER_INFO = Pattern.compile("(//[^/@?;:]*:)([^@/?;]*)@");

    private Redaction() {
    }

    /** The URL with its password parameters and user-info password replaced by {@code ***}; null stays null. */
    public static String url(String url) {
        if (url == null) {
            return null;
        }
        return USER_INFO.matcher(PARAM.matcher(url).replaceAll("$1***")).replaceAll("$1***@");
    }

    /** The passwords in {@code url} and {@code password} (either may be null), longest first. */
    static List<String> secrets(String url, String password) {
        List<String> out = new ArrayList<>();
        if (password != null && !password.isEmpty()) {
            out.add(password);
        }
        if (url != null) {
            for (Pattern p : List.of(PARAM, USER_INFO)) {
                Matcher m = p.matcher(url);
                while (m.find()) {
                    if (!m.group(2).isEmpty()) {
                        out.add(m.group(2));
                    }
                }
            }
        }
        out.sort((a, b) -> b.length() - a.length());
        return out;
    }

    /**
     * {@code text} with the passwords of {@code url} and {@code password} masked: the URL itself where it
     * appears whole, then every occurrence of a password of at least 3 characters.
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
