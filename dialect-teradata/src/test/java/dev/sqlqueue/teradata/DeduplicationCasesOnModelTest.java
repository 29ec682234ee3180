package dev.sqlqueue.teradata;

import dev.sqlqueue.conformance.DeduplicationCases;

/**
 * Conformance cases C24 to C26 (deduplication keys: under concurrency, in the caller's transaction, the
 * window) on the Teradata backend over the model, which interprets the keys-table statements.
 */
class DeduplicationCasesOnModelTest extends CasesOnModel implements DeduplicationCases {
}
