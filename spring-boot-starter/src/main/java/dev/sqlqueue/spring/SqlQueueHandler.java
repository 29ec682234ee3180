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
 * <p>Every attribute takes a property placeholder ({@code ${app.queue:jobs}}) and a SpEL expression
 * ({@code #{...}}), resolved when the bean is created, as {@code @RabbitListener}, {@code @KafkaListener}
 * and {@code @JmsListener} do. An attribute left empty takes {@code sqlqueue.handlers.<queue>.*}, then
 * {@code sqlqueue.worker.*}; a value that is not a number in range fails the start, naming the method,
 * the attribute and the value.
 *
 * <pre>{@code
 * @SqlQueueHandler(queue = "${app.mail-queue:mail}", threads = "${app.mail-threads:2}")
 * void send(String address) { mailer.send(address); }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SqlQueueHandler {
    /**
     * The queue name (created at start if missing); placeholders and SpEL resolved.
     *
     * @return the queue's name or an expression giving it
     */
    String queue();

    /**
     * Consumer threads, 1..1024; empty takes {@code sqlqueue.handlers.<queue>.threads}, then {@code sqlqueue.worker.threads}.
     *
     * @return a number or an expression giving one; empty by default
     */
    String threads() default "";

    /**
     * The most messages one claim takes, 1..1000 (claims are sized by the backlog and the handler's time,
     * see {@link dev.sqlqueue.runtime.WorkerPool}); empty takes {@code sqlqueue.handlers.<queue>.batch-size},
     * then {@code sqlqueue.worker.batch-size}.
     *
     * @return a number or an expression giving one; empty by default
     */
    String batchSize() default "";

    /**
     * Deliveries before a failing message is dead-lettered, 1..1000; empty takes {@code sqlqueue.handlers.<queue>.max-attempts}, then {@code sqlqueue.worker.max-attempts}.
     *
     * @return a number or an expression giving one; empty by default
     */
    String maxAttempts() default "";
}
