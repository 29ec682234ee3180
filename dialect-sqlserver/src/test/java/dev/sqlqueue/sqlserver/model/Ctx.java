package dev.sqlqueue.sqlserver.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one executing batch can see and what it produced: its session, its parameters, its variables and
 * table variables, {@code @@ROWCOUNT}, the error a CATCH block handles, the changes and locks of the
 * statement running now, and the results the driver will read ({@link Results}). Used under the model's
 * lock only.
 */
final class Ctx {
    final SqlServerModel model;
    final Session session;
    final List<Object> params;
    /** Variables by lower-case name with their {@code @}; {@link Expressions#UNKNOWN} when the model cannot know the value. */
    final Map<String, Object> vars = new HashMap<>();
    final Map<String, Tables.Table> tableVariables = new HashMap<>();
    final Results results = new Results();
    final int queryTimeout;
    Object rowcount = 0L;
    /** ERROR_NUMBER() inside a CATCH block; null elsewhere ("ERROR_NUMBER (Transact-SQL)"). */
    Integer errorNumber;
    /** The error a CATCH block handles, for {@code THROW;}. */
    java.sql.SQLException caught;
    /** Changes of the statement running now: undone if it fails ("statement-level" rollback). */
    final List<Effect> statementEffects = new ArrayList<>();
    /** Locks of the statement running now that are released when it ends (S at READ COMMITTED, autocommit). */
    final List<Runnable> statementLocks = new ArrayList<>();
    /** Locks the running statement took ("resource mode"), which it may release again for rows that do not qualify. */
    final java.util.Set<String> statementGrants = new java.util.HashSet<>();

    Ctx(SqlServerModel model, Session session, List<Object> params, int queryTimeout) {
        this.model = model;
        this.session = session;
        this.params = params;
        this.queryTimeout = queryTimeout;
    }

    /** A variable's value, or null if it is unknown or was never declared. */
    Object value(String variable) {
        Object v = vars.get(variable.toLowerCase(Locale.ROOT));
        return v == Expressions.UNKNOWN ? null : v;
    }

    /** Whether the variable holds a value the model knows. */
    boolean known(String variable) {
        String k = variable.toLowerCase(Locale.ROOT);
        return vars.containsKey(k) && vars.get(k) != Expressions.UNKNOWN;
    }

    /** A parameter by its 1-based marker number. */
    Object param(int marker) {
        return marker - 1 < params.size() ? params.get(marker - 1) : null;
    }

    /** Records a change of the running statement: part of the open transaction, or committed when the statement ends. */
    Effect change(String kind, String text, Runnable undo, Runnable onCommit) {
        return model.change(this, kind, text, undo, onCommit);
    }

    /**
     * An expression environment over {@code tokens} (a statement's or a condition's) whose parameter markers
     * are {@code markers} in order, with {@code scope} for column names (null: none).
     */
    Expressions.Env env(List<String> tokens, List<Integer> markers, Scope scope) {
        return new Expressions.Env() {
            @Override
            public Object variable(String name) {
                return vars.containsKey(name) ? vars.get(name) : Expressions.UNKNOWN;
            }

            @Override
            public Object param(int tokenIndex) {
                int n = 0;
                for (int i = 0; i < tokenIndex; i++) {
                    if (tokens.get(i).equals("?")) {
                        n++;
                    }
                }
                return n < markers.size() ? Ctx.this.param(markers.get(n)) : Expressions.UNKNOWN;
            }

            @Override
            public Object column(String alias, String column) {
                return scope == null ? Expressions.NO_COLUMN : scope.column(alias, column);
            }

            @Override
            public Object global(String name) {
                return Ctx.this.global(name);
            }

            @Override
            public Object exists(int from, int to) {
                return TableStatements.exists(Ctx.this, tokens, markers, from, to, scope);
            }
        };
    }

    /** Column names in scope: a row of a table under an alias, and the scope around it (a correlated subquery's outer row). */
    interface Scope {
        Object column(String alias, String column);
    }

    Object global(String name) {
        return switch (name) {
            case "@@TRANCOUNT" -> (long) session.tranCount;
            case "@@ROWCOUNT" -> rowcount;
            // "@@OPTIONS (Transact-SQL)": bits 2 IMPLICIT_TRANSACTIONS, 512 NOCOUNT, 16384 XACT_ABORT; the other bits
            // are not modelled, so only a mask of these three can be read
            case "@@OPTIONS" -> new Expressions.Bits((session.implicitTransactions ? 2L : 0) | (session.nocount ? 512L : 0)
                    | (session.xactAbort ? 16384L : 0), 2L | 512L | 16384L);
            // "XACT_STATE (Transact-SQL)": 1 committable, 0 none, -1 uncommittable (doomed)
            case "XACT_STATE" -> (long) (session.tranCount == 0 ? 0 : session.doomed ? -1 : 1);
            case "ERROR_NUMBER" -> errorNumber == null ? null : (long) errorNumber;
            case "SYSUTCDATETIME" -> model.now();
            default -> name.startsWith("NEXT VALUE FOR ") ? model.nextValue(name.substring("NEXT VALUE FOR ".length()))
                    : Expressions.UNKNOWN;
        };
    }
}
