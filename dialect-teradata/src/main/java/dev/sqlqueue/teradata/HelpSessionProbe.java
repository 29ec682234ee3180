package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * V6: the column labels of {@code HELP SESSION} as the driver reports them ({@code getColumnLabel}), and
 * the values of "Transaction Semantics" and "Character Set", which {@link SessionMode} reads. Creates nothing.
 */
final class HelpSessionProbe implements Probe {
    @Override
    public String id() {
        return "V6";
    }

    @Override
    public String question() {
        return "Does HELP SESSION report columns labelled 'Transaction Semantics' and 'Character Set' (ANSI, UTF8/UTF16)?";
    }

    @Override
    public String documented() {
        return "labels as in the HELP SESSION sample output (SQL DDL, HELP SESSION); values ANSI and UTF8 with TMODE=ANSI,CHARSET=UTF8";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        try (Connection c = TeradataProbes.connect(context); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(TeradataStatements.helpSession())) {
            ResultSetMetaData md = rs.getMetaData();
            List<String> labels = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                labels.add(md.getColumnLabel(i));
            }
            String semantics = null;
            String charset = null;
            if (rs.next()) {
                for (int i = 1; i <= labels.size(); i++) {
                    String label = labels.get(i - 1).trim();
                    if (label.equalsIgnoreCase("Transaction Semantics")) {
                        semantics = rs.getString(i);
                    } else if (label.equalsIgnoreCase("Character Set")) {
                        charset = rs.getString(i);
                    }
                }
            }
            c.rollback();
            String observed = labels.size() + " columns " + labels + "; Transaction Semantics = " + semantics
                    + ", Character Set = " + charset;
            if (semantics == null || charset == null) {
                return ProbeResult.differs(observed + ": a label the backend reads is missing");
            }
            String cs = charset.trim().toUpperCase(Locale.ROOT);
            boolean ok = semantics.trim().equalsIgnoreCase("ANSI") && (cs.equals("UTF8") || cs.equals("UTF16"));
            return ok ? ProbeResult.asDocumented(observed)
                    : ProbeResult.inconclusive(observed + ": labels found; this session is not ANSI/UTF8 (check the URL)");
        }
    }
}
