package dev.sqlqueue.teradata.model;

/**
 * Rule U's repertoire, built from what the vendor's pages say and independent of the backend's own table
 * ({@code unicode-6.0-bmp.ranges}): a code point the model refuses without Unicode Pass Through (UPT) is one
 * of these, in the vendor's words.
 *
 * <ul>
 *   <li>"Characters in SMP (Supplementary Planes 1 to 16) from all Unicode versions" and "Characters in
 *   BMP ... from Unicode versions 6.1.0 to 9.0.0" are pass-through characters (PTCs), refused without
 *   UPT (International Character Set Support 17.20, "Unicode Pass Through Overview"). The model knows
 *   the post-6.0 BMP characters only from the vendor's examples ({@link #POST_6_0_EXAMPLES}: U+20BD
 *   RUBLE SIGN, the overview's example, also the one inserted in "Unicode Pass Through Functionality").</li>
 *   <li>"Unassigned characters" and "Private use characters" are PTCs (same page). The model takes as
 *   unassigned what the JDK's Unicode data calls unassigned ({@link Character#UNASSIGNED}): unassigned in
 *   a later version means unassigned in 6.0 too; private use is U+E000..U+F8FF in the BMP.</li>
 *   <li>Noncharacters are neither PTCs nor "6.0 BMP characters supported by Teradata" (same page), so a
 *   session without UPT refuses them: U+FDD0..U+FDEF, U+FFFE, U+FFFF.</li>
 *   <li>U+FFFD: "You should not use UPT if you rely on Teradata to screen out Teradata unsupported
 *   characters or the REPLACEMENT CHARACTER (U+FFFD)" (same page): without UPT it is screened out.</li>
 *   <li>"In sessions where UPT is not enabled, importing a PTC results in an External-to-Internal (E2I)
 *   conversion exception and the query fails" ("Importing Unicode Characters in a Pass Through
 *   Session"); the error seen in practice is 6706 (Oracle GoldenGate, "Character Map Translation").</li>
 *   <li>An unpaired surrogate is an ill-formed code unit sequence, refused with or without UPT (UPT
 *   replaces it with U+FFFD, which the model does not need).</li>
 * </ul>
 *
 * <p>A BMP character assigned after Unicode 6.0 that is not in {@link #POST_6_0_EXAMPLES} is accepted
 * by the model: the vendor lists no more, and the model must not borrow the backend's table to know
 * them. Stateless.
 */
final class VendorRepertoire {
    /** BMP characters assigned after Unicode 6.0 that the vendor's pages name as unsupported. */
    static final int[] POST_6_0_EXAMPLES = {0x20BD};

    private VendorRepertoire() {
    }

    /** True when a session without Unicode Pass Through refuses {@code codePoint} in a UNICODE column. */
    static boolean refusedWithoutPassThrough(int codePoint) {
        if (codePoint > 0xFFFF || Character.isSurrogate((char) codePoint)) {
            return true;
        }
        if (codePoint >= 0xE000 && codePoint <= 0xF8FF) {
            return true;
        }
        if ((codePoint >= 0xFDD0 && codePoint <= 0xFDEF) || codePoint == 0xFFFE || codePoint == 0xFFFF) {
            return true;
        }
        if (codePoint == 0xFFFD || Character.getType(codePoint) == Character.UNASSIGNED) {
            return true;
        }
        for (int cp : POST_6_0_EXAMPLES) {
            if (cp == codePoint) {
                return true;
            }
        }
        return false;
    }
}
