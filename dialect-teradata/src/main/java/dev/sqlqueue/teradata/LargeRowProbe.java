package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.Arrays;

/**
 * V2: whether a request row over 64,260 bytes (CLIv2 "Parcel Structure": the standard parcel body
 * limit) is accepted: the re-insert of a nack with a 64,000-byte payload, 8,000 header characters and a
 * 2,000-character error, all of U+2713 (3 bytes each in UTF8): about 94,000 bytes. Then it is consumed
 * back and compared.
 */
final class LargeRowProbe implements Probe {
    static final int PAYLOAD = TeradataStatements.MAX_PAYLOAD_BYTES;

    @Override
    public String id() {
        return "V2";
    }

    @Override
    public String question() {
        return "Is a request row over 64,260 bytes accepted (64,000-byte payload + 8,000 + 2,000 characters) and read back?";
    }

    @Override
    public String documented() {
        return "assumed, not confirmed: request rows up to ~94,000 bytes are accepted (the 1 MB rows feature covers table and"
                + " response rows)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        return TeradataProbes.withQueue(context, false, false, (c, n) -> {
            byte[] payload = new byte[PAYLOAD];
            Arrays.fill(payload, (byte) 7);
            String headers = "\u2713".repeat(TeradataStatements.MAX_HEADER_CHARS);
            String error = "\u2713".repeat(TeradataStatements.MAX_REASON_CHARS);
            try (PreparedStatement ps = c.prepareStatement(TeradataStatements.reinsert(n))) {
                ps.setLong(1, 1);
                ps.setInt(2, 1);
                JdbcTime.set(ps, 3, LocalDateTime.now());
                ps.setString(4, error);
                ps.setString(5, headers);
                ps.setBytes(6, payload);
                ps.executeUpdate();
            } catch (SQLException e) {
                return ProbeResult.differs("the INSERT of a ~94,000-byte request row was refused: " + TeradataProbes.describe(e));
            }
            c.commit();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.consume(n))) {
                if (!rs.next()) {
                    return ProbeResult.inconclusive("the row was accepted but the consume returned nothing");
                }
                boolean same = Arrays.equals(payload, rs.getBytes(8)) && headers.equals(rs.getString(7))
                        && error.equals(rs.getString(6));
                c.commit();
                String observed = "INSERT accepted (about " + (PAYLOAD + 3 * (headers.length() + error.length()))
                        + " bytes of data); consumed back " + (same ? "identical" : "DIFFERENT");
                return same ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
            } catch (SQLException e) {
                return ProbeResult.differs("the row was stored but consuming it failed: " + TeradataProbes.describe(e));
            }
        });
    }
}
