package dev.sqlqueue.cli.kit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * This module's tests run H2's own {@code assert} statements switched off, as H2 runs in production
 * ({@code -da:org.h2...} in the module's surefire {@code argLine}), and this project's on. H2's internal
 * assertions are developer checks that fire on concurrent session close and abort (h2database issues
 * #3764, #1697). With surefire's default {@code -ea}, {@code CaseTimeoutDatabaseTest} on H2 failed in CI
 * (and once in 13 runs here under load): after the kit aborted a timed-out case's connections, every later
 * connection failed with an {@code SQLException} whose message is just "GeneralError", so the next case
 * could not even list its tables. In H2 2.3.232 that message comes only from {@code DbException.convert}
 * given a {@code java.lang.Error} other than {@code OutOfMemoryError}, {@code StackOverflowError} or
 * {@code LinkageError} (read from its bytecode), which with {@code -ea} is one of H2's assertions; the
 * failure was not caught with its stack trace.
 */
class H2AssertionsOffTest {
    @Test
    void h2sInternalAssertionsAreOffAndOursAreOn() {
        assertFalse(org.h2.mvstore.MVStore.class.desiredAssertionStatus(), "H2's assertions must be off (-da:org.h2...)");
        assertFalse(org.h2.engine.SessionLocal.class.desiredAssertionStatus(), "H2's assertions must be off (-da:org.h2...)");
        assertTrue(H2AssertionsOffTest.class.desiredAssertionStatus(), "this project's assertions stay on");
    }
}
