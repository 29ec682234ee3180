package dev.sqlqueue;

/** The backend does not offer the capability the call needs (see {@link Capabilities}). */
public class UnsupportedCapabilityException extends SqlQueueException {
    private final Capability capability;

    public UnsupportedCapabilityException(Capability capability, String backend) {
        super("backend '" + backend + "' does not support " + capability.describe());
        this.capability = capability;
    }

    public Capability capability() {
        return capability;
    }
}
