package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * V10 (re-review section 4, item 5): which edge code points a UNICODE column of this session accepts: each
 * is inserted alone in a header (its own request, rolled back), and the answer is compared with the
 * backend's table ({@link TeradataText#storable}).
 */
final class RepertoireProbe implements Probe {
    /** U+00E9 (supported), private use, a noncharacter, U+FFFD, U+FFFE, U+20BD (Unicode 7.0), U+1D11E (outside the BMP). */
    static final int[] CODE_POINTS = {0x00E9, 0xE000, 0xFDD0, 0xFFFD, 0xFFFE, 0x20BD, 0x1D11E};

    @Override
    public String id() {
        return "V10";
    }

    @Override
    public String question() {
        return "Which of U+00E9, U+E000, U+FDD0, U+FFFD, U+FFFE, U+20BD, U+1D11E does a UNICODE column accept in this session?";
    }

    @Override
    public String documented() {
        return "only U+00E9 without Unicode Pass Through (Unicode Pass Through Overview); the others fail with 6706;"
                + " the backend refuses them in headers (headers.charset)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        return TeradataProbes.withQueue(context, false, false, (c, n) -> {
            List<String> raw = new ArrayList<>();
            List<String> differ = new ArrayList<>();
            for (int cp : CODE_POINTS) {
                String text = new String(Character.toChars(cp));
                boolean stored;
                String seen;
                try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(n))) {
                    ps.setString(1, "k=" + text);
                    ps.setBytes(2, new byte[0]);
                    ps.executeUpdate();
                    stored = true;
                    seen = "stored";
                } catch (SQLException e) {
                    stored = false;
                    seen = "refused " + TeradataProbes.describe((Throwable) e);
                }
                c.rollback();
                String name = String.format("U+%04X", cp);
                raw.add(name + ": " + seen);
                if (stored != TeradataText.storable(cp)) {
                    differ.add(name);
                }
            }
            String observed = String.join("; ", raw) + (differ.isEmpty() ? "" : "; the backend's table disagrees on " + differ);
            return differ.isEmpty() ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        });
    }
}
