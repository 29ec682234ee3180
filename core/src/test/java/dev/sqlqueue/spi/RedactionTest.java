package dev.sqlqueue.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class RedactionTest {
    @Test
    void urlsLoseTheirPasswordsAndKeepEverythingElse() {
        assertEquals("jdbc:mariadb://root:***@127.0.0.1:3306/test", Redaction.url("jdbc:mariadb://root:s3cret@127.0.0.1:3306/test"));
        assertEquals("jdbc:postgresql://h:5432/db?user=u&password=***&ssl=true",
                Redaction.url("jdbc:postgresql://h:5432/db?user=u&password=p@ss&ssl=true"));
        assertEquals("jdbc:sqlserver://h:1433;user=sa;Password=***;encrypt=false",
                Redaction.url("jdbc:sqlserver://h:1433;user=sa;Password=Strong!1;encrypt=false"));
        assertEquals("jdbc:postgresql://h:5432/db?user=u", Redaction.url("jdbc:postgresql://h:5432/db?user=u"));
        assertEquals("jdbc:h2:file:/tmp/x;AUTO_SERVER=TRUE", Redaction.url("jdbc:h2:file:/tmp/x;AUTO_SERVER=TRUE"));
        assertEquals("jdbc:mariadb://root@h/test", Redaction.url("jdbc:mariadb://root@h/test"), "a user without a password");
        assertEquals("jdbc:sqlserver://srv:1433;user=admin@srv;password=***",
                Redaction.url("jdbc:sqlserver://srv:1433;user=admin@srv;password=x"), "an @ in a parameter is not user-info");
    }

    @Test
    void aDriversMessageQuotingThePasswordIsMasked() {
        String url = "jdbc:mariadb://root:hunter2@127.0.0.1:3307/test";
        assertEquals("Incorrect port value : ***@127.0.0.1", Redaction.text("Incorrect port value : hunter2@127.0.0.1", url, null));
        assertEquals("login failed for ***", Redaction.text("login failed for pa55word", "jdbc:x://h/db", "pa55word"));
        assertEquals("bad at", Redaction.text("bad at", "jdbc:x://h/db", "at"), "passwords of 1-2 characters are not searched for");
    }

    @Test
    void aCopiedCauseChainHoldsNoPasswordButKeepsTypesStatesAndStackTraces() {
        SQLException root = new SQLException("Incorrect port value : hunter2@127.0.0.1", "08000", 42);
        RuntimeException top = new RuntimeException("pool init failed: " + root.getMessage(), root);
        Throwable copy = Redaction.throwable(top, "jdbc:mariadb://root:hunter2@127.0.0.1:3307/test", null);
        StringWriter trace = new StringWriter();
        copy.printStackTrace(new PrintWriter(trace));
        assertFalse(trace.toString().contains("hunter2"), trace.toString());
        assertTrue(trace.toString().contains("java.lang.RuntimeException: pool init failed: Incorrect port value : ***@127.0.0.1"),
                trace.toString());
        assertTrue(trace.toString().contains("java.sql.SQLException (SQLState 08000, error 42): Incorrect port value : ***@"), trace.toString());
        assertEquals(top.getStackTrace().length, copy.getStackTrace().length);
        assertEquals("Incorrect port value : ***@127.0.0.1", copy.getCause().getMessage());
    }

    /**
     * A password runs to the separator of its URL's form, not to the first ; or &: a query string ({@code ?a=b&c=d},
     * PostgreSQL, MariaDB) ends it at &, a ;-list (H2, SQL Server) at ;, and SQL Server's braces at the closing
     * brace. The mask stopped at whichever came first and printed the rest of the password.
     */
    @Test
    void aPasswordHoldingTheOtherFormsSeparatorIsMaskedWhole() {
        assertEquals("jdbc:mariadb://127.0.0.1:3999/test?user=root&password=***",
                Redaction.url("jdbc:mariadb://127.0.0.1:3999/test?user=root&password=ab;LEAKB2"));
        assertEquals("jdbc:h2:tcp://127.0.0.1:5999/x;PASSWORD=***",
                Redaction.url("jdbc:h2:tcp://127.0.0.1:5999/x;PASSWORD=ab&LEAKB1"));
        assertEquals("jdbc:postgresql://127.0.0.1:5999/test?password=***&user=postgres",
                Redaction.url("jdbc:postgresql://127.0.0.1:5999/test?password=LEAK;A5&user=postgres"));
        assertEquals("jdbc:sqlserver://h;password=***;user=sa", Redaction.url("jdbc:sqlserver://h;password={a;b}};c};user=sa"));
        assertEquals("failed: *** at jdbc", Redaction.text("failed: ab;LEAKB2 at jdbc", "jdbc:mariadb://h/t?password=ab;LEAKB2", null),
                "the whole password is searched for in a driver's message");
    }
}
