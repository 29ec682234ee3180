package dev.sqlqueue.teradata.model;

import java.sql.SQLException;
import java.util.Locale;

/**
 * The documented Teradata rules the model enforces, one method per rule, each naming its source. The
 * model applies them; nothing here was observed on a Teradata system (none exists in this project).
 */
final class SessionRules {
    private SessionRules() {
    }

    // ---- Rule U: Unicode 6.0 BMP repertoire without Unicode Pass Through ----------------------------

    /**
     * Rule U. A value bound to a {@code CHARACTER SET UNICODE} column, in a session without Unicode Pass
     * Through (off by default), fails the request with error 6706 (untranslatable character) when it holds
     * a code point {@link VendorRepertoire} refuses. With Pass Through on, any Unicode scalar value passes;
     * an unpaired surrogate never does. Sources: Release Summary 16.00, "Unicode Pass Through";
     * International Character Set Support 17.20, "Unicode Pass Through Overview"; SQL DDL, "SET SESSION
     * CHARACTER SET UNICODE PASS THROUGH"; error text seen in practice: Oracle GoldenGate, "Character Map
     * Translation".
     */
    static void checkUnicodeColumn(String column, String value, boolean passThrough) throws SQLException {
        if (value == null) {
            return;
        }
        for (int i = 0; i < value.length(); ) {
            int cp = value.codePointAt(i);
            boolean lone = Character.isSurrogate(value.charAt(i)) && Character.charCount(cp) == 1;
            if (lone || (!passThrough && VendorRepertoire.refusedWithoutPassThrough(cp))) {
                throw new SQLException(String.format("[Teradata Database] [Error 6706] The string contains an"
                        + " untranslatable character (column %s, U+%04X)", column, cp), "HY000", 6706);
            }
            i += Character.charCount(cp);
        }
    }

    // ---- Rule C: the consume limit ----------------------------------------------------------------

    /**
     * Rule C. At most 2,210 {@code SELECT AND CONSUME} statements in one transaction (SQL Request and
     * Transaction Processing, B035-1142, "Locking Issues With Consume Mode SELECT Queries on a Queue
     * Table"). The manual gives the limit, not the error number, so the model fails the test: a backend
     * must never reach it.
     */
    static final int MAX_CONSUMES_PER_TRANSACTION = 2210;

    static void checkConsumeCount(int consumesInTransaction) {
        if (consumesInTransaction > MAX_CONSUMES_PER_TRANSACTION) {
            throw new ModelViolation("more than 2,210 SELECT AND CONSUME statements in one transaction"
                    + " (B035-1142, 'Locking Issues With Consume Mode SELECT')");
        }
    }

    // ---- Rule K: case-specific comparison of parameters in ANSI mode --------------------------------

    /**
     * Rule K. In ANSI mode a USING (parameter) value is CASESPECIFIC, and when either side of a
     * comparison is CASESPECIFIC the comparison is case specific; trailing pad spaces are ignored. An
     * {@code UPPER(col) = UPPER(?)} comparison is therefore the way to compare names case-blind. Sources:
     * SQL DML, "Character String Definitions in a USING Request Modifier"; SQL Functions, "Example:
     * Querying for Case-Specific Names".
     */
    static boolean equalsParameter(String column, String parameter, boolean bothUpper) {
        String a = rtrim(column);
        String b = rtrim(parameter);
        return bothUpper ? a.toUpperCase(Locale.ROOT).equals(b.toUpperCase(Locale.ROOT)) : a.equals(b);
    }

    /** Rule K for LIKE: {@code %}, {@code _}, an escape character; case specific unless both sides are upper-cased. */
    static boolean like(String value, String pattern, char escape, boolean bothUpper) {
        String v = rtrim(value);
        String p = pattern;
        if (bothUpper) {
            v = v.toUpperCase(Locale.ROOT);
            p = p.toUpperCase(Locale.ROOT);
        }
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < p.length(); i++) {
            char ch = p.charAt(i);
            if (ch == escape && i + 1 < p.length()) {
                re.append(java.util.regex.Pattern.quote(String.valueOf(p.charAt(++i))));
            } else if (ch == '%') {
                re.append(".*");
            } else if (ch == '_') {
                re.append('.');
            } else {
                re.append(java.util.regex.Pattern.quote(String.valueOf(ch)));
            }
        }
        return v.matches(re.toString());
    }

    /** Object names (databases, tables) are case-blind when written in SQL text (SQL Fundamentals, "Names"). */
    static String objectKey(String database, String table) {
        return (database + "." + table).toUpperCase(Locale.ROOT);
    }

    private static String rtrim(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }
}
