package dev.sqlqueue.cli.kit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.conformance.kit.UrlTarget;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kit user who may not drop what the kit created (a MariaDB user without DROP, here an H2 user with
 * SELECT only): the clean-up said which objects it left, but not why, so the DBA had to guess. It now
 * quotes the server's refusal.
 */
class KitCleanUpDeniedTest {
    @TempDir
    Path dir;

    @Test
    void aCleanUpTheServerRefusesSaysWhatWasLeftAndTheServersReason() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
        String prefix = "ktdeny_";
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement st = c.createStatement()) {
            st.execute("create table \"" + prefix + "extra\" (id bigint primary key)");
            st.execute("create user looker password 'pw'");
            st.execute("grant select on \"" + prefix + "extra\" to looker");
        }
        UrlTarget target = new UrlTarget("h2", url, "looker", "pw", null, dir.resolve("ledger"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> target.cleanUp(prefix));
        assertTrue(e.getMessage().contains(prefix + "extra"), "names what is left: " + e.getMessage());
        // H2 error 90096, NOT_ENOUGH_RIGHTS_FOR_1: "Not enough rights for object ..."
        assertTrue(e.getMessage().contains("Not enough rights"), "quotes the server's refusal: " + e.getMessage());
    }
}
