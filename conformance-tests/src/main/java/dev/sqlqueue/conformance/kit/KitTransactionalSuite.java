package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.conformance.ConformanceSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every case in the transactional claim mode, on the target of the running kit ({@link KitSession}). */
@DisplayName("transactional")
@ExtendWith(CaseTimeLimit.class)
public class KitTransactionalSuite extends ConformanceSuite {
    @Override
    protected ConformanceTarget target() {
        return KitSession.current();
    }

    @Override
    protected ClaimMode mode() {
        return ClaimMode.TRANSACTIONAL;
    }
}
