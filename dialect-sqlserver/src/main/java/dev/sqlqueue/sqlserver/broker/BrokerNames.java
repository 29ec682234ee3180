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

    /**
     * The table prefix every name of this instance starts with.
     *
     * @return the prefix, non-empty, without {@code :}
     */
    public String prefix() {
        return prefix;
    }

    /**
     * {@code [x]} with {@code ]} doubled.
     *
     * @param identifier the identifier, as given
     * @return the bracket-quoted identifier
     */
    public static String quote(String identifier) {
        return "[" + identifier.replace("]", "]]") + "]";
    }

    /**
     * {@code N'x'} with {@code '} doubled.
     *
     * @param text the text to quote
     * @return the Unicode string literal
     */
    public static String literal(String text) {
        return "N'" + text.replace("'", "''") + "'";
    }

    private String raw(QueueName q, String kind) {
        return prefix + "bk:" + q.value() + ":" + kind;
    }

    private String table(String name) {
        return quote(SCHEMA) + "." + quote(prefix + "bk_" + name);
    }

    /**
     * The unquoted name of the data message type (VALIDATION = NONE).
     *
     * @param q the queue whose objects are named
     * @return the unquoted name of the data message type (VALIDATION = NONE)
     */
    public String messageType(QueueName q) {
        return raw(q, "msg");
    }

    /**
     * The unquoted name of the end-of-stream message type (VALIDATION = EMPTY).
     *
     * @param q the queue whose objects are named
     * @return the unquoted name of the end-of-stream message type (VALIDATION = EMPTY)
     */
    public String endOfStreamType(QueueName q) {
        return raw(q, "eos");
    }

    /**
     * The unquoted name of the queue's contract (the data and end-of-stream message types, sent by the initiator).
     *
     * @param q the queue whose objects are named
     * @return the contract's name
     */
    public String contract(QueueName q) {
        return raw(q, "contract");
    }

    /**
     * The unquoted name of the target queue (consumers RECEIVE here).
     *
     * @param q the queue whose objects are named
     * @return the unquoted name of the target queue (consumers RECEIVE here)
     */
    public String queue(QueueName q) {
        return raw(q, "queue");
    }

    /**
     * The unquoted name of the initiator queue (EndDialog and Error messages for senders).
     *
     * @param q the queue whose objects are named
     * @return the unquoted name of the initiator queue (EndDialog and Error messages for senders)
     */
    public String initiatorQueue(QueueName q) {
        return raw(q, "iqueue");
    }

    /**
     * The unquoted name of the target service (on the target queue; dialogs are begun to it).
     *
     * @param q the queue whose objects are named
     * @return the service's name
     */
    public String service(QueueName q) {
        return raw(q, "service");
    }

    /**
     * The unquoted name of the initiator service (on the initiator queue; dialogs are begun from it).
     *
     * @param q the queue whose objects are named
     * @return the service's name
     */
    public String initiatorService(QueueName q) {
        return raw(q, "iservice");
    }

    /**
     * {@code [dbo].[<queue>]}: a schema-qualified, quoted queue name.
     *
     * @param objectName the object's unquoted name
     * @return {@code [dbo].[objectName]} with each {@code ]} of the name doubled
     */
    public String qualified(String objectName) {
        return quote(SCHEMA) + "." + quote(objectName);
    }

    /**
     * Registry of the queues of this prefix.
     *
     * @return the quoted, schema-qualified table name
     */
    public String queuesTable() {
        return table("queues");
    }

    /**
     * The dialog pool shared by every process of this prefix.
     *
     * @return the dialog pool shared by every process of this prefix
     */
    public String dialogsTable() {
        return table("dialogs");
    }

    /**
     * Attempt counts kept by the adapter, keyed by queue and message id.
     *
     * @return the quoted, schema-qualified table name
     */
    public String attemptsTable() {
        return table("attempts");
    }

    /**
     * Dead letters of every queue of this prefix.
     *
     * @return the quoted, schema-qualified table name
     */
    public String deadTable() {
        return table("dead");
    }

    /**
     * Deduplication keys of every queue of this prefix.
     *
     * @return the quoted, schema-qualified table name
     */
    public String keysTable() {
        return table("keys");
    }

    /**
     * Message groups and the dialog each one travels on, shared by every process of this prefix.
     *
     * @return message groups and the dialog each one travels on, shared by every process of this prefix
     */
    public String groupsTable() {
        return table("groups");
    }

    /**
     * Messages of groups sent and not yet gone from the queue, one row each.
     *
     * @return messages of groups sent and not yet gone from the queue, one row each
     */
    public String groupPendingTable() {
        return table("group_pending");
    }

    /**
     * Processed messages (seed 001), written only when the queue config asks for history.
     *
     * @return the quoted, schema-qualified table name
     */
    public String historyTable() {
        return table("history");
    }

    /**
     * Pool fills that are complete (all their dialogs begun): only their spacers are ever ended (N5).
     *
     * @return the quoted, schema-qualified table name
     */
    public String fillsTable() {
        return table("fills");
    }

    /**
     * The sequence that assigns 64-bit message ids and pool fill ids.
     *
     * @return the quoted, schema-qualified name of the sequence that assigns 64-bit message ids and pool fill ids
     */
    public String idSequence() {
        return table("ids");
    }

    /**
     * The unquoted table or sequence name, for OBJECT_ID lookups.
     *
     * @param name the object's name as {@link #queuesTable()} and its siblings give it
     * @return the unquoted table or sequence name, for OBJECT_ID lookups
     */
    public String unquotedTable(String name) {
        return SCHEMA + "." + prefix + "bk_" + name;
    }

    /**
     * The application lock resource that serialises provisioning of this prefix.
     *
     * @return the application lock resource that serialises provisioning of this prefix
     */
    public String provisioningLock() {
        return prefix + "bk:provisioning";
    }
}
