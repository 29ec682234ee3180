package dev.sqlqueue;

/** The backend does not offer the capability the call needs (see {@link Capabilities}). */
public class UnsupportedCapabilityException extends SqlQueueException {
    private final Capability capability;

    public UnsupportedCapabilityException(Capability capability, String backend) {
        super("backend '" + backend + "' does not support " + capability.describe());
        this.capability = capability;
    }

    /**
     * The backend offers the capability but not this operation on it (yet), for example pruning the
     * history of a backend that keeps one.
     */
    public UnsupportedCapabilityException(Capability capability, String backend, String operation) {
        super("backend '" + backend + "' does not support " + operation + " (" + capability.describe() + ")");
        this.capability = capability;
    }

    public Capability capability() {
        return capability;
    }
}
