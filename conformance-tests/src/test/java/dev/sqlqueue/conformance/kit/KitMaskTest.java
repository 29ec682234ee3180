package dev.sqlqueue.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KitMaskTest {
    private static final String XML = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuite name=\"JUnit Jupiter\" tests=\"1\">\n"
            + "  <testcase name=\"C01 round trip\" classname=\"x\">\n"
            + "    <failure message=\"login &quot;e&quot; failed for e\">failed: e &amp; kt at kt1abc_</failure>\n"
            + "    <system-out><![CDATA[password e, prefix kt1abc_, url jdbc:x://h/db]]></system-out>\n"
            + "  </testcase>\n</testsuite>\n";

    @Test
    void aPasswordIsMaskedOnlyAsATokenOfItsOwn() {
        KitMask e = new KitMask("jdbc:x://h/db", "e");
        assertEquals("the version and encoding: ***, (***) and ***@host", e.text("the version and encoding: e, (e) and e@host"));
        KitMask kt = new KitMask("jdbc:x://h/db", "kt");
        assertEquals("prefix kt8mo4c0nmf_ used by *** and ***", kt.text("prefix kt8mo4c0nmf_ used by kt and kt"));
        assertEquals("# kit run on jdbc:x://h/db by ***\nkt8mo4c0nmf_\nkt\n", kt.ledger("# kit run on jdbc:x://h/db by kt\nkt8mo4c0nmf_\nkt\n"),
                "prefixes.log: the comment masked, never a prefix line");
        assertEquals("a=*** b", new KitMask("jdbc:x://h/db", "p@ss!").text("a=p@ss! b"));
    }

    @Test
    void xmlSyntaxIsNeverTouched() {
        for (String password : new String[] {"e", "kt", "xml", "testcase", "quot", "amp", "name", "1", "UTF"}) {
            String masked = new KitMask("jdbc:x://h/db", password).xml(XML);
            // the markup (names, entity references) is as it was
            assertEquals(markup(XML), markup(masked), password + ":\n" + masked);
        }
        String masked = new KitMask("jdbc:x://h/db", "e").xml(XML);
        assertEquals(XML.replace("&quot;e&quot; failed for e\"", "&quot;***&quot; failed for ***\"")
                .replace("failed: e &amp;", "failed: *** &amp;").replace("password e,", "password ***,"), masked);
    }

    @Test
    void aUserInfoPasswordIsMaskedOnAStream() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        KitMask mask = new KitMask("jdbc:mariadb://root:TopSecretUi@127.0.0.1:3306/test", null);
        PrintStream out = mask.stream(new PrintStream(buf, true, StandardCharsets.UTF_8));
        out.println("clean-up of kt1_ failed: Incorrect port value : TopSecretUi@127.0.0.1");
        out.print("at jdbc:mariadb://root:TopSecretUi@127.0.0.1:3306/test");
        out.flush();
        assertEquals("clean-up of kt1_ failed: Incorrect port value : ***@127.0.0.1" + System.lineSeparator()
                + "at jdbc:mariadb://root:***@127.0.0.1:3306/test", buf.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theOnDiskLocationOfAMigrationScriptIsLeftOut() {
        String flyway = "Failed to execute script V1__queue_tables.sql ---- SQL State  : 42601 Location   :"
                + " db/migration/mariadb/V1__queue_tables.sql (/tmp/atk/file:/tmp/attack-kit/cli/target/sqlqueue.jar!/db/migration/mariadb/V1__queue_tables.sql) Line : 1";
        KitMask mask = new KitMask("jdbc:x://h/db", null);
        String expected = "Failed to execute script V1__queue_tables.sql ---- SQL State  : 42601 Location   :"
                + " db/migration/mariadb/V1__queue_tables.sql Line : 1";
        assertEquals(expected, mask.text(flyway));
        assertEquals("<failure message=\"" + expected + "\">" + expected + "</failure>",
                mask.xml("<failure message=\"" + flyway + "\">" + flyway + "</failure>"));
    }

    /** The document with its text and attribute values left out. */
    private static String markup(String xml) {
        return xml.replaceAll("<!\\[CDATA\\[.*?]]>", "<![CDATA[]]>").replaceAll("\"[^\"]*\"", "\"\"")
                .replaceAll(">[^<]*<", "><");
    }
}
