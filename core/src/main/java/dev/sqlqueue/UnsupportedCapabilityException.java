package dev.sqlqueue;

/** The backend does not offer the capability the call needs (see {@link Capabilities}). */
public class UnsupportedCapabilityException extends SqlQueueException {
    private final Capability capability;

    /**
     * The backend does not offer the capability.
     *
     * @param capability the capability missing
     * @param backend the backend's name, for the message
     */
    public UnsupportedCapabilityException(Capability capability, String backend) {
        super("backend '" + backend + "' does not support " + capability.describe());
        this.capability = capability;
    }

    /**
     * The backend offers the capability but not this operation on it (yet), for example pruning the
     * history of a backend that keeps one.
     *
     * @param capability the capability the operation belongs to
     * @param backend the backend's name, for the message
     * @param operation the operation missing, in a few words (for example {@code "history pruning"})
     */
    public UnsupportedCapabilityException(Capability capability, String backend, String operation) {
        super("backend '" + backend + "' does not support " + operation + " (" + capability.describe() + ")");
        this.capability = capability;
    }

    /** @return the capability the call needed */
    public Capability capability() {
        return capability;
    }
}
