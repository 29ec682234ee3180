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
 * Protection for Queries"), read from {@code DBC.SessionInfoV.LogonRedrive} of the probe's own session,
 * and what the driver negotiated ({@code teradataProvide} RNP_ACTIVE and REDRIVE_ACTIVE: terajdbc asks for
 * REDRIVE level 3 unless the URL sets {@code REDRIVE}, {@code GenericTeradataConnection.desiredRedriveLevel}).
 * A session that takes part may have a consume resubmitted after a restart, out of order ("Redrive
 * Restrictions"); with RNP a dropped connection may keep its transaction open (V12). Creates nothing.
 */
final class RedriveProbe implements Probe {
    @Override
    public String id() {
        return "V3";
    }

    @Override
    public String question() {
        return "Does a session of this user take part in Redrive (DBC.SessionInfoV.LogonRedrive), and did the driver negotiate"
                + " RNP or Redrive?";
    }

    @Override
    public String documented() {
        return "Redrive off for the backend's user and REDRIVE=0 in the URL (docs/backends/teradata.md): neither Redrive nor RNP";
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
            String rnp = DriverInternals.provide(c, "RNP_ACTIVE");
            String redrive = DriverInternals.provide(c, "REDRIVE_ACTIVE");
            String observed = "LogonRedrive = " + (value == null ? "NULL" : "'" + value.trim() + "'") + "; driver RNP_ACTIVE="
                    + rnp + ", REDRIVE_ACTIVE=" + redrive;
            if (!off) {
                return ProbeResult.differs(observed + ": this user's sessions take part in Redrive; turn it off for it");
            }
            if ("true".equals(rnp) || "true".equals(redrive)) {
                return ProbeResult.differs(observed + ": the driver negotiated RNP or Redrive; add REDRIVE=0 to the URL");
            }
            return rnp == null ? ProbeResult.inconclusive(observed + ": not participating in Redrive; the driver's view is"
                    + " unknown (not terajdbc?)") : ProbeResult.asDocumented(observed + ": not participating");
        }
    }
}
