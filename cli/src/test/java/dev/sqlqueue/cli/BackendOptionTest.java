package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --option KEY=VALUE} reaches the backend: on PostgreSQL, {@code postgresql.transaction-pooler=true}
 * refuses a URL whose driver prepares statements on the server (what would break behind pgbouncer in
 * transaction mode), a bad value names the option, and with {@code prepareThreshold=0} the command runs.
 */
class BackendOptionTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @TempDir
    Path dir;

    @Test
    void theTransactionPoolerOptionReachesThePostgresqlBackend() throws Exception {
        String prefix = "cliopt" + Long.toHexString(System.nanoTime() & 0xffffffL) + "_";
        Path lines = dir.resolve("lines.txt");
        Files.writeString(lines, "a\nb\n");

        Cli.Run bad = Cli.raw("stats", "--url", PG, "--table-prefix", prefix, "--option", "postgresql.transaction-pooler=maybe");
        assertEquals(2, bad.code(), bad::toString);
        assertTrue(bad.err().contains("postgresql.transaction-pooler"), bad::toString);

        Cli.Run prepared = Cli.raw("enqueue", "--url", PG + "&prepareThreshold=5", "--table-prefix", prefix,
                "--option", "postgresql.transaction-pooler=true", "-q", "jobs", lines.toString());
        assertTrue(prepared.code() != 0, prepared::toString);
        assertTrue(prepared.err().toLowerCase().contains("preparethreshold"), prepared::toString);

        Cli.Run ok = Cli.raw("enqueue", "--url", PG + "&prepareThreshold=0", "--table-prefix", prefix,
                "--option", "postgresql.transaction-pooler=true", "-q", "jobs", lines.toString());
        assertEquals(0, ok.code(), ok::toString);
        Cli.Run drop = Cli.raw("drop", "--url", PG, "--table-prefix", prefix, "--schema", "--yes");
        assertEquals(0, drop.code(), drop::toString);
    }
}
