package dev.sqlqueue.conformance.kit;

/**
 * One case in one claim mode: {@code status} is {@code passed}, {@code failed} or {@code skipped};
 * {@code detail} is the failure message or the skip reason (empty when passed); {@code millis} the
 * case's wall time.
 */
public record CaseResult(String caseId, String title, String mode, String status, String detail, long millis) {
    /**
     * Whether the case failed (a skip is not a failure).
     *
     * @return true when {@code status} is {@code failed}
     */
    public boolean failed() {
        return status.equals("failed");
    }
}
