package dev.sqlqueue.teradata.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.teradata.TeradataText;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The backend's repertoire table ({@code unicode-6.0-bmp.ranges}, read by {@link TeradataText}) checked
 * against the model's, which is built from the vendor's pages alone ({@link VendorRepertoire}): no code
 * point the vendor says a session without Unicode Pass Through refuses may pass the backend's check.
 */
class RepertoireAgreementTest {
    @Test
    void theBackendRefusesEveryCodePointTheVendorsPagesSayIsRefused() {
        List<String> accepted = new ArrayList<>();
        for (int cp = 0; cp <= 0x10FFFF; cp++) {
            if (VendorRepertoire.refusedWithoutPassThrough(cp) && TeradataText.storable(cp)) {
                accepted.add(String.format("U+%04X", cp));
            }
        }
        assertEquals(List.of(), accepted.size() > 20 ? accepted.subList(0, 20) : accepted,
                accepted.size() + " code points the backend would send and the database refuses (6706)");
    }

    @Test
    void theVendorsExamplesAndCategories() {
        for (int cp : new int[] {0xE000, 0xF8FF, 0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0xFFFD, 0x20BD, 0x1D11E, 0x1F602, 0xD800}) {
            assertTrue(VendorRepertoire.refusedWithoutPassThrough(cp), String.format("U+%04X", cp));
        }
        for (int cp : new int[] {'a', 0x00FC, 0x2713, 0x65E5, 0x20AC, 0xFB00, 0xFFFC}) {
            assertFalse(VendorRepertoire.refusedWithoutPassThrough(cp), String.format("U+%04X", cp));
        }
    }
}
