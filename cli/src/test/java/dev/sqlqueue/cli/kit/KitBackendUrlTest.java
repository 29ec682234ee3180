package dev.sqlqueue.cli.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.conformance.kit.KitOptions;
import dev.sqlqueue.conformance.kit.KitRunner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --backend} naming a backend that does not take the URL (mariadb with a PostgreSQL URL) is a
 * setup error before anything is created; a backend that is a variant of the URL's (sqlserver-broker on a
 * {@code jdbc:sqlserver:} URL) is not refused for that.
 */
class KitBackendUrlTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(KitOptions.Builder b, Path dir) {
        int rc = KitRunner.run(b.reportDir(dir).console(new PrintStream(out, true, StandardCharsets.UTF_8))
                .errors(new PrintStream(err, true, StandardCharsets.UTF_8)).build());
        System.out.println(out.toString(StandardCharsets.UTF_8));
        System.out.println(err.toString(StandardCharsets.UTF_8));
        return rc;
    }

    @Test
    void aBackendThatDoesNotTakeTheUrlIsRefusedAtStart(@TempDir Path dir) {
        int rc = run(KitOptions.builder().url(KitDatabases.PG_URL).user("postgres").password("").backend("mariadb")
                .modes("lease").cases("C01"), dir.resolve("report"));
        String e = err.toString(StandardCharsets.UTF_8);
        assertEquals(KitRunner.SETUP_ERROR, rc, e);
        assertTrue(e.contains("backend mariadb does not take the URL 'jdbc:postgresql://127.0.0.1:5432/test'"
                + " (it is a postgresql URL)"), e);
        assertFalse(Files.exists(dir.resolve("report")), "nothing ran");
    }

    @Test
    void aVariantOfTheUrlsBackendIsNotRefusedForThat(@TempDir Path dir) {
        // no SQL Server here: the run gets as far as opening it, which fails as unreachable
        int rc = run(KitOptions.builder().url("jdbc:sqlserver://127.0.0.1:1;databaseName=x;loginTimeout=2")
                .user("sa").password("x").backend("sqlserver-broker").cases("C01"), dir.resolve("report"));
        String e = err.toString(StandardCharsets.UTF_8);
        assertEquals(KitRunner.SETUP_ERROR, rc, e);
        assertFalse(e.contains("does not take the URL"), e);
        assertTrue(e.contains("cannot open backend sqlserver-broker"), e);
    }
}
