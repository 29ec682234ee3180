package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * V3: whether the session the backend gets takes part in Redrive (Database Administration, "Redrive
 * Protection for Queries"), read from {@code DBC.SessionInfoV.LogonRedrive} of the probe's own session.
 * A session that takes part may have a consume resubmitted after a restart, out of order ("Redrive
 * Restrictions"). Creates nothing.
 */
final class RedriveProbe implements Probe {
    @Override
    public String id() {
        return "V3";
    }

    @Override
    public String question() {
        return "Does a session of this user take part in Redrive (DBC.SessionInfoV.LogonRedrive)?";
    }

    @Override
    public String documented() {
        return "Redrive must be off for the backend's user (docs/backends/teradata.md); it is off unless the DBA enabled it";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        try (Connection c = TeradataProbes.connect(context); Statement st = c.createStatement()) {
            String value;
            try (ResultSet rs = st.executeQuery(TeradataStatements.sessionRedrive())) {
                if (!rs.next()) {
                    return ProbeResult.inconclusive("DBC.SessionInfoV has no row for this session");
                }
                value = rs.getString(1);
            } catch (SQLException e) {
                return ProbeResult.inconclusive("cannot read DBC.SessionInfoV: " + TeradataProbes.describe(e));
            } finally {
                c.rollback();
            }
            boolean off = value == null || value.isBlank();
            String observed = "LogonRedrive = " + (value == null ? "NULL" : "'" + value.trim() + "'");
            return off ? ProbeResult.asDocumented(observed + ": not participating")
                    : ProbeResult.differs(observed + ": this user's sessions take part in Redrive; turn it off for it");
        }
    }
}
