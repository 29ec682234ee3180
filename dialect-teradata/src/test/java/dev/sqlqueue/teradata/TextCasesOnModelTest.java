package dev.sqlqueue.teradata;

import dev.sqlqueue.conformance.TextCases;

/**
 * Conformance case C23 (text outside the BMP) on the Teradata backend over the model: the header is
 * refused under {@code headers.charset}, the error text and the reason are stored with {@code ?} for
 * U+1D11E.
 */
class TextCasesOnModelTest extends CasesOnModel implements TextCases {
}
