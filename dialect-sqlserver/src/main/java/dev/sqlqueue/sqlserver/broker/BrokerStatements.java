package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.BrokerNames.literal;
import static dev.sqlqueue.sqlserver.broker.BrokerNames.quote;

import dev.sqlqueue.QueueName;

/**
 * Every SQL statement of the Service Broker backend, by role: {@link #provisioning()} (checks, lock, each
 * queue's broker objects), {@link #schema()} (the per-prefix tables), {@link #sending()} (enqueue),
 * {@link #claims()} (consume and settle), {@link #dialogs()} (dialog pool and sweeper), {@link #admin()}
 * (statistics, purge), {@link #deadLetters()} (dead letters and history) and {@link #probes()}; here only
 * the fragments they share. Written from the SQL Server documentation (Transact-SQL reference: CREATE
 * MESSAGE TYPE, CREATE CONTRACT, CREATE QUEUE, CREATE SERVICE, BEGIN DIALOG CONVERSATION, SEND, RECEIVE,
 * END CONVERSATION, sp_getapplock; catalog views sys.databases, sys.service_queues, sys.internal_tables,
 * sys.partitions, sys.conversation_endpoints, sys.transmission_queue). None of these statements has been run
 * against a SQL Server: tests pin their exact text and the JDBC call sequence only.
 *
 * <p>Rules kept by every statement: names come from {@link BrokerNames} (validated, quoted); values
 * are JDBC parameters except the few DDL numbers that T-SQL does not accept as variables (dialog
 * LIFETIME, MAX_QUEUE_READERS), which are validated integers; message bodies are never cast inside
 * RECEIVE (a failing cast there would leave the message stuck and give activation no event); times
 * come from {@code SYSUTCDATETIME()}. Immutable and thread-safe.
 */
public final class BrokerStatements {
    /** Message type names the broker itself sends. */
    public static final String END_DIALOG = "http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog";
    /**
     * The broker's Error message type: the dialog failed (the body says why).
     */
    public static final String ERROR = "http://schemas.microsoft.com/SQL/ServiceBroker/Error";
    /**
     * The broker's DialogTimer message type: a conversation timer ran out.
     */
    public static final String DIALOG_TIMER = "http://schemas.microsoft.com/SQL/ServiceBroker/DialogTimer";

    /** The 1970 epoch as datetime2(3): times cross JDBC as ms since it (BIGINT), never as a date type. */
    static final String EPOCH = "CAST('19700101' AS datetime2(3))";

    /** The longest dialog LIFETIME T-SQL accepts (about 68 years): for dialogs that are always ended explicitly. */
    public static final int LONGEST_LIFETIME_SECONDS = Integer.MAX_VALUE;

    private final BrokerNames n;
    private final ProvisioningStatements provisioning;
    private final SchemaStatements schema;
    private final SendStatements sending;
    private final ClaimStatements claims;
    private final DialogStatements dialogs;
    private final AdminStatements admin;
    private final DeadLetterStatements deadLetters;
    private final ProbeStatements probes;

    /**
     * The statements of one prefix.
     *
     * @param names the object names of the prefix
     */
    public BrokerStatements(BrokerNames names) {
        this.n = names;
        this.provisioning = new ProvisioningStatements(names);
        this.schema = new SchemaStatements(names);
        this.sending = new SendStatements(names);
        this.claims = new ClaimStatements(names);
        this.dialogs = new DialogStatements(names);
        this.admin = new AdminStatements(names);
        this.deadLetters = new DeadLetterStatements(names);
        this.probes = new ProbeStatements(names);
    }

    /** @return the object names of the prefix */
    public BrokerNames names() {
        return n;
    }

    /** @return the statements that create and drop a queue's broker objects */
    public ProvisioningStatements provisioning() {
        return provisioning;
    }

    /** @return the statements that create and drop the prefix's tables */
    public SchemaStatements schema() {
        return schema;
    }

    /** @return the statements of sends */
    public SendStatements sending() {
        return sending;
    }

    /** @return the statements of claims and their settlements */
    public ClaimStatements claims() {
        return claims;
    }

    /** @return the statements of the dialog pool */
    public DialogStatements dialogs() {
        return dialogs;
    }

    /** @return the statements of statistics and purges */
    public AdminStatements admin() {
        return admin;
    }

    /** @return the statements of the dead-letter store */
    public DeadLetterStatements deadLetters() {
        return deadLetters;
    }

    /** @return the statements of the probes */
    public ProbeStatements probes() {
        return probes;
    }

    /** A datetime2(3) from ms since 1970 (DATEADD takes an int, so days and the rest are added apart). */
    static String fromMillis(String variable) {
        return "DATEADD(millisecond, CAST(" + variable + " % 86400000 AS int), DATEADD(day, CAST(" + variable
                + " / 86400000 AS int), " + EPOCH + "))";
    }

    /** BEGIN DIALOG from the queue's initiator service to its target service, with an explicit LIFETIME (validated 1..). */
    static String beginDialog(BrokerNames n, QueueName q, int lifetimeSeconds) {
        if (lifetimeSeconds < 1) {
            throw new IllegalArgumentException("dialog lifetime must be at least 1 s");
        }
        return "BEGIN DIALOG CONVERSATION @h FROM SERVICE " + quote(n.initiatorService(q)) + " TO SERVICE "
                + literal(n.service(q)) + ", N'CURRENT DATABASE' ON CONTRACT " + quote(n.contract(q))
                + " WITH LIFETIME = " + lifetimeSeconds + ", ENCRYPTION = OFF";
    }

    /**
     * The data messages of a queue still in {@code sys.transmission_queue}: a local SEND that cannot
     * reach the target queue at once (its conversation locked by a consumer, the queue disabled) waits
     * there, and is on its way to the queue (L3).
     */
    static String inTransit(BrokerNames n, QueueName q) {
        return "to_service_name = " + literal(n.service(q)) + " AND message_type_name = " + literal(n.messageType(q));
    }
}
