package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The comparison C23 uses for texts a backend may store with replaced characters. */
class TextCasesTest {
    private static final String CLEF = TextCases.CLEF;

    @Test
    void intactOrEachSupplementaryCharacterReplacedByOneBmpCharacter() {
        assertTrue(TextCases.containsIntactOrReplaced("attempt 2 of 2 failed: x " + CLEF + " y", "x " + CLEF + " y"));
        assertTrue(TextCases.containsIntactOrReplaced("attempt 2 of 2 failed: x ? y", "x " + CLEF + " y"));
        assertFalse(TextCases.containsIntactOrReplaced("x  y", "x " + CLEF + " y"), "dropped, not replaced");
        assertFalse(TextCases.containsIntactOrReplaced("x ?? y", "x " + CLEF + " y"), "two characters for one");
        assertFalse(TextCases.containsIntactOrReplaced("y ? y", "x " + CLEF + " y"), "BMP characters must be intact");
        assertFalse(TextCases.containsIntactOrReplaced(null, "x"));
    }
}
