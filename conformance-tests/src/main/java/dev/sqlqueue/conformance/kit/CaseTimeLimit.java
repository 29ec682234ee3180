package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.conformance.ConformanceTarget;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.AssertionFailedError;

/**
 * The kit's time limit per case ({@code --case-timeout}): the case's set-up ({@code @BeforeEach}, which
 * opens and migrates the backend) and its body run on a thread of their own, and the kit waits for them
 * until the limit, counted from the start of the set-up. Past it, the kit
 *
 * <ol>
 *   <li>notes where the case waits: the statements in flight on its connections
 *       ({@link StatementTracker}), what the database reports about its sessions ({@link SessionWaits}),
 *       and the case thread's innermost sqlqueue frame;</li>
 *   <li>prints a progress line ("... timed out after N s; cancelling ...");</li>
 *   <li>cancels every running statement of the case, gives them up to 3 s to return, aborts every
 *       connection it still has borrowed, refuses it new ones, interrupts the case thread (waiting 10 s
 *       for it to end), and prints what it did;</li>
 *   <li>fails the case with "timed out after N s" and all of the above. Its clean-up
 *       ({@code @AfterEach}: close the backend, drop the prefix) then runs as after any failure, and the
 *       run goes on with the next case.</li>
 * </ol>
 *
 * The clean-up itself is not limited: it must finish for the prefix to be dropped.
 */
public final class CaseTimeLimit implements BeforeEachCallback, InvocationInterceptor {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(CaseTimeLimit.class);

    private record Start(long nanos, int prefixIndex) {
    }

    private static UrlTarget target() {
        ConformanceTarget t = KitSession.current();
        return t instanceof UrlTarget u && u.caseTimeout() != null ? u : null;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        UrlTarget t = target();
        if (t != null) {
            context.getStore(NS).put("start", new Start(System.nanoTime(), t.prefixCount()));
        }
    }

    @Override
    public void interceptBeforeEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                          ExtensionContext context) throws Throwable {
        limited(invocation, context);
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                    ExtensionContext context) throws Throwable {
        limited(invocation, context);
    }

    private static void limited(Invocation<Void> invocation, ExtensionContext context) throws Throwable {
        UrlTarget t = target();
        Start start = context.getStore(NS).get("start", Start.class);
        if (t == null || start == null) {
            invocation.proceed();
            return;
        }
        Duration limit = t.caseTimeout();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread caseThread = new Thread(() -> {
            try {
                invocation.proceed();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "sqlqueue-kit-case");
        caseThread.setDaemon(true);
        caseThread.setContextClassLoader(Thread.currentThread().getContextClassLoader());
        caseThread.start();
        long leftMillis = (start.nanos() + limit.toNanos() - System.nanoTime()) / 1_000_000;
        try {
            caseThread.join(Math.max(1, leftMillis));
        } catch (InterruptedException e) {
            caseThread.interrupt();
            throw e;
        }
        if (caseThread.isAlive()) {
            throw timedOut(t, limit, caseName(context), caseThread, t.prefixesFrom(start.prefixIndex()));
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    private static String caseName(ExtensionContext context) {
        String mode = context.getRequiredTestClass() == KitTransactionalSuite.class ? "transactional"
                : context.getRequiredTestClass() == KitLeaseSuite.class ? "lease" : context.getRequiredTestClass().getSimpleName();
        return context.getDisplayName() + " (" + mode + ")";
    }

    private static AssertionFailedError timedOut(UrlTarget t, Duration limit, String name, Thread caseThread,
                                                 List<String> prefixes) {
        List<String> where = new ArrayList<>();
        List<StatementTracker.InFlight> inFlight = t.tracker().inFlight(prefixes);
        int borrowed = t.tracker().borrowedCount(prefixes);
        where.add(inFlight.isEmpty() ? "no statement in flight (" + borrowed + " connection" + (borrowed == 1 ? "" : "s") + " borrowed)"
                : (inFlight.size() == 1 ? "statement in flight: " : inFlight.size() + " statements in flight, longest first: ")
                + String.join("; ", inFlight.stream().limit(3).map(Object::toString).toList())
                + (inFlight.size() > 3 ? "; …" : ""));
        where.add("the database reports: " + t.waits().describe(prefixes));
        where.add("case thread at " + frame(caseThread));
        long s = limit.toSeconds();
        t.console().println("  " + name + ": timed out after " + s + " s; cancelling its statements, closing its"
                + " connections, then dropping its objects");
        t.console().flush();
        String stopped = t.tracker().stop(prefixes);
        caseThread.interrupt();
        try {
            caseThread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        t.console().println("  " + name + ": " + stopped + "; dropping its objects");
        t.console().flush();
        where.add("then: " + stopped + (caseThread.isAlive() ? "; the case thread did not end within 10 s and was left" : ""));
        return new AssertionFailedError("timed out after " + s + " s (--case-timeout); " + String.join(" | ", where));
    }

    /** The innermost stack frame in sqlqueue's code outside the kit (or the innermost one). */
    private static String frame(Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        for (StackTraceElement e : stack) {
            if (e.getClassName().startsWith("dev.sqlqueue.") && !e.getClassName().startsWith("dev.sqlqueue.conformance.kit.")) {
                return e.getClassName().substring(e.getClassName().lastIndexOf('.') + 1) + "." + e.getMethodName()
                        + (e.getLineNumber() > 0 ? ":" + e.getLineNumber() : "");
            }
        }
        return stack.length == 0 ? "(ended)" : stack[0].toString();
    }
}
