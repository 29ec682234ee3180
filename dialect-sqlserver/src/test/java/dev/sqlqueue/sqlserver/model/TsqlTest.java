package dev.sqlqueue.sqlserver.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.broker.BrokerNames;
import dev.sqlqueue.sqlserver.broker.BrokerStatements;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The model's reader on the statements the backends really send: every statement gets a known kind. */
class TsqlTest {
    private static void collect(List<Tsql.Node> nodes, List<Tsql.Stmt> out) {
        out.addAll(Tsql.statements(nodes));
    }

    @Test
    void everyBrokerStatementIsReadIntoKnownKinds() throws Exception {
        BrokerStatements sql = new BrokerStatements(new BrokerNames("sqlq_"));
        QueueName q = QueueName.of("jobs");
        List<String> unknown = new ArrayList<>();
        int read = 0;
        List<Object> roles = new ArrayList<>();
        for (Method accessor : BrokerStatements.class.getDeclaredMethods()) {
            if (Modifier.isPublic(accessor.getModifiers()) && accessor.getParameterCount() == 0
                    && accessor.getReturnType().getSimpleName().endsWith("Statements")) {
                roles.add(accessor.invoke(sql));
            }
        }
        assertEquals(8, roles.size(), "one object per role");
        for (Object role : roles) {
            read += read(role, q, unknown);
        }
        assertTrue(read > 100, "read " + read);
        assertEquals(List.of(), unknown);
    }

    /** Reads every statement of one role's class; returns how many statements it read. */
    private static int read(Object role, QueueName q, List<String> unknown) throws Exception {
        int read = 0;
        for (Method m : role.getClass().getMethods()) {
            if (m.getReturnType() != String.class || m.getDeclaringClass() != role.getClass()) {
                continue;
            }
            Object[] args = new Object[m.getParameterCount()];
            Class<?>[] types = m.getParameterTypes();
            for (int i = 0; i < args.length; i++) {
                args[i] = types[i] == QueueName.class ? q : types[i] == int.class ? 2 : types[i] == boolean.class ? false
                        : types[i] == String.class
                        ? (i == 1 ? "dbo.p" : "OWNER") : null;
            }
            if (m.getName().equals("attachActivation")) {
                args = new Object[] {q, "dbo.p", 2, "OWNER"};
            }
            String text = (String) m.invoke(Modifier.isStatic(m.getModifiers()) ? null : role, args);
            List<Tsql.Stmt> stmts = new ArrayList<>();
            collect(Tsql.parse(text), stmts);
            for (Tsql.Stmt st : stmts) {
                read++;
                if (st.kind() == Tsql.Kind.UNKNOWN) {
                    unknown.add(m.getName() + ": " + st.text());
                }
            }
        }
        return read;
    }

    @Test
    void statementKindsFollowTheDocumentedList() {
        List<Tsql.Stmt> s = new ArrayList<>();
        collect(Tsql.parse("SET NOCOUNT ON; DECLARE @h uniqueidentifier = ?; SELECT @h AS h; SELECT a FROM t;"
                + " INSERT INTO t VALUES (1); UPDATE t SET a = 1; SEND ON CONVERSATION (@h) MESSAGE TYPE [m] (@b);"
                + " WAITFOR (RECEIVE TOP (?) a FROM [q]), TIMEOUT ?; END CONVERSATION @h; BEGIN DIALOG CONVERSATION @h FROM SERVICE [a]"
                + " TO SERVICE N'b'; ALTER QUEUE [q] WITH STATUS = ON; ALTER TABLE t ADD b int; EXEC @r = sys.sp_getapplock @Resource = N'x';"
                + " SAVE TRAN x; ROLLBACK TRAN x; COMMIT TRAN; ROLLBACK"), s);
        assertEquals(List.of(Tsql.Kind.SET_OPTION, Tsql.Kind.NO_DATA, Tsql.Kind.NO_DATA, Tsql.Kind.SELECT_FROM,
                Tsql.Kind.OPENS_TRANSACTION, Tsql.Kind.OPENS_TRANSACTION, Tsql.Kind.SEND, Tsql.Kind.RECEIVE, Tsql.Kind.END_CONVERSATION,
                Tsql.Kind.BEGIN_DIALOG, Tsql.Kind.ALTER_OTHER, Tsql.Kind.OPENS_TRANSACTION, Tsql.Kind.APPLOCK, Tsql.Kind.SAVE_TRAN,
                Tsql.Kind.ROLLBACK_TO, Tsql.Kind.COMMIT, Tsql.Kind.ROLLBACK), s.stream().map(Tsql.Stmt::kind).toList());
    }
}
