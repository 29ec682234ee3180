package dev.sqlqueue.conformance;

import dev.sqlqueue.ClaimMode;

/** The whole suite in {@link ClaimMode#TRANSACTIONAL}: a backend's test class only supplies its target. */
public abstract class TransactionalModeSuite extends ConformanceSuite {
    @Override
    protected final ClaimMode mode() {
        return ClaimMode.TRANSACTIONAL;
    }
}
