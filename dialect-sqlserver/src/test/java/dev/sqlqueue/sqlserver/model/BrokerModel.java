package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * </ul>
 * Not modelled: delivery of SEND to a queue, the transmission queue, LIFETIME, activation.
 * Thread-safe under the model's lock.
 */
public final class BrokerModel implements Extension {
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
        for (String t : Tsql.tokens(sql)) {
            if (t.equalsIgnoreCase("RECEIVE")) {
                throw new ImpossibleResultException("RECEIVE results are the broker model's: put messages on the queue with"
                        + " BrokerModel.arrive (one RECEIVE returns one conversation group only): " + sql);
            }
        }
    }

    @Override
    public List<Object[]> execute(Ctx ctx, Tsql.Stmt st) throws SQLException {
        return switch (st.kind()) {
            case RECEIVE -> receive(ctx, st);
            case END_CONVERSATION -> endConversation(ctx, st);
            case SEND -> send(ctx, st);
            case ALTER_OTHER -> alterQueue(ctx, st);
            case BEGIN_DIALOG -> {
                UUID h = nextDialogs.isEmpty() ? UUID.randomUUID() : nextDialogs.remove(0);
                st.tokens().stream().filter(x -> x.startsWith("@")).findFirst()
                        .ifPresent(v -> ctx.vars.put(v.toLowerCase(Locale.ROOT), h.toString()));
                int to = st.tokens().indexOf("TO");
                String target = to > 0 ? services.get(Tsql.unquote(st.tokens().get(to + 2))) : null;
                if (target != null) {
                    routes.put(h, new Route(target, UUID.randomUUID()));
                }
                ctx.change("BEGIN DIALOG", st.text(), null, null);
                yield NO_RESULT;
            }
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
     * handle {@code handle} arrives on {@code targetQueue}, on a target conversation that is a
     * conversation group of its own ("BEGIN DIALOG CONVERSATION (Transact-SQL)", Remarks), when the
     * sending transaction commits ("SEND (Transact-SQL)": messages are sent when the transaction
     * commits). The body is not modelled (null): the batch computes it.
     */
    public BrokerModel route(UUID handle, String targetQueue) {
        synchronized (model) {
            routes.put(handle, new Route(key(targetQueue), UUID.randomUUID()));
        }
        return this;
    }

    /**
     * Declares a service: a dialog begun {@code TO SERVICE} it delivers what is sent on it to
     * {@code queue} ({@link #route}).
     */
    public BrokerModel service(String serviceName, String queue) {
        synchronized (model) {
            services.put(serviceName, key(queue));
        }
        return this;
    }

    private final Map<String, String> services = new HashMap<>();

    private record Route(String queue, UUID targetHandle) {
    }

    private final Map<UUID, Route> routes = new HashMap<>();

    private List<Object[]> send(Ctx ctx, Tsql.Stmt st) {
        List<String> t = st.tokens();
        int open = t.indexOf("(");
        String arg = open >= 0 ? t.get(open + 1) : "";
        Object v = arg.equals("?") ? ctx.param(paramAt(st, open + 1)) : ctx.value(arg);
        UUID h = v == null ? null : UUID.fromString(String.valueOf(v));
        int typeAt = indexOf(t, "TYPE", 0);
        String type = typeAt > 0 ? t.get(typeAt + 1).replace("[", "").replace("]", "") : "DEFAULT";
        Route r = h == null ? null : routes.get(h);
        ctx.change("SEND", st.text() + (h == null ? "" : " " + h), null, r == null ? null : () -> {
            long seq = sequences.merge(r.targetHandle(), 1L, Long::sum) - 1;
            queues.computeIfAbsent(r.queue(), k -> new Queue()).messages
                    .add(new Message(++order, r.queue(), r.targetHandle(), r.targetHandle(), seq, type, null));
        });
        return NO_RESULT;
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
        List<Message> removed = new ArrayList<>();
        for (Queue q : queues.values()) {
            for (Message m : q.messages) {
                if (m.handle().equals(h)) {
                    removed.add(m);
                }
            }
            q.messages.removeIf(m -> m.handle().equals(h));
        }
        ended.add(h);
        ctx.change("END CONVERSATION", st.text() + " " + h, () -> {
            for (Message m : removed) {
                Queue q = queues.get(m.queue());
                q.messages.add(m);
                q.messages.sort((a, b) -> Long.compare(a.order(), b.order()));
            }
            ended.remove(h);
        }, null);
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
        }, null);
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
