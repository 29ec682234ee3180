package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqlqueue.InvalidInputException;
import org.junit.jupiter.api.Test;

class SqlServerNamesTest {
    @Test
    void reservedWordsAreDelimited() {
        assertEquals("[ORDER]", SqlServerNames.quote("ORDER"));
        assertEquals("[select]", SqlServerNames.quote("select"));
        assertEquals("[dbo].[KEY]", SqlServerNames.qualified("dbo", "KEY"));
    }

    @Test
    void closingBracketIsDoubled() {
        assertEquals("[a]]b]", SqlServerNames.quote("a]b"));
        assertEquals("[]]]]]", SqlServerNames.quote("]]"));
        assertEquals("[x]];DROP TABLE t;--]", SqlServerNames.quote("x];DROP TABLE t;--"));
        assertEquals("[[a]", SqlServerNames.quote("[a"), "an opening bracket needs no escape inside [ ]");
    }

    @Test
    void emptyOverlongAndControlCharactersAreRejected() {
        for (String bad : new String[] {null, "", "a".repeat(129), "a\u0000b", "a\nb"}) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> SqlServerNames.quote(bad));
            assertEquals("identifier.invalid", e.rule());
        }
        assertEquals(130, SqlServerNames.quote("a".repeat(128)).length());
    }

    @Test
    void schemaOptionIsValidated() {
        assertEquals("_ops1", SqlServerNames.schema("_ops1"));
        for (String bad : new String[] {null, "", "1dbo", "dbo;drop", "a]b", "a.b", "дbo"}) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> SqlServerNames.schema(bad));
            assertEquals("option.schema", e.rule());
        }
    }
}
