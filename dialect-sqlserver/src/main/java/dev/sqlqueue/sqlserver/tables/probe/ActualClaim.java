package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Jdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One run of the backend's claim with {@code SET STATISTICS XML ON} (review P6): the rows it claimed and the
 * actual plan the server returned after them. "SET STATISTICS XML (Transact-SQL)": with the option ON the server
 * returns, after each statement's own results, one XML document of how it ran (nvarchar(max)); the login needs
 * SHOWPLAN permission, without which the statement itself is not run. The option is set and cleared by plain
 * batches on {@code c} ({@link ProbeTables#plain}), so it applies to the claim's RPC and stays off afterwards.
 *
 * @param rows rows the claim returned
 * @param plan the actual plan of the claim's statement that reads the message table, or null (see {@code planNote})
 * @param planNote why there is no plan (the server returned none, or none that reads the table), or empty
 */
record ActualClaim(int rows, PlanSummary plan, String planNote) {

    /**
     * Claim up to {@code n} rows on {@code c} in its current transaction with an actual plan.
     *
     * @throws SQLException when the claim fails, for example for want of SHOWPLAN permission
     */
    static ActualClaim run(Connection c, ProbeTables t, int n, int leaseMs) throws SQLException {
        ProbeTables.plain(c, t.sql.probe("probeStatisticsXmlOn"));
        int rows = 0;
        List<String> showplans = new ArrayList<>();
        SQLException failed = null;
        try (PreparedStatement ps = Jdbc.prepare(c, t.sql.get("claim"), n, ProbeTables.QUEUE, leaseMs)) {
            boolean resultSet = ps.execute();
            while (true) {
                if (resultSet) {
                    try (ResultSet rs = ps.getResultSet()) {
                        boolean single = rs.getMetaData().getColumnCount() == 1;
                        while (rs.next()) {
                            String text = single ? rs.getString(1) : null;
                            if (text != null && text.startsWith("<ShowPlanXML")) {
                                showplans.add(text);
                            } else {
                                rows++;
                            }
                        }
                    }
                } else if (ps.getUpdateCount() == -1) {
                    break;
                }
                resultSet = ps.getMoreResults();
            }
        } catch (SQLException e) {
            failed = e;
        }
        try {
            ProbeTables.plain(c, t.sql.probe("probeStatisticsXmlOff"));
        } catch (SQLException e) {
            if (failed == null) {
                throw e;
            }
            failed.addSuppressed(e);
        }
        if (failed != null) {
            throw failed;
        }
        if (showplans.isEmpty()) {
            return new ActualClaim(rows, null, "the server returned no actual plan after the claim (SET STATISTICS XML ON had no"
                    + " effect)");
        }
        for (String doc : showplans) {
            PlanSummary p;
            try {
                p = PlanSummary.of(doc);
            } catch (IllegalArgumentException e) {
                return new ActualClaim(rows, null, "the server's showplan could not be read: " + e.getMessage());
            }
            if (p.reads(t.messagesInPlan())) {
                return new ActualClaim(rows, p, "");
            }
        }
        return new ActualClaim(rows, null, showplans.size() + " showplan document(s) returned, none reads " + t.messagesInPlan());
    }
}
