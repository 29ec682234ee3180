package dev.sqlqueue.skiplocked;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.Ordering;
import java.util.EnumSet;

/** What the SKIP LOCKED backends offer, in one place. */
final class SkipLockedCapabilities {
    /** 1 MiB: the payload column of every database here holds it (H2 BLOB(1048576) since migration V5, bytea, MEDIUMBLOB). */
    static final int MAX_PAYLOAD_BYTES = 1_048_576;
    /** Rows one claim may lock; the claim statement and the lease update stay small. */
    static final int MAX_CLAIM_BATCH = 1000;

    private SkipLockedCapabilities() {
    }

    /** {@code serverWakeup}: PostgreSQL's LISTEN/NOTIFY is in use (not through a transaction pooler). */
    static Capabilities of(String name, SkipLockedDialect dialect, boolean serverWakeup) {
        EnumSet<Capability> features = EnumSet.of(Capability.DELAYED_DELIVERY, Capability.PRIORITY,
                Capability.LEASE_EXTENSION, Capability.NACK_DELAY, Capability.TRANSACTIONAL_ENQUEUE,
                Capability.HISTORY, Capability.DROP_SCHEMA, Capability.RAW_ROW_INSERT, Capability.MESSAGE_GROUPS,
                Capability.DEDUPLICATION, Capability.PAUSE,
                Capability.BROWSE, Capability.MOVE_CLAIM, Capability.MOVE_ENQUEUE,
                Capability.MOVE_KEYS, Capability.MOVE_HISTORY);
        if (dialect == SkipLockedDialect.POSTGRES && serverWakeup) {
            features.add(Capability.SERVER_SIDE_WAIT);
        }
        if (dialect != SkipLockedDialect.H2) {
            features.add(Capability.OLDEST_TRANSACTIONS);
        }
        Capabilities caps = new Capabilities(name, EnumSet.allOf(ClaimMode.class), features, Ordering.FIFO_APPROXIMATE,
                MAX_PAYLOAD_BYTES, MAX_CLAIM_BATCH);
        return dialect != SkipLockedDialect.H2 ? caps : caps.withAbsentReason(Capability.OLDEST_TRANSACTIONS,
                "H2's INFORMATION_SCHEMA.SESSIONS gives no transaction start; an embedded H2 has only this process's"
                        + " sessions, whose transactions the application itself holds");
    }
}
