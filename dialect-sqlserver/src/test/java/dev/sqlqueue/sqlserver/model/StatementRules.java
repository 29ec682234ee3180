package dev.sqlqueue.sqlserver.model;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The rules of one statement: session options, variables, transactions, application locks, THROW, the
 * isolation rule of READPAST, and the hand-off to {@link TableStatements} (kept tables) and the
 * {@link Extension}s (Service Broker). Sources at each rule; see also {@link SqlServerModel}. Stateless.
 */
final class StatementRules {
    private StatementRules() {
    }

    /** An error raised by THROW: it ends the batch ("THROW (Transact-SQL)"). */
    static final class Thrown extends SQLException {
        private static final long serialVersionUID = 1L;

        Thrown(String message, int number) {
            super(message, number >= 50000 ? "S0001" : "S0001", number);
        }
    }

    private static final Set<String> WRITES = Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE");

    static void run(Ctx ctx, Tsql.Stmt st) throws SQLException {
        Session s = ctx.session;
        readpast(ctx, st);
        switch (st.kind()) {
            case SET_OPTION -> {
                setOption(ctx, st);
                ctx.rowcount = 0L;
            }
            case NO_DATA -> noData(ctx, st);
            case OPENS_TRANSACTION, SELECT_FROM -> data(ctx, st);
            case BEGIN_TRAN -> {
                // implicit mode at @@TRANCOUNT = 0: the implicit and the explicit transaction (2)
                int add = s.implicitTransactions && s.tranCount == 0 ? 2 : 1;
                if (s.tranCount == 0) {
                    s.tx = new Transaction();
                }
                s.tranCount += add;
                ctx.rowcount = 0L;
            }
            case COMMIT -> {
                if (s.tranCount == 0) {
                    throw new SQLException("The COMMIT TRANSACTION request has no corresponding BEGIN TRANSACTION.", "S0001", 3902);
                }
                if (s.doomed) {
                    throw doomed();
                }
                if (s.tranCount == 1) {
                    ctx.model.endTransaction(s, true);
                } else {
                    s.tranCount--;
                }
                ctx.rowcount = 0L;
            }
            case ROLLBACK -> {
                if (s.tranCount == 0) {
                    throw new SQLException("The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.", "S0001", 3903);
                }
                ctx.model.endTransaction(s, false);
                ctx.rowcount = 0L;
            }
            case ROLLBACK_TO -> {
                String name = Tsql.unquote(st.tokens().get(2)).replace("[", "").replace("]", "");
                if (s.tranCount == 0) {
                    throw new SQLException("The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.", "S0001", 3903);
                }
                if (s.doomed) {
                    throw new SQLException("The current transaction cannot be committed and cannot be rolled back to a savepoint."
                            + " Roll back the entire transaction.", "S0001", 3931);
                }
                if (!ctx.model.rollbackTo(s, name)) {
                    throw new SQLException("Cannot roll back " + name + ". No transaction or savepoint of that name was found.", "S0001", 6401);
                }
            }
            case SAVE_TRAN -> {
                if (s.tranCount == 0) {
                    throw new SQLException("Cannot issue SAVE TRANSACTION when there is no active transaction.", "S0001", 628);
                }
                s.tx.save(st.tokens().get(2).replace("[", "").replace("]", ""));
            }
            case APPLOCK -> ctx.results.add(new Results.Rows(List.<Object[]>of(new Object[] {ctx.model.applock(ctx, st)}), null, true));
            case THROW -> {
                if (st.tokens().size() < 4) {
                    if (ctx.caught == null) {
                        throw new Thrown("THROW without arguments is not allowed outside a CATCH block.", 10704);
                    }
                    Thrown again = new Thrown(ctx.caught.getMessage(), ctx.caught.getErrorCode());
                    throw again;
                }
                Object number = Expressions.value(ctx.env(st.tokens(), st.params(), null), st.tokens(), 1, 2);
                Object message = Expressions.value(ctx.env(st.tokens(), st.params(), null), st.tokens(), 3, 4);
                throw new Thrown(String.valueOf(message), number instanceof Number n ? n.intValue() : 50000);
            }
            case EXEC, ALTER_OTHER, UNKNOWN -> {
                if (!extensions(ctx, st)) {
                    ctx.results.hidden |= st.kind() != Tsql.Kind.ALTER_OTHER;
                }
                ctx.rowcount = Expressions.UNKNOWN;
            }
            default -> {
                if (s.doomed) {
                    throw doomed();
                }
                if (!extensions(ctx, st)) {
                    // SEND, RECEIVE, BEGIN DIALOG, END CONVERSATION without a broker model: a change, not on the list
                    ctx.change(st.upper(0) + (st.kind() == Tsql.Kind.END_CONVERSATION ? " CONVERSATION" : ""), st.text(), null, null);
                }
                ctx.rowcount = Expressions.UNKNOWN;
            }
        }
    }

    /** "XACT_STATE (Transact-SQL)": an uncommittable transaction accepts no write and no commit. */
    static SQLException doomed() {
        return new SQLException("The current transaction cannot be committed and cannot support operations that write to the log file."
                + " Roll back the transaction.", "S0001", 3930);
    }

    private static boolean extensions(Ctx ctx, Tsql.Stmt st) throws SQLException {
        for (Extension e : ctx.model.extensions()) {
            List<Object[]> r = e.execute(ctx, st);
            if (r == Extension.NO_RESULT) {
                return true;
            }
            if (r != null) {
                ctx.results.add(new Results.Rows(r, null, true));
                ctx.rowcount = (long) r.size();
                return true;
            }
        }
        return false;
    }

    /**
     * "Table hints (Transact-SQL)", READPAST: "can only be specified in transactions operating at the READ
     * COMMITTED or REPEATABLE READ isolation levels"; error 650 otherwise, also at SNAPSHOT with UPDLOCK or
     * HOLDLOCK (MicrosoftDocs/sql-docs pull request 10287, verified by Microsoft: "You can only specify the
     * READPAST lock in the READ COMMITTED or REPEATABLE READ isolation levels.").
     */
    private static void readpast(Ctx ctx, Tsql.Stmt st) throws SQLException {
        int iso = ctx.session.isolation;
        if (iso == Connection.TRANSACTION_READ_COMMITTED || iso == Connection.TRANSACTION_REPEATABLE_READ) {
            return;
        }
        List<String> t = st.tokens();
        for (int i = 0; i + 1 < t.size(); i++) {
            if (t.get(i).equalsIgnoreCase("WITH") && t.get(i + 1).equals("(")) {
                int close = Clauses.close(t, i + 1);
                for (int k = i + 2; k < close; k++) {
                    if (t.get(k).equalsIgnoreCase("READPAST")) {
                        throw new SQLException("You can only specify the READPAST lock in the READ COMMITTED or REPEATABLE READ"
                                + " isolation levels.", "S0001", 650);
                    }
                }
            }
        }
    }

    // ---- SET, DECLARE, SELECT without FROM -------------------------------------------------------------

    private static void setOption(Ctx ctx, Tsql.Stmt st) throws SQLException {
        Session s = ctx.session;
        String option = st.upper(1);
        boolean on = st.upper(2).equals("ON");
        switch (option) {
            case "NOCOUNT" -> s.nocount = on;
            case "XACT_ABORT" -> s.xactAbort = on;
            case "IMPLICIT_TRANSACTIONS" -> s.implicitTransactions = on;
            case "LOCK_TIMEOUT" -> {
                // "SET LOCK_TIMEOUT (Transact-SQL)": milliseconds; -1 (the default) waits for ever
                Object v = Expressions.value(ctx.env(st.tokens(), st.params(), null), st.tokens(), 2, st.tokens().size());
                s.lockTimeout = v instanceof Number n ? n.intValue() : -1;
            }
            case "TRANSACTION" -> s.isolation = isolation(String.join(" ", st.tokens().subList(4, st.tokens().size()))
                    .toUpperCase(Locale.ROOT));
            default -> {
                // DEADLOCK_PRIORITY, ANSI options, ...: no rule of the model
            }
        }
    }

    /** The JDBC constant of an isolation level named in {@code SET TRANSACTION ISOLATION LEVEL}. */
    static int isolation(String level) {
        return switch (level) {
            case "READ UNCOMMITTED" -> Connection.TRANSACTION_READ_UNCOMMITTED;
            case "REPEATABLE READ" -> Connection.TRANSACTION_REPEATABLE_READ;
            case "SERIALIZABLE" -> Connection.TRANSACTION_SERIALIZABLE;
            case "SNAPSHOT" -> SqlServerModel.TRANSACTION_SNAPSHOT;
            default -> Connection.TRANSACTION_READ_COMMITTED;
        };
    }

    private static void noData(Ctx ctx, Tsql.Stmt st) throws SQLException {
        List<String> t = st.tokens();
        switch (st.upper(0)) {
            case "DECLARE" -> declare(ctx, st);
            case "SET" -> {
                String v = t.get(1).toLowerCase(Locale.ROOT);
                int eq = t.indexOf("=");
                Object value = Expressions.value(ctx.env(t, st.params(), null), t, eq + 1, t.size());
                if (eq == 3 && "+-".contains(t.get(2))) {
                    Object before = ctx.vars.getOrDefault(v, Expressions.UNKNOWN);
                    value = before instanceof Number a && value instanceof Number b
                            ? (Object) (t.get(2).equals("+") ? a.longValue() + b.longValue() : a.longValue() - b.longValue())
                            : before == null || value == null ? null : Expressions.UNKNOWN;
                }
                ctx.vars.put(v, value);
                ctx.rowcount = 1L; // "@@ROWCOUNT": a simple assignment sets it to 1
            }
            case "SELECT" -> selectWithoutFrom(ctx, st);
            case "BREAK", "CONTINUE", "RETURN" -> throw new Batch.Jump(st.upper(0));
            default -> {
                // PRINT, WAITFOR DELAY (the model does not wait), CLOSE, DEALLOCATE, RAISERROR below severity 11
            }
        }
    }

    private static void declare(Ctx ctx, Tsql.Stmt st) {
        List<String> t = st.tokens();
        for (int[] part : Clauses.split(t, 1, t.size(), ",")) {
            String name = t.get(part[0]).toLowerCase(Locale.ROOT);
            if (part[0] + 1 < part[1] && t.get(part[0] + 1).equalsIgnoreCase("TABLE")) {
                ctx.tableVariables.put(name, Tables.variable(name, primaryKey(t, part[0] + 2, part[1])));
                continue;
            }
            int eq = -1;
            for (int i = part[0]; i < part[1]; i++) {
                if (t.get(i).equals("=")) {
                    eq = i;
                    break;
                }
            }
            ctx.vars.put(name, eq < 0 ? null : Expressions.value(ctx.env(t, st.params(), null), t, eq + 1, part[1]));
        }
    }

    /** The PRIMARY KEY columns of a table variable's definition at {@code t[from, to)}. */
    private static List<String> primaryKey(List<String> t, int from, int to) {
        List<String> key = new ArrayList<>();
        int close = Clauses.close(t, from);
        for (int[] def : Clauses.split(t, from + 1, close, ",")) {
            if (t.get(def[0]).equalsIgnoreCase("PRIMARY")) {
                int open = def[0] + 2;
                for (int k = open + 1; k < Clauses.close(t, open); k++) {
                    if (!t.get(k).equals(",")) {
                        key.add(Clauses.column(t.get(k)));
                    }
                }
            } else {
                for (int k = def[0]; k < def[1]; k++) {
                    if (t.get(k).equalsIgnoreCase("PRIMARY")) {
                        key.add(Clauses.column(t.get(def[0])));
                    }
                }
            }
        }
        return key;
    }

    /** {@code SELECT @v = expr, ...} assigns; {@code SELECT expr AS a, ...} returns one row (unknown if a value is). */
    private static void selectWithoutFrom(Ctx ctx, Tsql.Stmt st) {
        List<String> t = st.tokens();
        List<Clauses.Item> items = Clauses.items(t, 1, t.size());
        Object[] row = new Object[items.size()];
        boolean known = true;
        for (int i = 0; i < row.length; i++) {
            Clauses.Item it = items.get(i);
            row[i] = Expressions.value(ctx.env(t, st.params(), null), t, it.from(), it.to());
            known &= row[i] != Expressions.UNKNOWN;
            if (it.assigns()) {
                ctx.vars.put(it.variable(), row[i]);
            }
        }
        ctx.rowcount = 1L;
        if (items.stream().noneMatch(Clauses.Item::assigns)) {
            ctx.results.add(new Results.Rows(known ? List.<Object[]>of(row) : List.of(), items.stream().map(Clauses.Item::label).toList(),
                    known));
        }
    }

    // ---- statements on tables ------------------------------------------------------------------------------

    private static void data(Ctx ctx, Tsql.Stmt st) throws SQLException {
        Session s = ctx.session;
        String first = st.upper(0);
        boolean writes = WRITES.contains(first) || first.equals("WITH") && st.tokens().stream().anyMatch(x -> WRITES.contains(
                x.toUpperCase(Locale.ROOT)));
        if (writes && s.doomed) {
            throw doomed();
        }
        ctx.model.implicitOpen(s, st);
        if (st.kind() == Tsql.Kind.SELECT_FROM && extensions(ctx, st)) {
            return; // a catalog view an extension keeps (sys.transmission_queue)
        }
        if (TableStatements.handles(ctx, st)) {
            TableStatements.run(ctx, st);
            return;
        }
        if (writes && st.tokens().stream().anyMatch(x -> ctx.model.tables().get(x) != null && !x.startsWith("@"))) {
            throw TableStatements.unsupported(st);
        }
        List<String> t = st.tokens();
        ctx.rowcount = Expressions.UNKNOWN;
        if (st.kind() == Tsql.Kind.SELECT_FROM) {
            List<Clauses.Item> items = Clauses.items(t, t.get(1).equalsIgnoreCase("TOP") ? Clauses.close(t, 2) + 1 : 1,
                    Clauses.find(t, "FROM", 1, t.size()));
            if (!items.isEmpty() && items.stream().allMatch(Clauses.Item::assigns)) {
                items.forEach(i -> ctx.vars.put(i.variable(), Expressions.UNKNOWN));
            } else {
                ctx.results.add(new Results.Rows(List.of(), null, false));
            }
            return;
        }
        ctx.change(first, st.text(), null, null);
        for (int i = 0; i + 1 < t.size(); i++) {
            if (t.get(i).equalsIgnoreCase("INTO") && ctx.tableVariables.containsKey(t.get(i + 1).toLowerCase(Locale.ROOT))) {
                ctx.tableVariables.get(t.get(i + 1).toLowerCase(Locale.ROOT)).unknown = true;
            }
        }
        if (writes && !s.nocount) {
            ctx.results.add(new Results.Count(null));
        }
        int output = Clauses.find(t, "OUTPUT", 0, t.size());
        if (output >= 0 && Clauses.find(t, "INTO", output, t.size()) < 0) {
            ctx.results.add(new Results.Rows(List.of(), null, false));
        }
    }
}
