package dev.sqlqueue.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of a queue: the starter runs it in a
 * {@link dev.sqlqueue.runtime.WorkerPool} that starts and stops with the application context.
 *
 * <p>The method takes one parameter, a {@link dev.sqlqueue.Delivery}, a {@code String} (the payload as
 * UTF-8) or a {@code byte[]} (the payload), and returns {@link dev.sqlqueue.runtime.Outcome} or
 * {@code void} (= ack). A thrown exception retries the message with the retry policy's back-off and
 * dead-letters it once {@code sqlqueue.worker.max-attempts} deliveries failed.
 *
 * <pre>{@code
 * @SqlQueueHandler(queue = "mail", threads = 2)
 * void send(String address) { mailer.send(address); }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SqlQueueHandler {
    /** The queue name (created at start if missing). */
    String queue();

    /** Consumer threads, 1..1024; 0 takes {@code sqlqueue.worker.threads}. */
    int threads() default 0;

    /** Messages per claim, 1..1000; 0 takes {@code sqlqueue.worker.batch-size}. */
    int batchSize() default 0;
}
