package dev.sqlqueue.conformance;

import dev.sqlqueue.ClaimMode;

/** The whole suite in {@link ClaimMode#LEASE}: a backend's test class only supplies its target. */
public abstract class LeaseModeSuite extends ConformanceSuite {
    @Override
    protected final ClaimMode mode() {
        return ClaimMode.LEASE;
    }
}
