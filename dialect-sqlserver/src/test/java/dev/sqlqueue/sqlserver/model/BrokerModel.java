package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Service Broker rules on top of {@link SqlServerModel}: queues hold messages that the test puts there
 * ({@link #arrive}); RECEIVE takes them as SQL Server documents, so a test can no longer script a
 * RECEIVE result (scripting one is rejected). Rules and sources:
 * <ul>
 *   <li>"RECEIVE (Transact-SQL)", Remarks: all messages one RECEIVE returns belong to one conversation
 *       group; a RECEIVE skips conversation groups locked by another transaction; the group stays locked
 *       by the receiving transaction until it ends. With a {@code WHERE conversation_handle = ...} only
 *       that conversation's messages are returned. {@code WAITFOR} with nothing available returns no
 *       rows (the model does not wait).</li>
 *   <li>"SET IMPLICIT_TRANSACTIONS (Transact-SQL)": RECEIVE, SEND, BEGIN DIALOG and END CONVERSATION
 *       are not on the list, so at {@code @@TRANCOUNT = 0} they run and commit on their own: a RECEIVE
 *       then removes its messages for good and holds no lock.</li>
 *   <li>"Removing Poison Messages" / "CREATE QUEUE (Transact-SQL)", POISON_MESSAGE_HANDLING: with
 *       the option ON (the default), five consecutive rollbacks of transactions that received from the
 *       queue set its status OFF; a RECEIVE from a disabled queue fails with error 9617. A rollback to a
 *       savepoint is not a rollback of the transaction: whether it counts is undocumented (review V1),
 *       so the model counts only whole-transaction rollbacks.</li>
 *   <li>"END CONVERSATION (Transact-SQL)", Remarks: ending a conversation removes its messages from
 *       the service queue (undone if the transaction rolls back).</li>
 *   <li>"SEND (Transact-SQL)", Remarks, and "Transmission Queue" (Service Broker, SQL Server 2008 docs):
 *       a message is sent when the sending transaction commits; within one instance it may go straight to
 *       the target queue; while the target queue is OFF (or the target service is not found) it is held in
 *       {@code sys.transmission_queue} with a {@code transmission_status} saying why, and is delivered once
 *       the target can receive. Messages of one conversation keep their order ("Dialog Conversations",
 *       exactly-once-in-order), so a message queues behind its conversation's held ones. The wording of
 *       {@code transmission_status} is the model's own. "Conversation Group Locks" (Service Broker, SQL
 *       Server 2005-2008 R2 docs): a group lock covers one side of a conversation only, so a target-side
 *       lock does not block the initiator, and the engine adds an incoming message to a queue even while
 *       another transaction holds that message's group: a target group locked by a receiving transaction
 *       does not hold a SEND back (the message lands on the queue; RECEIVEs of other transactions still
 *       skip the group). Not modelled: the sender-side group lock that SEND itself takes (the same page:
 *       every Broker statement locks the group it affects).</li>
 *   <li>"BEGIN DIALOG CONVERSATION (Transact-SQL)", LIFETIME, and "Dialog Conversations", dialog lifetime:
 *       a dialog still open when its lifetime (seconds, by the model's clock, {@link SqlServerModel#advance})
 *       runs out errors; each side whose endpoint exists gets an Error message
 *       ({@value #ERROR}) on its queue, and no further message is sent or delivered on it: SEND then fails
 *       with error 8429 ("Database Engine events and errors", 8429: endpoint not in a valid state for
 *       SEND). Messages it still held in the transmission queue stay there until END CONVERSATION: the
 *       docs do not say they are dropped earlier (the model keeps the reading under which L2 matters).</li>
 *   <li>"END CONVERSATION (Transact-SQL)", Remarks: ending one side without error sends an EndDialog
 *       message ({@value #END_DIALOG}) to the other side (if that side's endpoint exists, has not ended and
 *       the dialog has not errored); the ended side's messages leave its queue and the transmission queue;
 *       SEND on an ended conversation fails with 8429. WITH CLEANUP sends nothing.</li>
 *   <li>"sys.transmission_queue (Transact-SQL)": the rows come from the model's state; a simple
 *       {@code SELECT cols | COUNT_BIG(*) FROM sys.transmission_queue [WHERE col = value AND ...]} is computed
 *       (columns conversation_handle, to_service_name, message_type_name, message_body, enqueue_time (UTC),
 *       transmission_status), and scripting its result is rejected. A scripted row of a catalog query that
 *       also reads other views (the backend's statistics) is checked column by column where a column is a
 *       sum of such counts over sys.transmission_queue and NOLOCK counts over a queue the model keeps
 *       ({@link #checkScripted}); a contradicting row is rejected.</li>
 * </ul>
 * Not modelled: activation, remote routes, WITH ERROR on END CONVERSATION, the other columns of catalog
 * queries (still scripted). A model, never SQL Server.
 * Thread-safe under the model's lock.
 */
public final class BrokerModel implements Extension {
    /** "Broker Messages": the message type of an Error message. */
    public static final String ERROR = "http://schemas.microsoft.com/SQL/ServiceBroker/Error";
    /** "Broker Messages": the message type of an End Dialog message. */
    public static final String END_DIALOG = "http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog";

    /** One row of sys.transmission_queue. */
    public record Held(long order, UUID handle, String toService, String type, byte[] body, java.time.LocalDateTime enqueueTime,
            String status) {
    }

    /** A dialog: its initiator side (handle) and target side (targetHandle, endpoint made at the first delivery). */
    private static final class Dialog {
        final UUID handle;
        final UUID targetHandle = UUID.randomUUID();
        final String fromService;
        final String toService;
        final String initiatorQueue;
        /** Set by {@link #route}: the target queue, whatever the services say. */
        final String fixedQueue;
        final java.time.LocalDateTime expires;
        boolean targetExists;
        boolean errored;
        boolean initiatorEnded;
        boolean targetEnded;

        Dialog(UUID handle, String fromService, String toService, String initiatorQueue, String fixedQueue, java.time.LocalDateTime expires) {
            this.handle = handle;
            this.fromService = fromService;
            this.toService = toService;
            this.initiatorQueue = initiatorQueue;
            this.fixedQueue = fixedQueue;
            this.expires = expires;
        }
    }

    private final Map<UUID, Dialog> dialogs = new HashMap<>();
    private final Map<UUID, Dialog> byTarget = new HashMap<>();
    private final List<Held> held = new ArrayList<>();
    /** One message in a queue. */
    public record Message(long order, String queue, UUID group, UUID handle, long sequence, String type, byte[] body) {
    }

    private static final class Queue {
        final List<Message> messages = new ArrayList<>();
        boolean poisonHandling = true;
        boolean enabled = true;
        int rollbacks;
    }

    private final SqlServerModel model;
    private final Map<String, Queue> queues = new HashMap<>();
    /** conversation group → transaction id holding its lock. */
    private final Map<UUID, Integer> locks = new HashMap<>();
    /** transaction id → queues it received from. */
    private final Map<Integer, Set<String>> receivedBy = new HashMap<>();
    private final Map<UUID, Long> sequences = new HashMap<>();
    private final Set<UUID> ended = new LinkedHashSet<>();
    private long order;

    private BrokerModel(SqlServerModel model) {
        this.model = model;
    }

    /** Installs broker rules on a model. */
    public static BrokerModel on(SqlServerModel model) {
        BrokerModel b = new BrokerModel(model);
        model.install(b);
        return b;
    }

    private static String key(String queue) {
        return queue.toLowerCase(Locale.ROOT);
    }

    private Queue queue(String name) {
        return queues.computeIfAbsent(key(name), k -> new Queue());
    }

    private final List<UUID> nextDialogs = new ArrayList<>();

    /**
     * The next BEGIN DIALOGs return these handles, in order (then random ones). Which handle a BEGIN DIALOG
     * returns is the server's choice ("BEGIN DIALOG CONVERSATION (Transact-SQL)": a new uniqueidentifier), so
     * a test may name them.
     */
    public BrokerModel nextDialogs(String... handles) {
        synchronized (model) {
            for (String h : handles) {
                nextDialogs.add(UUID.fromString(h));
            }
        }
        return this;
    }

    /** Sets the queue's POISON_MESSAGE_HANDLING status (ON by default, as CREATE QUEUE's default). */
    public BrokerModel poisonHandling(String queue, boolean on) {
        synchronized (model) {
            queue(queue).poisonHandling = on;
        }
        return this;
    }

    /**
     * A message arrives on a queue, on conversation {@code handle} in conversation group {@code group}
     * (a dialog begun without RELATED_CONVERSATION has a group of its own on each side: "BEGIN DIALOG
     * CONVERSATION (Transact-SQL)", Remarks; pass {@code group = handle} for that case).
     *
     * @param queue the queue's name as the statements write it, e.g. {@code [dbo].[sqlq_bk:jobs:queue]}
     */
    public Message arrive(String queue, UUID group, UUID handle, String type, byte[] body) {
        synchronized (model) {
            long seq = sequences.merge(handle, 1L, Long::sum) - 1;
            Message m = new Message(++order, key(queue), group, handle, seq, type, body);
            queue(queue).messages.add(m);
            return m;
        }
    }

    /** A message on a conversation that is its own conversation group. */
    public Message arrive(String queue, UUID handle, String type, byte[] body) {
        return arrive(queue, handle, handle, type, body);
    }

    /** Messages still in the queue, in queue order. */
    public List<Message> messages(String queue) {
        synchronized (model) {
            expire();
            return List.copyOf(queue(queue).messages);
        }
    }

    /** False once poison handling disabled the queue. */
    public boolean enabled(String queue) {
        synchronized (model) {
            return queue(queue).enabled;
        }
    }

    /** Conversations ended by END CONVERSATION, committed or not, in order. */
    public Set<UUID> ended() {
        synchronized (model) {
            return Set.copyOf(ended);
        }
    }

    /** Whether a transaction (any session's) holds the lock on this conversation group. */
    public boolean locked(UUID group) {
        synchronized (model) {
            return locks.containsKey(group);
        }
    }

    @Override
    public void checkScript(String sql) {
        if (heldQuery(Tsql.tokens(sql)) != null) {
            throw new ImpossibleResultException("sys.transmission_queue rows are the broker model's: make a SEND wait there"
                    + " (target queue OFF, target service missing): " + sql);
        }
        for (String t : Tsql.tokens(sql)) {
            if (t.equalsIgnoreCase("RECEIVE")) {
                throw new ImpossibleResultException("RECEIVE results are the broker model's: put messages on the queue with"
                        + " BrokerModel.arrive (one RECEIVE returns one conversation group only): " + sql);
            }
        }
    }

    @Override
    public List<Object[]> execute(Ctx ctx, Tsql.Stmt st) throws SQLException {
        expire();
        return switch (st.kind()) {
            case RECEIVE -> receive(ctx, st);
            case END_CONVERSATION -> endConversation(ctx, st);
            case SEND -> send(ctx, st);
            case ALTER_OTHER -> alterQueue(ctx, st);
            case BEGIN_DIALOG -> beginDialog(ctx, st);
            case SELECT_FROM -> selectHeld(ctx, st);
            default -> null;
        };
    }

    private List<Object[]> receive(Ctx ctx, Tsql.Stmt st) throws SQLException {
        List<String> t = st.tokens();
        int from = indexOf(t, "FROM", 0);
        String queueName = t.get(from + 1);
        Queue q = queue(queueName);
        if (!q.enabled) {
            // "Removing Poison Messages": a disabled queue; error 9617
            throw new SQLException("The service queue \"" + queueName + "\" is currently disabled.", "S0001", 9617);
        }
        int top = Integer.MAX_VALUE;
        int markers = 0;
        int topAt = indexOf(t, "TOP", 0);
        List<String> columns = new ArrayList<>();
        int colStart = topAt < 0 ? indexOf(t, "RECEIVE", 0) + 1 : indexOf(t, ")", topAt) + 1;
        for (int i = 0; i < from; i++) {
            if (t.get(i).equals("?")) {
                markers++;
                if (i > topAt && topAt >= 0 && i < colStart) {
                    top = ((Number) ctx.param(st.params().get(markers - 1))).intValue();
                }
            }
        }
        for (int i = colStart; i < from; i++) {
            if (!t.get(i).equals(",")) {
                columns.add(t.get(i).toLowerCase(Locale.ROOT));
            }
        }
        UUID onlyHandle = null;
        UUID onlyGroup = null;
        int where = indexOf(t, "WHERE", from);
        if (where > 0) {
            String v = t.get(where + 3);
            Object known = v.equals("?") ? ctx.param(paramAt(st, where + 3)) : ctx.value(v);
            if (known == null) {
                throw new ImpossibleResultException("the broker model cannot RECEIVE from a conversation it does not know: " + st.text());
            }
            UUID value = UUID.fromString(String.valueOf(known));
            if (t.get(where + 1).equalsIgnoreCase("conversation_handle")) {
                onlyHandle = value;
            } else if (t.get(where + 1).equalsIgnoreCase("conversation_group_id")) {
                onlyGroup = value;
            } else {
                throw new ImpossibleResultException("the broker model knows RECEIVE ... WHERE conversation_handle or conversation_group_id only");
            }
        }
        Session s = ctx.session;
        int me = s.tranCount > 0 ? s.tx.id : -1;
        UUID group = null;
        for (Message m : q.messages) {
            Integer holder = locks.get(m.group());
            if ((holder == null || holder == me) && (onlyHandle == null || m.handle().equals(onlyHandle))
                    && (onlyGroup == null || m.group().equals(onlyGroup))) {
                group = m.group();
                break;
            }
        }
        if (group == null) {
            ctx.change("RECEIVE", st.text() + " (no rows)", null, null);
            return List.of();
        }
        List<Message> taken = new ArrayList<>();
        for (Message m : q.messages) {
            if (taken.size() < top && m.group().equals(group) && (onlyHandle == null || m.handle().equals(onlyHandle))) {
                taken.add(m);
            }
        }
        q.messages.removeAll(taken);
        UUID g = group;
        boolean newLock = !locks.containsKey(g);
        if (me > 0) {
            locks.put(g, me);
            receivedBy.computeIfAbsent(me, k -> new HashSet<>()).add(key(queueName));
        }
        ctx.change("RECEIVE", st.text(), () -> {
            q.messages.addAll(taken);
            q.messages.sort((a, b) -> Long.compare(a.order(), b.order()));
            if (newLock) {
                locks.remove(g);
            }
        }, () -> {
            if (newLock) {
                locks.remove(g);
            }
        });
        List<Object[]> rows = new ArrayList<>();
        for (Message m : taken) {
            Object[] row = new Object[columns.size()];
            for (int i = 0; i < row.length; i++) {
                row[i] = switch (columns.get(i)) {
                    case "conversation_group_id" -> m.group().toString();
                    case "conversation_handle" -> m.handle().toString();
                    case "message_sequence_number" -> m.sequence();
                    case "message_type_name" -> m.type();
                    case "message_body" -> m.body();
                    case "queuing_order" -> m.order();
                    default -> throw new ImpossibleResultException("the broker model has no column " + columns.get(i));
                };
            }
            rows.add(row);
        }
        return rows;
    }

    /**
     * Routes a dialog begun outside the model (a scripted pooled dialog): what is sent on initiator
     * handle {@code handle} goes to {@code targetQueue}, on a target conversation that is a conversation
     * group of its own ("BEGIN DIALOG CONVERSATION (Transact-SQL)", Remarks), when the sending transaction
     * commits (the class comment: held in the transmission queue while that queue is OFF). No LIFETIME.
     */
    public BrokerModel route(UUID handle, String targetQueue) {
        synchronized (model) {
            dialogs.put(handle, new Dialog(handle, null, null, null, key(targetQueue), null));
        }
        return this;
    }

    /**
     * Declares a service and its queue: a dialog begun {@code TO SERVICE} it delivers there, one begun
     * {@code FROM SERVICE} it gets its Error and EndDialog messages there. A dialog to a service the test
     * declared neither way is not followed (the model cannot say whether it exists).
     */
    public BrokerModel service(String serviceName, String queue) {
        synchronized (model) {
            services.put(serviceName, Optional.of(key(queue)));
            retry();
        }
        return this;
    }

    /** Declares that no service of this name exists: what is sent to it waits in the transmission queue. */
    public BrokerModel noService(String serviceName) {
        synchronized (model) {
            services.put(serviceName, Optional.empty());
        }
        return this;
    }

    /** Sets a queue's STATUS as a committed ALTER QUEUE would; ON delivers what waited for it. */
    public BrokerModel status(String queue, boolean on) {
        synchronized (model) {
            queue(queue).enabled = on;
            retry();
        }
        return this;
    }

    /** The rows of sys.transmission_queue, oldest first. */
    public List<Held> transmissionQueue() {
        synchronized (model) {
            expire();
            return List.copyOf(held);
        }
    }

    private final Map<String, Optional<String>> services = new HashMap<>();

    private static String name(String token) {
        String u = Tsql.unquote(token);
        return u.startsWith("[") && u.endsWith("]") ? u.substring(1, u.length() - 1) : u;
    }

    private List<Object[]> beginDialog(Ctx ctx, Tsql.Stmt st) {
        List<String> t = st.tokens();
        UUID h = nextDialogs.isEmpty() ? UUID.randomUUID() : nextDialogs.remove(0);
        t.stream().filter(x -> x.startsWith("@")).findFirst().ifPresent(v -> ctx.vars.put(v.toLowerCase(Locale.ROOT), h.toString()));
        int from = indexOf(t, "FROM", 0);
        int to = indexOf(t, "TO", 0);
        int life = indexOf(t, "LIFETIME", 0);
        String fromService = from > 0 ? name(t.get(from + 2)) : null;
        String toService = to > 0 ? name(t.get(to + 2)) : null;
        Optional<String> iq = fromService == null ? null : services.get(fromService);
        java.time.LocalDateTime expires = life > 0 ? model.clock().plusSeconds(Long.parseLong(t.get(life + 2))) : null;
        if (toService != null && services.containsKey(toService)) {
            Dialog d = new Dialog(h, fromService, toService, iq == null ? null : iq.orElse(null), null, expires);
            dialogs.put(h, d);
            ctx.change("BEGIN DIALOG", st.text(), () -> dialogs.remove(h), null);
        } else {
            ctx.change("BEGIN DIALOG", st.text(), null, null);
        }
        return NO_RESULT;
    }

    /**
     * "BEGIN DIALOG CONVERSATION", LIFETIME; "Dialog Conversations": a dialog open past its lifetime errors,
     * and each side whose endpoint exists gets an Error message (code -8489, "Database Engine events and
     * errors": the dialog exceeded its LIFETIME; broker-made errors carry negative codes, "Broker Messages").
     */
    private void expire() {
        java.time.LocalDateTime now = model.clock();
        for (Dialog d : dialogs.values()) {
            if (d.expires != null && !d.errored && !(d.initiatorEnded && d.targetEnded) && !now.isBefore(d.expires)) {
                d.errored = true;
                byte[] body = ("\uFEFF<?xml version=\"1.0\"?><Error xmlns=\"" + ERROR + "\"><Code>-8489</Code>"
                        + "<Description>The dialog has exceeded the specified LIFETIME.</Description></Error>")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_16LE);
                if (!d.initiatorEnded && d.initiatorQueue != null) {
                    put(d.initiatorQueue, d.handle, ERROR, body);
                }
                if (!d.targetEnded && d.targetExists) {
                    put(targetQueue(d).orElseThrow(), d.targetHandle, ERROR, body);
                }
            }
        }
    }

    private void put(String queueKey, UUID handle, String type, byte[] body) {
        long seq = sequences.merge(handle, 1L, Long::sum) - 1;
        queues.computeIfAbsent(queueKey, k -> new Queue()).messages.add(new Message(++order, queueKey, handle, handle, seq, type, body));
    }

    private Optional<String> targetQueue(Dialog d) {
        if (d.fixedQueue != null) {
            return Optional.of(d.fixedQueue);
        }
        return services.getOrDefault(d.toService, Optional.empty());
    }

    /**
     * Delivers one message from one side of a dialog to the other, or holds it in the transmission queue
     * (class comment). Returns false if it is held.
     */
    private boolean deliver(Dialog d, boolean toTarget, String type, byte[] body, Held already) {
        UUID from = toTarget ? d.handle : d.targetHandle;
        Optional<String> q = toTarget ? targetQueue(d) : Optional.ofNullable(d.initiatorQueue);
        if (!toTarget && d.initiatorQueue == null) {
            return true; // an initiator queue the test did not declare: not followed
        }
        String status = null;
        if (q.isEmpty()) {
            status = "the target service '" + d.toService + "' was not found (model wording)";
        } else if (!queue(q.get()).enabled) {
            status = "the target queue is disabled (STATUS = OFF) (model wording)";
        } else if (already == null && held.stream().anyMatch(x -> x.handle().equals(from))) {
            status = "waiting behind earlier messages of this conversation (model wording)";
        }
        if (status != null) {
            if (already == null) {
                held.add(new Held(++order, from, toTarget ? d.toService : d.fromService, type, body, model.clock(), status));
            }
            return false;
        }
        if (toTarget) {
            d.targetExists = true;
            byTarget.put(d.targetHandle, d);
            put(q.get(), d.targetHandle, type, body);
        } else {
            put(q.get(), d.handle, type, body);
        }
        return true;
    }

    /** Delivers what waits in the transmission queue and can now be received, in order per conversation. */
    private void retry() {
        expire();
        Set<UUID> stuck = new HashSet<>();
        for (Held x : List.copyOf(held)) {
            Dialog d = dialogs.get(x.handle());
            boolean toTarget = d != null;
            if (d == null) {
                d = byTarget.get(x.handle());
            }
            if (d == null || d.errored || stuck.contains(x.handle())) {
                continue;
            }
            if (deliver(d, toTarget, x.type(), x.body(), x)) {
                held.remove(x);
            } else {
                stuck.add(x.handle());
            }
        }
    }

    private List<Object[]> send(Ctx ctx, Tsql.Stmt st) throws SQLException {
        List<String> t = st.tokens();
        int open = t.indexOf("(");
        String arg = open >= 0 ? t.get(open + 1) : "";
        Object v = arg.equals("?") ? ctx.param(paramAt(st, open + 1)) : ctx.value(arg);
        UUID h = v == null ? null : UUID.fromString(String.valueOf(v));
        int typeAt = indexOf(t, "TYPE", 0);
        String type = typeAt > 0 ? t.get(typeAt + 1).replace("[", "").replace("]", "") : "DEFAULT";
        byte[] body = null;
        if (typeAt > 0 && typeAt + 3 < t.size() && t.get(typeAt + 2).equals("(")) {
            String b = t.get(typeAt + 3);
            Object bv = b.equals("?") ? ctx.param(paramAt(st, typeAt + 3)) : ctx.value(b);
            body = bv instanceof byte[] bytes ? bytes : null;
        }
        Dialog d = h == null ? null : dialogs.get(h);
        boolean toTarget = d != null;
        if (d == null && h != null) {
            d = byTarget.get(h);
        }
        if (d != null && (d.errored || (toTarget ? d.initiatorEnded : d.targetEnded))) {
            // "Database Engine events and errors", 8429
            throw new SQLException("The conversation endpoint is not in a valid state for SEND. The current endpoint state is '"
                    + (d.errored ? "ER" : "CD") + "'.", "S0001", 8429);
        }
        Dialog dd = d;
        byte[] bb = body;
        ctx.change("SEND", st.text() + (h == null ? "" : " " + h), null, d == null ? null : () -> {
            if (!dd.errored) {
                deliver(dd, toTarget, type, bb, null);
            }
        });
        return NO_RESULT;
    }

    /**
     * A {@code SELECT} that reads sys.transmission_queue alone, with {@code col = value} conditions joined by
     * AND: [select list start, FROM index, WHERE index or -1]; null for any other statement.
     */
    private static int[] heldQuery(List<String> t) {
        if (t.isEmpty() || !t.get(0).equalsIgnoreCase("SELECT") || t.stream().filter(x -> x.equalsIgnoreCase("FROM")).count() != 1
                || t.stream().filter(x -> x.equalsIgnoreCase("SELECT")).count() != 1) {
            return null;
        }
        int from = indexOf(t, "FROM", 0);
        if (from + 1 >= t.size() || !t.get(from + 1).equalsIgnoreCase("sys.transmission_queue")) {
            return null;
        }
        int where = indexOf(t, "WHERE", from);
        int end = t.size() - (t.get(t.size() - 1).equals(";") ? 1 : 0);
        if (where < 0 ? end != from + 2 : where != from + 2) {
            return null;
        }
        if (where > 0) {
            for (int i = where + 1; i < end; i += 4) {
                if (i + 2 >= end || !t.get(i + 1).equals("=") || (i + 3 < end && !t.get(i + 3).equalsIgnoreCase("AND"))) {
                    return null;
                }
            }
        }
        return new int[] {1, from, where};
    }

    private List<Object[]> selectHeld(Ctx ctx, Tsql.Stmt st) {
        List<String> t = st.tokens();
        int[] q = heldQuery(t);
        if (q == null) {
            return null;
        }
        int end = t.size() - (t.get(t.size() - 1).equals(";") ? 1 : 0);
        List<Held> rows = new ArrayList<>(held);
        if (q[2] > 0) {
            for (int i = q[2] + 1; i < end; i += 4) {
                String col = t.get(i).toLowerCase(Locale.ROOT);
                String tok = t.get(i + 2);
                Object want = tok.equals("?") ? ctx.param(paramAt(st, i + 2)) : tok.startsWith("@") ? ctx.value(tok) : Tsql.unquote(tok);
                if (want == null) {
                    throw new ImpossibleResultException("the broker model cannot filter sys.transmission_queue on a value it does not know: "
                            + st.text());
                }
                String w = String.valueOf(want);
                rows.removeIf(r -> !w.equalsIgnoreCase(String.valueOf(column(r, col))));
            }
        }
        List<String> items = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = q[0]; i < q[1]; i++) {
            if (t.get(i).equals(",")) {
                items.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(t.get(i)).append(' ');
            }
        }
        items.add(cur.toString());
        if (items.size() == 1 && items.get(0).toUpperCase(Locale.ROOT).startsWith("COUNT_BIG ( * )")) {
            return List.<Object[]>of(new Object[] {(long) rows.size()});
        }
        List<Object[]> out = new ArrayList<>();
        for (Held r : rows) {
            Object[] row = new Object[items.size()];
            for (int i = 0; i < row.length; i++) {
                row[i] = column(r, items.get(i).trim().toLowerCase(Locale.ROOT));
            }
            out.add(row);
        }
        return out;
    }

    /**
     * A scripted row of a catalog query (the backend's statistics) is checked where the model knows the answer:
     * each select-list item that is a sum of {@code (SELECT COUNT_BIG(*) FROM src [WITH (NOLOCK)] WHERE col =
     * 'literal' AND ...)} over sys.transmission_queue or a service queue the model keeps (a NOLOCK count sees
     * RECEIVE's uncommitted removals, as the model's queue list does) must equal what the model counts.
     */
    @Override
    public void checkScripted(String sql, List<Object[]> rows) {
        List<String> t = Tsql.tokens(sql);
        if (t.isEmpty() || !t.get(0).equalsIgnoreCase("SELECT") || Clauses.find(t, "FROM", 1, t.size()) >= 0
                || t.stream().noneMatch(x -> x.equalsIgnoreCase("sys.transmission_queue"))) {
            return;
        }
        int end = t.size() - (t.get(t.size() - 1).equals(";") ? 1 : 0);
        List<Clauses.Item> items = Clauses.items(t, 1, end);
        synchronized (model) {
            expire();
            for (int i = 0; i < items.size(); i++) {
                Long want = sum(t, items.get(i).from(), items.get(i).to());
                for (Object[] row : rows) {
                    if (want != null && i < row.length && (!(row[i] instanceof Number n) || n.longValue() != want)) {
                        throw new ImpossibleResultException("scripted " + items.get(i).label() + " = " + row[i] + ", but the broker model"
                                + " counts " + want + " from its queues and sys.transmission_queue: " + sql);
                    }
                }
            }
        }
    }

    /** A sum of countable subqueries in {@code t[from, to)}, or null if any term is not one. */
    private Long sum(List<String> t, int from, int to) {
        long total = 0;
        int i = from;
        while (i < to) {
            if (!t.get(i).equals("(") || !t.get(i + 1).equalsIgnoreCase("SELECT")) {
                return null;
            }
            int close = Clauses.close(t, i);
            Long n = count(t.subList(i + 1, close));
            if (n == null) {
                return null;
            }
            total += n;
            i = close + 1;
            if (i < to) {
                if (!t.get(i).equals("+")) {
                    return null;
                }
                i++;
            }
        }
        return i == from ? null : total;
    }

    private Long count(List<String> q) {
        if (q.size() < 7 || !q.get(1).equalsIgnoreCase("COUNT_BIG") || !q.get(2).equals("(") || !q.get(3).equals("*")
                || !q.get(4).equals(")") || !q.get(5).equalsIgnoreCase("FROM")) {
            return null;
        }
        String src = q.get(6);
        int i = 7;
        boolean nolock = false;
        if (i < q.size() && q.get(i).equalsIgnoreCase("WITH")) {
            if (i + 3 >= q.size() || !q.get(i + 2).equalsIgnoreCase("NOLOCK") || !q.get(i + 3).equals(")")) {
                return null;
            }
            nolock = true;
            i += 4;
        }
        Map<String, String> where = new HashMap<>();
        if (i < q.size()) {
            if (!q.get(i).equalsIgnoreCase("WHERE")) {
                return null;
            }
            for (i++; i < q.size(); i += 4) {
                if (i + 2 >= q.size() || !q.get(i + 1).equals("=") || !q.get(i + 2).matches("(?s)[Nn]?'.*'")
                        || (i + 3 < q.size() && !q.get(i + 3).equalsIgnoreCase("AND"))) {
                    return null;
                }
                where.put(q.get(i).toLowerCase(Locale.ROOT), Tsql.unquote(q.get(i + 2)));
            }
        }
        if (src.equalsIgnoreCase("sys.transmission_queue")) {
            try {
                return held.stream().filter(h -> where.entrySet().stream()
                        .allMatch(w -> w.getValue().equals(String.valueOf(column(h, w.getKey()))))).count();
            } catch (ImpossibleResultException e) {
                return null;
            }
        }
        Queue queue = queues.get(key(src));
        if (queue == null || !nolock || !where.keySet().stream().allMatch(k -> k.equals("message_type_name"))) {
            return null; // a table, or a queue the model was never told about, or a locking read
        }
        return queue.messages.stream().filter(m -> !where.containsKey("message_type_name") || where.get("message_type_name").equals(m.type()))
                .count();
    }

    private static Object column(Held r, String col) {
        return switch (col) {
            case "conversation_handle" -> r.handle().toString();
            case "to_service_name" -> r.toService();
            case "message_type_name" -> r.type();
            case "message_body" -> r.body();
            case "enqueue_time" -> r.enqueueTime();
            case "transmission_status" -> r.status();
            default -> throw new ImpossibleResultException("the broker model has no sys.transmission_queue column " + col);
        };
    }

    private List<Object[]> endConversation(Ctx ctx, Tsql.Stmt st) {
        String arg = st.tokens().get(2);
        Object v = arg.equals("?") ? ctx.param(st.params().get(0)) : ctx.value(arg);
        if (v == null) {
            // a handle the model does not know (read from a table it does not keep): it cannot say which ends
            ctx.change("END CONVERSATION", st.text() + " (a conversation the model does not know)", null, null);
            return NO_RESULT;
        }
        UUID h = UUID.fromString(String.valueOf(v));
        boolean cleanup = st.tokens().stream().anyMatch(x -> x.equalsIgnoreCase("CLEANUP"));
        List<Message> removed = new ArrayList<>();
        for (Queue q : queues.values()) {
            for (Message m : q.messages) {
                if (m.handle().equals(h)) {
                    removed.add(m);
                }
            }
            q.messages.removeIf(m -> m.handle().equals(h));
        }
        // the ended side's messages still waiting to be sent go too (class comment; the L2 premise)
        List<Held> dropped = new ArrayList<>(held.stream().filter(x -> x.handle().equals(h)).toList());
        held.removeAll(dropped);
        Dialog d = dialogs.get(h);
        boolean initiatorSide = d != null;
        if (d == null) {
            d = byTarget.get(h);
        }
        Dialog dd = d;
        boolean wasEnded = d != null && (initiatorSide ? d.initiatorEnded : d.targetEnded);
        if (d != null) {
            if (initiatorSide) {
                d.initiatorEnded = true;
            } else {
                d.targetEnded = true;
            }
        }
        ended.add(h);
        ctx.change("END CONVERSATION", st.text() + " " + h, () -> {
            for (Message m : removed) {
                Queue q = queues.get(m.queue());
                q.messages.add(m);
                q.messages.sort((a, b) -> Long.compare(a.order(), b.order()));
            }
            held.addAll(dropped);
            held.sort((a, b) -> Long.compare(a.order(), b.order()));
            if (dd != null && !wasEnded) {
                if (initiatorSide) {
                    dd.initiatorEnded = false;
                } else {
                    dd.targetEnded = false;
                }
            }
            ended.remove(h);
        }, dd == null || wasEnded || cleanup ? null : () -> {
            // "END CONVERSATION", Remarks: the other side gets an EndDialog message
            boolean otherEnded = initiatorSide ? dd.targetEnded : dd.initiatorEnded;
            boolean otherExists = initiatorSide ? dd.targetExists : true;
            if (!dd.errored && !otherEnded && otherExists) {
                deliver(dd, initiatorSide, END_DIALOG, null, null);
            }
        });
        return NO_RESULT;
    }

    @Override
    public void ending(Session s, Transaction tx, boolean committed) {
        Set<String> from = receivedBy.remove(tx.id);
        locks.values().removeIf(id -> id == tx.id);
        if (from == null) {
            return;
        }
        boolean receivedAndPending = tx.effects.stream().anyMatch(e -> e.kind().equals("RECEIVE") && e.state() == Effect.State.PENDING);
        for (String name : from) {
            Queue q = queues.get(name);
            if (committed) {
                q.rollbacks = 0;
            } else if (receivedAndPending) {
                q.rollbacks++;
                if (q.poisonHandling && q.rollbacks >= 5) {
                    q.enabled = false;
                    model.note(s, "  (broker: fifth consecutive rollback of a RECEIVE from " + name + ": queue disabled)");
                }
            }
        }
    }

    /**
     * "ALTER QUEUE (Transact-SQL)": POISON_MESSAGE_HANDLING (STATUS = ON | OFF) and STATUS = ON | OFF
     * change the queue's settings. DDL is transactional in SQL Server ("Transaction statements": DDL in an
     * explicit transaction is rolled back with it), so a rollback puts the old settings back.
     */
    private List<Object[]> alterQueue(Ctx ctx, Tsql.Stmt st) {
        if (!st.upper(1).equals("QUEUE")) {
            return null;
        }
        Queue q = queue(st.tokens().get(2));
        boolean poisonBefore = q.poisonHandling;
        boolean enabledBefore = q.enabled;
        List<String> t = st.tokens();
        for (int i = 3; i + 2 < t.size(); i++) {
            String u = t.get(i).toUpperCase(Locale.ROOT);
            if (u.equals("POISON_MESSAGE_HANDLING")) {
                q.poisonHandling = t.get(i + 4).equalsIgnoreCase("ON");
                i += 5;
            } else if (u.equals("STATUS") && t.get(i + 1).equals("=")) {
                q.enabled = t.get(i + 2).equalsIgnoreCase("ON");
            }
        }
        ctx.change("ALTER QUEUE", st.text(), () -> {
            q.poisonHandling = poisonBefore;
            q.enabled = enabledBefore;
        }, this::retry);
        return NO_RESULT;
    }

    /** Whether the queue counts rollbacks toward disabling itself. */
    public boolean poisonHandling(String queue) {
        synchronized (model) {
            return queue(queue).poisonHandling;
        }
    }

    private static int indexOf(List<String> t, String word, int from) {
        for (int i = Math.max(0, from); i < t.size(); i++) {
            if (t.get(i).equalsIgnoreCase(word)) {
                return i;
            }
        }
        return -1;
    }

    private static int paramAt(Tsql.Stmt st, int tokenIndex) {
        int n = 0;
        for (int i = 0; i < tokenIndex; i++) {
            if (st.tokens().get(i).equals("?")) {
                n++;
            }
        }
        return st.params().get(n);
    }
}
