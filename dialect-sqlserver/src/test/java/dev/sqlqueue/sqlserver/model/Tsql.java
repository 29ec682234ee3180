package dev.sqlqueue.sqlserver.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A small T-SQL reader for the model: splits a batch into the statements that matter for transactions,
 * session options and Service Broker, keeping IF/WHILE/BEGIN...END structure so a statement under a
 * condition is known to be conditional. It is not a parser of the language: it recognises statement
 * kinds by their leading keywords, which is all the documented implicit-transaction rule needs
 * ("SET IMPLICIT_TRANSACTIONS (Transact-SQL)", Remarks: the list of statements that start a
 * transaction). String literals, bracket-quoted names and comments are skipped. Stateless.
 */
final class Tsql {
    private Tsql() {
    }

    /** What a statement is, as far as the model's rules go. */
    enum Kind {
        /** SET NOCOUNT / XACT_ABORT / IMPLICIT_TRANSACTIONS / TRANSACTION ISOLATION LEVEL / other session option. */
        SET_OPTION,
        /** SET @v = ..., DECLARE, SELECT without FROM, THROW, BREAK, PRINT, RETURN, WAITFOR DELAY: open no transaction. */
        NO_DATA,
        /** A statement on the documented list of statements that open an implicit transaction. */
        OPENS_TRANSACTION,
        /** SELECT ... FROM (on the list as "SELECT statements that select from a table"). */
        SELECT_FROM,
        BEGIN_TRAN, COMMIT, ROLLBACK, ROLLBACK_TO, SAVE_TRAN,
        /** EXEC of sp_getapplock. */
        APPLOCK,
        /** EXEC of anything else: not on the list. */
        EXEC,
        THROW,
        /** Service Broker statements: none is on the list. */
        SEND, RECEIVE, BEGIN_DIALOG, END_CONVERSATION, BEGIN_CONVERSATION_TIMER,
        /** ALTER of something other than a table (ALTER QUEUE, ALTER DATABASE): not on the list. */
        ALTER_OTHER,
        /** A keyword the reader does not know: opens nothing in the model. */
        UNKNOWN
    }

    /** One statement: its kind, its tokens, and the 1-based parameter markers it contains. */
    record Stmt(Kind kind, List<String> tokens, List<Integer> params) {
        String text() {
            return String.join(" ", tokens);
        }

        String upper(int i) {
            return i < tokens.size() ? tokens.get(i).toUpperCase(Locale.ROOT) : "";
        }
    }

    /** A node of the batch tree. */
    sealed interface Node permits Simple, If, While, Block, TryCatch {
    }

    record Simple(Stmt stmt) implements Node {
    }

    /** The condition of an IF or WHILE: its text, its tokens and the 1-based parameter markers among them. */
    record Cond(String text, List<String> tokens, List<Integer> params) {
    }

    /** IF condition; the condition is evaluated by {@link Expressions} where the model can decide it. */
    record If(Cond cond, List<Node> then, List<Node> otherwise) implements Node {
        String condition() {
            return cond.text();
        }
    }

    record While(Cond cond, List<Node> body) implements Node {
        String condition() {
            return cond.text();
        }
    }

    /** BEGIN ... END. */
    record Block(List<Node> body) implements Node {
    }

    /** BEGIN TRY ... END TRY BEGIN CATCH ... END CATCH ("TRY...CATCH (Transact-SQL)"). */
    record TryCatch(List<Node> body, List<Node> handler) implements Node {
    }

    /** Every statement of a batch tree, in order, whatever the branch or block it stands in. */
    static List<Stmt> statements(List<Node> nodes) {
        List<Stmt> out = new ArrayList<>();
        for (Node n : nodes) {
            if (n instanceof Simple s) {
                out.add(s.stmt());
            } else if (n instanceof If f) {
                out.addAll(statements(f.then()));
                out.addAll(statements(f.otherwise()));
            } else if (n instanceof While w) {
                out.addAll(statements(w.body()));
            } else if (n instanceof Block b) {
                out.addAll(statements(b.body()));
            } else if (n instanceof TryCatch tc) {
                out.addAll(statements(tc.body()));
                out.addAll(statements(tc.handler()));
            }
        }
        return out;
    }

    // ---- tokens ---------------------------------------------------------------------------------

    /** Tokens: words (with @, @@, #, dots), [quoted] names, 'strings', numbers, ?, and symbols. */
    static List<String> tokens(String sql) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char ch = sql.charAt(i);
            if (Character.isWhitespace(ch)) {
                i++;
            } else if (ch == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (ch == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (ch == '\'' || ((ch == 'N' || ch == 'n') && i + 1 < n && sql.charAt(i + 1) == '\'')) {
                int start = i;
                i = ch == '\'' ? i + 1 : i + 2;
                while (i < n) {
                    if (sql.charAt(i) == '\'') {
                        if (i + 1 < n && sql.charAt(i + 1) == '\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i++;
                }
                i++;
                out.add(sql.substring(start, Math.min(i, n)));
            } else if (ch == '[') {
                int start = i;
                i++;
                while (i < n) {
                    if (sql.charAt(i) == ']') {
                        if (i + 1 < n && sql.charAt(i + 1) == ']') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i++;
                }
                i++;
                // glue a schema-qualified name ([dbo].[x]) into one token
                while (i < n && sql.charAt(i) == '.' && i + 1 < n && sql.charAt(i + 1) == '[') {
                    i++;
                    i = sql.indexOf(']', i) + 1;
                }
                out.add(sql.substring(start, Math.min(i, n)));
            } else if (Character.isLetterOrDigit(ch) || ch == '@' || ch == '#' || ch == '_') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || "@#_$.".indexOf(sql.charAt(i)) >= 0)) {
                    i++;
                }
                out.add(sql.substring(start, i));
            } else if ((ch == '<' || ch == '>' || ch == '!') && i + 1 < n && "=>".indexOf(sql.charAt(i + 1)) >= 0) {
                out.add(sql.substring(i, i + 2));
                i += 2;
            } else {
                out.add(String.valueOf(ch));
                i++;
            }
        }
        return out;
    }

    // ---- statements -----------------------------------------------------------------------------

    /** Keywords that always begin a new statement when met at parenthesis depth 0. */
    private static final Set<String> STARTS = Set.of("IF", "ELSE", "WHILE", "BEGIN", "END", "DECLARE", "EXEC", "EXECUTE",
            "SEND", "RECEIVE", "COMMIT", "ROLLBACK", "SAVE", "THROW", "BREAK", "CONTINUE", "RETURN", "WAITFOR", "CREATE",
            "DROP", "ALTER", "INSERT", "DELETE", "UPDATE", "MERGE", "TRUNCATE", "GRANT", "REVOKE", "PRINT", "SET", "SELECT",
            "WITH", "OPEN", "FETCH", "CLOSE", "DEALLOCATE", "RAISERROR", "REVERT");

    /** Parses a batch. */
    static List<Node> parse(String sql) {
        Reader r = new Reader(tokens(sql));
        List<Node> out = new ArrayList<>();
        while (r.more()) {
            Node node = r.statement();
            if (node != null) {
                out.add(node);
            }
        }
        return out;
    }

    private static final class Reader {
        final List<String> t;
        int at;
        int param;

        Reader(List<String> t) {
            this.t = t;
        }

        boolean more() {
            while (at < t.size() && t.get(at).equals(";")) {
                at++;
            }
            return at < t.size();
        }

        String up(int i) {
            return i < t.size() ? t.get(i).toUpperCase(Locale.ROOT) : "";
        }

        Node statement() {
            if (!more()) {
                return null;
            }
            String k = up(at);
            switch (k) {
                case "IF" -> {
                    at++;
                    Cond cond = condition();
                    List<Node> then = one();
                    List<Node> otherwise = List.of();
                    while (at < t.size() && t.get(at).equals(";")) {
                        at++;
                    }
                    if (up(at).equals("ELSE")) {
                        at++;
                        otherwise = one();
                    }
                    return new If(cond, then, otherwise);
                }
                case "WHILE" -> {
                    at++;
                    Cond cond = condition();
                    return new While(cond, one());
                }
                case "BEGIN" -> {
                    String next = up(at + 1);
                    if (next.equals("TRAN") || next.equals("TRANSACTION") || next.equals("DIALOG")
                            || next.equals("CONVERSATION") || next.equals("DISTRIBUTED")) {
                        return new Simple(simple());
                    }
                    if (next.equals("TRY")) {
                        List<Node> body = block(2);
                        while (at < t.size() && t.get(at).equals(";")) {
                            at++;
                        }
                        List<Node> handler = up(at).equals("BEGIN") && up(at + 1).equals("CATCH") ? block(2) : List.of();
                        return new TryCatch(body, handler);
                    }
                    return new Block(block(1));
                }
                default -> {
                    return new Simple(simple());
                }
            }
        }

        /** The statements of a block that begins with {@code skip} tokens (BEGIN, BEGIN TRY, BEGIN CATCH) up to its END. */
        List<Node> block(int skip) {
            boolean tryCatch = skip == 2;
            at += skip;
            List<Node> body = new ArrayList<>();
            while (more() && !(up(at).equals("END") && !up(at + 1).equals("CONVERSATION"))) {
                Node node = statement();
                if (node != null) {
                    body.add(node);
                }
            }
            at++; // END
            if (tryCatch && (up(at).equals("TRY") || up(at).equals("CATCH"))) {
                at++;
            }
            return body;
        }

        /** The statement (or block) an IF, ELSE or WHILE controls. */
        List<Node> one() {
            Node node = statement();
            return node == null ? List.of() : List.of(node);
        }

        /** Condition tokens up to the first statement keyword at depth 0. */
        Cond condition() {
            int start = at;
            List<Integer> params = new ArrayList<>();
            int depth = 0;
            while (at < t.size()) {
                String tok = t.get(at);
                String u = tok.toUpperCase(Locale.ROOT);
                if (depth == 0 && STARTS.contains(u) && !u.equals("SELECT")) {
                    break;
                }
                if (tok.equals("?")) {
                    params.add(++param);
                }
                depth += tok.equals("(") ? 1 : tok.equals(")") ? -1 : 0;
                at++;
            }
            List<String> toks = List.copyOf(t.subList(start, at));
            return new Cond(String.join(" ", toks), toks, params);
        }

        Stmt simple() {
            int start = at;
            String k = up(at);
            List<Integer> params = new ArrayList<>();
            int depth = 0;
            int caseDepth = 0;
            at++;
            if (k.equals("WAITFOR") && up(at).equals("(")) {
                // WAITFOR (RECEIVE ...), TIMEOUT ?: one statement
                k = "RECEIVE";
            }
            if (t.get(start).equals("?")) {
                params.add(++param);
            }
            while (at < t.size()) {
                String tok = t.get(at);
                String u = tok.toUpperCase(Locale.ROOT);
                if (depth == 0 && tok.equals(";")) {
                    break;
                }
                boolean savepointName = k.equals("SAVE") && at - start == 2; // SAVE TRAN <name>: any word
                if (depth == 0 && caseDepth == 0 && STARTS.contains(u) && !savepointName && !continues(k, u, start)) {
                    break;
                }
                if (u.equals("CASE")) {
                    caseDepth++;
                } else if (u.equals("END") && caseDepth > 0) {
                    caseDepth--;
                }
                if (tok.equals("?")) {
                    params.add(++param);
                }
                depth += tok.equals("(") ? 1 : tok.equals(")") ? -1 : 0;
                at++;
            }
            List<String> toks = List.copyOf(t.subList(start, at));
            return new Stmt(kind(k, toks), toks, params);
        }

        /** Whether keyword {@code u} continues the statement begun by {@code k} instead of starting one. */
        boolean continues(String k, String u, int start) {
            String prev = up(at - 1);
            return switch (u) {
                case "SELECT" -> k.equals("INSERT") || k.equals("WITH") || k.equals("CREATE") || prev.equals("UNION")
                        || prev.equals("ALL") || prev.equals("EXCEPT") || prev.equals("INTERSECT");
                case "SET" -> k.equals("UPDATE") || k.equals("ALTER") || k.equals("MERGE") || (k.equals("WITH"));
                case "UPDATE", "DELETE", "INSERT" -> k.equals("WITH") && !seenDml(start) || k.equals("MERGE")
                        || k.equals("CREATE") || k.equals("GRANT") || k.equals("REVOKE");
                case "IF" -> (k.equals("DROP") || k.equals("CREATE")) && up(at + 1).equals("EXISTS")
                        || (k.equals("CREATE") && up(at + 1).equals("NOT"));
                case "WITH" -> true; // table hints, WITH LIFETIME, WITH STATUS ...: never a statement start mid-statement
                case "EXEC", "EXECUTE", "SEND", "RECEIVE", "SELECT_" -> k.equals("CREATE") || k.equals("GRANT")
                        || k.equals("ALTER") || k.equals("REVOKE");
                case "CREATE", "DROP", "ALTER", "OPEN", "CLOSE", "BEGIN", "END", "COMMIT", "ROLLBACK", "SAVE", "DECLARE",
                        "FETCH", "TRUNCATE", "RETURN", "PRINT", "THROW", "BREAK", "CONTINUE", "ELSE", "IF_", "WHILE",
                        "WAITFOR", "MERGE", "DEALLOCATE", "RAISERROR" -> k.equals("GRANT") || k.equals("REVOKE")
                        || (k.equals("CREATE") && (u.equals("EXEC") || u.equals("EXECUTE") || u.equals("DELETE")
                                || u.equals("INSERT") || u.equals("UPDATE") || u.equals("SELECT")));
                default -> false;
            };
        }

        boolean seenDml(int start) {
            for (int i = start; i < at; i++) {
                String u = up(i);
                if (u.equals("SELECT") || u.equals("UPDATE") || u.equals("DELETE") || u.equals("INSERT")) {
                    return true;
                }
            }
            return false;
        }
    }

    private static Kind kind(String k, List<String> toks) {
        String second = toks.size() > 1 ? toks.get(1).toUpperCase(Locale.ROOT) : "";
        return switch (k) {
            case "SET" -> second.startsWith("@") ? Kind.NO_DATA : Kind.SET_OPTION;
            case "DECLARE", "THROW", "BREAK", "CONTINUE", "RETURN", "PRINT", "RAISERROR", "DEALLOCATE", "CLOSE", "REVERT" -> k.equals("THROW")
                    ? Kind.THROW : Kind.NO_DATA;
            case "WAITFOR" -> Kind.NO_DATA;
            case "SELECT" -> hasFrom(toks) ? Kind.SELECT_FROM : Kind.NO_DATA;
            case "WITH" -> Kind.OPENS_TRANSACTION; // a CTE followed by SELECT/INSERT/UPDATE/DELETE/MERGE
            case "INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "CREATE", "DROP", "GRANT", "REVOKE", "FETCH", "OPEN" ->
                    Kind.OPENS_TRANSACTION;
            case "ALTER" -> second.equals("TABLE") ? Kind.OPENS_TRANSACTION : Kind.ALTER_OTHER;
            case "BEGIN" -> switch (second) {
                case "TRAN", "TRANSACTION", "DISTRIBUTED" -> Kind.BEGIN_TRAN;
                case "DIALOG" -> Kind.BEGIN_DIALOG;
                default -> Kind.BEGIN_CONVERSATION_TIMER;
            };
            case "COMMIT" -> Kind.COMMIT;
            case "ROLLBACK" -> {
                boolean named = toks.size() > 2 && !toks.get(2).equals(";");
                yield named ? Kind.ROLLBACK_TO : Kind.ROLLBACK;
            }
            case "SAVE" -> Kind.SAVE_TRAN;
            case "EXEC", "EXECUTE" -> toks.stream().anyMatch(x -> x.toLowerCase(Locale.ROOT).endsWith("sp_getapplock"))
                    ? Kind.APPLOCK : Kind.EXEC;
            case "SEND" -> Kind.SEND;
            case "RECEIVE" -> Kind.RECEIVE;
            case "END" -> Kind.END_CONVERSATION;
            default -> Kind.UNKNOWN;
        };
    }

    private static boolean hasFrom(List<String> toks) {
        return toks.stream().anyMatch(x -> x.equalsIgnoreCase("FROM"));
    }

    /** The value of a named argument ({@code @LockOwner = N'Transaction'}) in an EXEC, unquoted; null if absent. */
    static String argument(Stmt s, String name) {
        List<String> toks = s.tokens();
        for (int i = 0; i + 2 < toks.size(); i++) {
            if (toks.get(i).equalsIgnoreCase(name) && toks.get(i + 1).equals("=")) {
                return unquote(toks.get(i + 2));
            }
        }
        return null;
    }

    /** A string literal's value, or the token itself. */
    static String unquote(String tok) {
        String x = tok.startsWith("N'") || tok.startsWith("n'") ? tok.substring(1) : tok;
        if (x.length() >= 2 && x.startsWith("'") && x.endsWith("'")) {
            return x.substring(1, x.length() - 1).replace("''", "'");
        }
        return tok;
    }
}
