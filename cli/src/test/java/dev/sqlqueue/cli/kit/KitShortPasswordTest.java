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
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A short or common password ({@code e}, {@code kt}) is masked only where it stands as a token of its own:
 * the JUnit XML still parses and {@code prefixes.log} still names the prefixes, while a password quoted in
 * an error message (here the user-info part of a URL) is still masked on every line the kit prints.
 * PostgreSQL's trust authentication accepts any password for user postgres.
 */
class KitShortPasswordTest {
    @ParameterizedTest
    @ValueSource(strings = {"e", "kt"})
    void aShortPasswordLeavesTheXmlAndTheLedgerIntact(String password, @TempDir Path dir) throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream console = new PrintStream(buf, true, StandardCharsets.UTF_8);
        int rc = KitRunner.run(KitOptions.builder().url(KitDatabases.PG_URL).user("postgres").password(password)
                .modes("lease").cases("C01").reportDir(dir).console(console).errors(console).build());
        String out = buf.toString(StandardCharsets.UTF_8);
        System.out.println(out);
        assertEquals(KitRunner.OK, rc, out);

        List<Path> xml;
        try (Stream<Path> s = Files.list(dir)) {
            xml = s.filter(p -> p.getFileName().toString().startsWith("TEST-")).toList();
        }
        assertFalse(xml.isEmpty(), "JUnit XML written");
        for (Path f : xml) {
            String text = Files.readString(f);
            assertTrue(text.startsWith("<?xml version=\"1.0\" encoding="), text.substring(0, Math.min(80, text.length())));
            DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(f.toFile()); // throws if not XML
        }
        List<String> prefixes = KitDatabases.ledger(dir);
        assertEquals(2, prefixes.size(), "the probe and C01: " + prefixes);
        for (String p : prefixes) {
            assertTrue(p.matches("kt[0-9a-z]+_"), "a prefix as the kit made it: " + p);
        }
        String md = Files.readString(dir.resolve("conformance.md"));
        assertTrue(md.contains("| C01 round trip: enqueue, consume, ack | lease | passed |"), md);
        assertTrue(md.contains("| backend | postgresql |"), md);
        assertTrue(out.contains("sqlqueue conformance kit: backend postgresql"), out);
    }

    @Test
    void aUserInfoPasswordIsMaskedOnEveryLine(@TempDir Path dir) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream console = new PrintStream(buf, true, StandardCharsets.UTF_8);
        // the driver rejects the URL and quotes its user-info ("Incorrect port value : TopSecretUi@127.0.0.1")
        int rc = KitRunner.run(KitOptions.builder().url("jdbc:mariadb://root:TopSecretUi@127.0.0.1:3306/test")
                .reportDir(dir.resolve("r")).console(console).errors(console).build());
        String out = buf.toString(StandardCharsets.UTF_8);
        System.out.println(out);
        assertEquals(KitRunner.SETUP_ERROR, rc, out);
        assertFalse(out.contains("TopSecretUi"), out);
        assertTrue(out.contains("***"), out);
    }
}
