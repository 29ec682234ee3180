package dev.sqlqueue.teradata.model;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rejects answers scripted for the recording double ({@code RecordingJdbc}) that a real system could
 * not give under the model's rules, so a call-sequence test cannot pass on an impossible result:
 * dictionary rows that the statement's comparison would not select (rule K), and consumed rows holding
 * text a UNICODE column could not have stored without Unicode Pass Through (rule U).
 */
public final class ScriptedAnswers {
    private static final Pattern TABLES_V = Pattern.compile("SELECT (1|TableName) FROM DBC\\.TablesV WHERE (.+?)( ORDER BY TableName)?");
    private static final Pattern CONDITION = Pattern.compile("(UPPER\\()?(DatabaseName|TableName)\\)? (=|LIKE) (UPPER\\()?\\?\\)?( ESCAPE '\\\\')?");

    private ScriptedAnswers() {
    }

    /**
     * @param sql the statement the answer is for
     * @param params its parameters, in order
     * @param rows the scripted rows
     * @throws ModelViolation when a real system could not have answered so
     */
    public static void check(String sql, List<Object> params, List<Object[]> rows) {
        Matcher m = TABLES_V.matcher(sql);
        if (m.matches() && m.group(1).equals("TableName")) {
            String[] conds = m.group(2).split(" AND ");
            for (Object[] row : rows) {
                for (int i = 0; i < conds.length; i++) {
                    Matcher c = CONDITION.matcher(conds[i]);
                    if (c.matches() && c.group(2).equals("TableName") && c.group(3).equals("LIKE") && i < params.size()) {
                        boolean upper = c.group(1) != null && c.group(4) != null;
                        if (!SessionRules.like(String.valueOf(row[0]), String.valueOf(params.get(i)), '\\', upper)) {
                            throw new ModelViolation("scripted table name '" + row[0] + "' does not match " + conds[i]
                                    + " with '" + params.get(i) + "' in ANSI mode (rule K)");
                        }
                    }
                }
            }
        }
        if (sql.startsWith("SELECT AND CONSUME TOP 1 ")) {
            for (Object[] row : rows) {
                for (Object v : row) {
                    if (v instanceof String s) {
                        try {
                            SessionRules.checkUnicodeColumn("scripted", s, false);
                        } catch (java.sql.SQLException e) {
                            throw new ModelViolation("a scripted consumed row holds text no UNICODE column could store (rule U): "
                                    + e.getMessage());
                        }
                    }
                }
            }
        }
    }
}
