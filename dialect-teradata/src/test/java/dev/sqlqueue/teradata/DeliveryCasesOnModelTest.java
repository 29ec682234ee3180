package dev.sqlqueue.teradata;

import dev.sqlqueue.conformance.DeliveryCases;

/**
 * Conformance cases C01, C07, C08, C09, C11 and C14 on the Teradata backend over the model (the cases of a
 * capability the backend lacks are skipped). C01 used to put U+1D11E in a header, which a Teradata session
 * without Unicode Pass Through refuses, so it failed on every Teradata system by design; text outside the
 * BMP is C23's ({@link TextCasesOnModelTest}).
 */
class DeliveryCasesOnModelTest extends CasesOnModel implements DeliveryCases {
}
