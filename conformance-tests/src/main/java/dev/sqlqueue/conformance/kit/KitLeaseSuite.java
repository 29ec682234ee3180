package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.conformance.ConformanceSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every case in the lease claim mode, on the target of the running kit ({@link KitSession}). */
@DisplayName("lease")
@ExtendWith(CaseTimeLimit.class)
public class KitLeaseSuite extends ConformanceSuite {
    @Override
    protected ConformanceTarget target() {
        return KitSession.current();
    }

    @Override
    protected ClaimMode mode() {
        return ClaimMode.LEASE;
    }
}
