package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Runs one batch: its statements in order with IF, WHILE, BEGIN...END and TRY...CATCH, and what an error
 * does. Sources:
 * <ul>
 *   <li>"Database engine error severities" and "SET XACT_ABORT (Transact-SQL)": with XACT_ABORT OFF most
 *       run-time errors end only their statement, whose work is undone, and the batch goes on (2627, 2601, 515,
 *       547, 1222 "LOCK_TIMEOUT ... doesn't roll back or cancel the transaction"); with XACT_ABORT ON a run-time
 *       error rolls back the transaction and ends the batch. Error 1205 always rolls back the victim's
 *       transaction ("Deadlocking"). THROW ends the batch ("THROW (Transact-SQL)").</li>
 *   <li>"TRY...CATCH (Transact-SQL)": an error in a TRY block moves control to its CATCH block, where
 *       ERROR_NUMBER() returns it; an error that would roll back the transaction leaves it uncommittable
 *       instead (XACT_STATE() = -1: "Uncommittable transactions and XACT_STATE"); such a transaction can only
 *       be rolled back: a write or COMMIT fails with error 3930, a rollback to a savepoint with 3931, and if it
 *       is still open when the batch ends it is rolled back with error 3998. {@code THROW;} in a CATCH block
 *       raises the caught error again.</li>
 *   <li>Conditions the model cannot decide ({@link Expressions#UNKNOWN}) run neither branch; in a WHILE body
 *       such an IF ends the loop, and every variable the body assigns becomes unknown. A WHILE whose condition
 *       cannot be decided runs no iteration (its variables become unknown too).</li>
 * </ul>
 * Whether error 650 ends the batch is not documented; the model ends it (claiming no later work).
 * Not thread-safe; run under the model's lock.
 */
final class Batch {
    private Batch() {
    }

    /** Ends a WHILE iteration ({@code BREAK}) or the loop's current iteration ({@code CONTINUE}), or the batch ({@code RETURN}). */
    static final class Jump extends RuntimeException {
        final String kind;

        Jump(String kind) {
            super(kind, null, false, false);
            this.kind = kind;
        }
    }

    /** An IF inside a WHILE body that the model cannot decide: the loop ends here. */
    private static final class Undecided extends RuntimeException {
        Undecided() {
            super(null, null, false, false);
        }
    }

    /** An error that ends the batch, after it was recorded in the results. */
    static final class Ended extends RuntimeException {
        Ended() {
            super(null, null, false, false);
        }
    }

    private static final int MAX_ITERATIONS = 100_000;

    /** Runs the statements of a batch; errors go to {@link Ctx#results}. */
    static void run(Ctx ctx, List<Tsql.Node> nodes) {
        try {
            nodes(ctx, nodes, 0, false);
        } catch (Ended | Jump e) {
            // the batch ended (an error, already recorded; or RETURN)
        }
        Session s = ctx.session;
        if (s.doomed && s.tranCount > 0) {
            ctx.model.endTransaction(s, false);
            ctx.results.add(new Results.Failure(new SQLException(
                    "Uncommittable transaction is detected at the end of the batch. The transaction is rolled back.", "S0001", 3998)));
        }
    }

    private static void nodes(Ctx ctx, List<Tsql.Node> nodes, int loops, boolean inTry) throws Undecided {
        for (Tsql.Node n : nodes) {
            node(ctx, n, loops, inTry);
        }
    }

    private static void node(Ctx ctx, Tsql.Node n, int loops, boolean inTry) {
        if (n instanceof Tsql.Simple simple) {
            statement(ctx, simple.stmt(), inTry);
        } else if (n instanceof Tsql.If f) {
            Boolean c = decide(ctx, f.cond());
            if (c == null) {
                ctx.model.note(ctx.session, "  (model: IF " + f.condition() + " cannot be decided; neither branch runs)");
                if (loops > 0) {
                    throw new Undecided();
                }
                return;
            }
            nodes(ctx, c ? f.then() : f.otherwise(), loops, inTry);
        } else if (n instanceof Tsql.While w) {
            loop(ctx, w, loops, inTry);
        } else if (n instanceof Tsql.Block b) {
            nodes(ctx, b.body(), loops, inTry);
        } else {
            tryCatch(ctx, (Tsql.TryCatch) n, loops, inTry);
        }
    }

    private static Boolean decide(Ctx ctx, Tsql.Cond c) {
        try {
            return Expressions.truth(Expressions.value(ctx.env(c.tokens(), c.params(), null), c.tokens(), 0, c.tokens().size()));
        } catch (TableStatements.Raised e) {
            return null;
        }
    }

    private static void loop(Ctx ctx, Tsql.While w, int loops, boolean inTry) {
        for (int i = 0; ; i++) {
            if (i >= MAX_ITERATIONS) {
                throw new IllegalStateException("model: WHILE " + w.condition() + " ran " + MAX_ITERATIONS + " times");
            }
            Boolean c = decide(ctx, w.cond());
            if (c == null) {
                ctx.model.note(ctx.session, "  (model: WHILE " + w.condition() + " cannot be decided; the loop is not run)");
                forget(ctx, w.body());
                return;
            }
            if (!c) {
                return;
            }
            try {
                nodes(ctx, w.body(), loops + 1, inTry);
            } catch (Jump j) {
                if (j.kind.equals("BREAK")) {
                    return;
                }
                if (!j.kind.equals("CONTINUE")) {
                    throw j;
                }
            } catch (Undecided u) {
                ctx.model.note(ctx.session, "  (model: the WHILE " + w.condition() + " loop ends at a condition it cannot decide)");
                forget(ctx, w.body());
                return;
            }
        }
    }

    /** Every variable and table variable a loop body may assign becomes unknown. */
    private static void forget(Ctx ctx, List<Tsql.Node> body) {
        Set<String> assigned = new HashSet<>();
        collect(body, assigned);
        for (String v : assigned) {
            if (ctx.tableVariables.containsKey(v)) {
                ctx.tableVariables.get(v).unknown = true;
            } else {
                ctx.vars.put(v, Expressions.UNKNOWN);
            }
        }
        ctx.rowcount = Expressions.UNKNOWN;
    }

    private static void collect(List<Tsql.Node> nodes, Set<String> out) {
        for (Tsql.Stmt st : Tsql.statements(nodes)) {
            List<String> t = st.tokens();
            for (int i = 0; i < t.size(); i++) {
                String x = t.get(i);
                boolean assigned = x.startsWith("@") && !x.startsWith("@@") && (i + 1 < t.size() && (t.get(i + 1).equals("=")
                        || (i + 2 < t.size() && "+-".contains(t.get(i + 1)) && t.get(i + 2).equals("=")))
                        || i > 0 && (t.get(i - 1).equalsIgnoreCase("INTO") || t.get(i - 1).equalsIgnoreCase("FROM")
                        || t.get(i - 1).equalsIgnoreCase("CONVERSATION")));
                if (assigned) {
                    out.add(x.toLowerCase(Locale.ROOT));
                }
            }
        }
    }

    private static void tryCatch(Ctx ctx, Tsql.TryCatch tc, int loops, boolean inTry) {
        Integer outerError = ctx.errorNumber;
        SQLException caught;
        try {
            nodes(ctx, tc.body(), loops, true);
            return;
        } catch (Caught c) {
            caught = c.error;
        }
        ctx.model.note(ctx.session, "  (CATCH: error " + caught.getErrorCode() + (ctx.session.doomed ? "; the transaction is uncommittable" : "")
                + ")");
        SQLException before = ctx.caught;
        ctx.errorNumber = caught.getErrorCode();
        ctx.caught = caught;
        try {
            nodes(ctx, tc.handler(), loops, inTry);
        } finally {
            ctx.errorNumber = outerError;
            ctx.caught = before;
        }
    }

    /** An error moving to the CATCH block around it. */
    private static final class Caught extends RuntimeException {
        final SQLException error;

        Caught(SQLException error) {
            super(null, null, false, false);
            this.error = error;
        }
    }

    private static void statement(Ctx ctx, Tsql.Stmt st, boolean inTry) {
        Session s = ctx.session;
        ctx.statementEffects.clear();
        ctx.statementLocks.clear();
        try {
            StatementRules.run(ctx, st);
            ctx.model.endStatement(ctx, true);
        } catch (SQLException e) {
            ctx.model.endStatement(ctx, false);
            if (e instanceof java.sql.SQLTimeoutException) {
                ctx.results.add(new Results.Failure(e)); // the attention: the batch stops, the transaction stays
                throw new Ended();
            }
            int code = e.getErrorCode();
            boolean rollsBack = code == 1205 || s.xactAbort;
            if (inTry) {
                if (rollsBack && s.tranCount > 0) {
                    s.doomed = true;
                }
                throw new Caught(e);
            }
            ctx.results.add(new Results.Failure(e));
            if (rollsBack && s.tranCount > 0) {
                ctx.model.endTransaction(s, false);
                ctx.model.note(s, "transaction rolled back by error " + code + (s.xactAbort ? " (XACT_ABORT ON)" : ""));
            }
            if (rollsBack || ends(e)) {
                throw new Ended();
            }
        } catch (TableStatements.Raised r) {
            ctx.model.endStatement(ctx, false);
            ctx.results.add(new Results.Failure(r.error));
            throw new Ended();
        } catch (RuntimeException | Error e) {
            ctx.model.endStatement(ctx, false);
            throw e;
        }
    }

    /** Errors that end the batch even with XACT_ABORT OFF: whatever THROW raised, 650, 3930, 3931. */
    private static boolean ends(SQLException e) {
        int code = e.getErrorCode();
        return e instanceof StatementRules.Thrown || code == 650 || code == 3930 || code == 3931;
    }
}
