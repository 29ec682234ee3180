package dev.sqlqueue.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class KitReportTest {
    private final RunInfo info = new RunInfo("0.1.0-SNAPSHOT", "abc1234", "postgresql", "PostgreSQL 15.20", "PostgreSQL JDBC Driver 42.7.14",
            "2026-11-29 21:00:00 (database clock)", "jdbc:postgresql://h/db?password=***", List.of("lease", "transactional"),
            List.of(), Duration.ofSeconds(75), List.of("kta_", "ktb_"), List.of(),
            Duration.ofSeconds(600), null, "17.0.17 (Eclipse Adoptium)", "Linux 6.1.0 amd64",
            "isolation READ COMMITTED; autovacuum=on");
    private final List<CaseResult> results = List.of(
            new CaseResult("C13", "crash in lease mode", "transactional", "skipped", "lease mode only", 900),
            new CaseResult("C01", "round trip", "lease", "passed", "", 2100),
            new CaseResult("C01", "round trip", "transactional", "failed", "expected: <1> but was: <0> | pipe", 1500));

    @Test
    void markdownHasTheHeaderAndOneRowPerCaseAndMode() {
        String md = KitReport.markdown(info, results);
        assertTrue(md.contains("| sqlqueue | 0.1.0-SNAPSHOT (commit abc1234) |"), md);
        assertTrue(md.contains("| server | PostgreSQL 15.20 |"), md);
        assertTrue(md.contains("| Java | 17.0.17 (Eclipse Adoptium) |"), md);
        assertTrue(md.contains("| OS | Linux 6.1.0 amd64 |"), md);
        assertTrue(md.contains("| server settings | isolation READ COMMITTED; autovacuum=on |"), md);
        assertTrue(md.contains("| lease mode only | a consumer killed mid-handler loses the message"), "each row says what its case checks: " + md);
        assertTrue(md.contains("| JDBC driver | PostgreSQL JDBC Driver 42.7.14 |"), md);
        assertTrue(md.contains("| duration | 75.0 s |"), md);
        assertTrue(md.contains("| case time limit | 600 s (--case-timeout) |"), md);
        assertTrue(md.contains("| result | 1 passed, 1 failed, 1 skipped |"), md);
        assertTrue(md.contains("| objects left behind | none (2 table prefixes used, all dropped) |"), md);
        int c01lease = md.indexOf("| C01 round trip | lease | passed | 2.1 |  |");
        int c01tx = md.indexOf("| C01 round trip | transactional | **failed** | 1.5 | expected: <1> but was: <0> \\| pipe |");
        int c13 = md.indexOf("| C13 crash in lease mode | transactional | skipped | 0.9 | lease mode only |");
        assertTrue(c01lease > 0 && c01tx > c01lease && c13 > c01tx, md);
    }

    @Test
    void consoleTableHasAColumnPerModeAndTheReasons() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        KitReport.console(new PrintStream(buf, true, StandardCharsets.UTF_8), info, results);
        List<String> lines = buf.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals("case                                         lease          transactional", lines.get(2));
        assertEquals("C01 round trip                               passed         FAILED", lines.get(3));
        assertEquals("C13 crash in lease mode                      -              skipped", lines.get(4));
        assertTrue(lines.contains("  C13 transactional skipped: lease mode only"), lines.toString());
        assertTrue(lines.get(lines.size() - 1).startsWith("1 passed, 1 failed, 1 skipped; 75.0 s; objects left behind: none"));
    }
}
