package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.QueueName;

/**
 * The names of every object this backend creates, derived from {@link dev.sqlqueue.QueueConfig#tablePrefix()}
 * and a validated {@link QueueName}, in the quoted forms SQL needs.
 *
 * <p>Broker objects of a queue are named {@code <prefix>bk:<queue>:<kind>}. The prefix may not contain
 * {@code :} and a queue name may not either, so two (prefix, queue) pairs can never produce the same
 * name. Per-prefix tables are {@code <prefix>bk_<table>} in schema {@code dbo}. Identifiers are quoted
 * with {@code []} (a {@code ]} doubled) and literals as {@code N'...'} (a {@code '} doubled), although
 * the validated inputs can hold neither character.
 *
 * <p>Immutable and thread-safe.
 */
public final class BrokerNames {
    /** The schema of every object. */
    public static final String SCHEMA = "dbo";

    private final String prefix;

    /**
     * @param prefix a prefix already validated by {@link dev.sqlqueue.QueueConfig.Builder#tablePrefix}
     * @throws IllegalArgumentException if it contains {@code :}
     */
    public BrokerNames(String prefix) {
        if (prefix == null || prefix.isEmpty() || prefix.indexOf(':') >= 0) {
            throw new IllegalArgumentException("table prefix must be non-empty and free of ':': " + prefix);
        }
        this.prefix = prefix;
    }

    public String prefix() {
        return prefix;
    }

    /** {@code [x]} with {@code ]} doubled. */
    public static String quote(String identifier) {
        return "[" + identifier.replace("]", "]]") + "]";
    }

    /** {@code N'x'} with {@code '} doubled. */
    public static String literal(String text) {
        return "N'" + text.replace("'", "''") + "'";
    }

    private String raw(QueueName q, String kind) {
        return prefix + "bk:" + q.value() + ":" + kind;
    }

    private String table(String name) {
        return quote(SCHEMA) + "." + quote(prefix + "bk_" + name);
    }

    /** The unquoted name of the data message type (VALIDATION = NONE). */
    public String messageType(QueueName q) {
        return raw(q, "msg");
    }

    /** The unquoted name of the end-of-stream message type (VALIDATION = EMPTY). */
    public String endOfStreamType(QueueName q) {
        return raw(q, "eos");
    }

    public String contract(QueueName q) {
        return raw(q, "contract");
    }

    /** The unquoted name of the target queue (consumers RECEIVE here). */
    public String queue(QueueName q) {
        return raw(q, "queue");
    }

    /** The unquoted name of the initiator queue (EndDialog and Error messages for senders). */
    public String initiatorQueue(QueueName q) {
        return raw(q, "iqueue");
    }

    public String service(QueueName q) {
        return raw(q, "service");
    }

    public String initiatorService(QueueName q) {
        return raw(q, "iservice");
    }

    /** {@code [dbo].[<queue>]}: a schema-qualified, quoted queue name. */
    public String qualified(String objectName) {
        return quote(SCHEMA) + "." + quote(objectName);
    }

    /** Registry of the queues of this prefix. */
    public String queuesTable() {
        return table("queues");
    }

    /** The dialog pool shared by every process of this prefix. */
    public String dialogsTable() {
        return table("dialogs");
    }

    /** Attempt counts kept by the adapter, keyed by queue and message id. */
    public String attemptsTable() {
        return table("attempts");
    }

    public String deadTable() {
        return table("dead");
    }

    /** Deduplication keys of every queue of this prefix. */
    public String keysTable() {
        return table("keys");
    }

    /** Message groups and the dialog each one travels on, shared by every process of this prefix. */
    public String groupsTable() {
        return table("groups");
    }

    /** Messages of groups sent and not yet gone from the queue, one row each. */
    public String groupPendingTable() {
        return table("group_pending");
    }

    /** Processed messages (seed 001), written only when the queue config asks for history. */
    public String historyTable() {
        return table("history");
    }

    /** Pool fills that are complete (all their dialogs begun): only their spacers are ever ended (N5). */
    public String fillsTable() {
        return table("fills");
    }

    /** The sequence that assigns 64-bit message ids and pool fill ids. */
    public String idSequence() {
        return table("ids");
    }

    /** The unquoted table or sequence name, for OBJECT_ID lookups. */
    public String unquotedTable(String name) {
        return SCHEMA + "." + prefix + "bk_" + name;
    }

    /** The application lock resource that serialises provisioning of this prefix. */
    public String provisioningLock() {
        return prefix + "bk:provisioning";
    }
}
