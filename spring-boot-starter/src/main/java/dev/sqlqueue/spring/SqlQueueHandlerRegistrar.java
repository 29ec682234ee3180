package dev.sqlqueue.spring;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.runtime.MessageHandler;
import dev.sqlqueue.runtime.Outcome;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds {@link SqlQueueHandler} methods on beans and turns each into a {@link QueueWorker}. The
 * annotation's attributes are resolved in the bean factory: placeholders ({@code ${...}}) against the
 * environment, then SpEL ({@code #{...}}).
 */
public class SqlQueueHandlerRegistrar implements BeanPostProcessor, BeanFactoryAware {
    private final List<QueueWorker> workers = new CopyOnWriteArrayList<>();
    private volatile ConfigurableBeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (beanFactory instanceof ConfigurableBeanFactory c) {
            this.beanFactory = c;
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, SqlQueueHandler> found = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<SqlQueueHandler>) m -> AnnotatedElementUtils.findMergedAnnotation(m, SqlQueueHandler.class));
        found.forEach((method, a) -> workers.add(worker(bean, beanName, AopUtils.selectInvocableMethod(method, bean.getClass()), a)));
        return bean;
    }

    /**
     * The workers found so far.
     *
     * @return an immutable copy of the workers of the annotated methods found so far, in the order found
     */
    public List<QueueWorker> workers() {
        return List.copyOf(workers);
    }

    /** The attribute with its placeholders and SpEL resolved (as given without a bean factory). */
    private String resolve(String value) {
        ConfigurableBeanFactory bf = beanFactory;
        if (bf == null || value == null || value.isEmpty()) {
            return value;
        }
        String s = bf.resolveEmbeddedValue(value);
        BeanExpressionResolver expressions = bf.getBeanExpressionResolver();
        if (expressions == null || s == null) {
            return s;
        }
        Object evaluated = expressions.evaluate(s, new BeanExpressionContext(bf, null));
        return evaluated == null ? null : evaluated.toString().trim();
    }

    /** {@code null} when the attribute is empty. */
    private Integer number(String raw, String attribute, int min, int max, String where) {
        String v = resolve(raw);
        if (v == null || v.isEmpty()) {
            if (!raw.isEmpty()) {
                throw new IllegalStateException(where + " " + attribute + " '" + raw + "' resolved to nothing");
            }
            return null;
        }
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(where + " " + attribute + " must be a number " + min + ".." + max
                    + ", was '" + v + "'" + (v.equals(raw) ? "" : " (from '" + raw + "')"));
        }
        if (n < min || n > max) {
            throw new IllegalStateException(where + " " + attribute + " must be " + min + ".." + max + ", was " + n
                    + (v.equals(raw) ? "" : " (from '" + raw + "')"));
        }
        return n;
    }

    private QueueWorker worker(Object bean, String beanName, Method method, SqlQueueHandler a) {
        String where = "@SqlQueueHandler method " + beanName + "." + method.getName() + ":";
        String queue = resolve(a.queue());
        if (queue == null || queue.isBlank()) {
            throw new IllegalStateException(where + " queue '" + a.queue() + "' resolved to nothing");
        }
        Integer threads = number(a.threads(), "threads", 1, 1024, where);
        Integer batchSize = number(a.batchSize(), "batchSize", 1, 1000, where);
        Integer maxAttempts = number(a.maxAttempts(), "maxAttempts", 1, 1000, where);
        if (method.getParameterCount() != 1) {
            throw new IllegalStateException("@SqlQueueHandler method " + beanName + "." + method.getName()
                    + " must take one parameter (Delivery, String or byte[])");
        }
        Class<?> p = method.getParameterTypes()[0];
        Function<Delivery, Object> argument;
        if (p == Delivery.class) {
            argument = d -> d;
        } else if (p == String.class) {
            argument = Delivery::text;
        } else if (p == byte[].class) {
            argument = Delivery::payload;
        } else {
            throw new IllegalStateException("@SqlQueueHandler method " + beanName + "." + method.getName()
                    + " takes " + p.getName() + "; it must take Delivery, String or byte[]");
        }
        Class<?> r = method.getReturnType();
        if (r != void.class && !Outcome.class.isAssignableFrom(r)) {
            throw new IllegalStateException("@SqlQueueHandler method " + beanName + "." + method.getName()
                    + " must return void or Outcome");
        }
        ReflectionUtils.makeAccessible(method);
        MessageHandler handler = d -> {
            try {
                Object out = method.invoke(bean, argument.apply(d));
                return out == null ? Outcome.ack() : (Outcome) out;
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof Exception ex) {
                    throw ex;
                }
                throw e;
            }
        };
        QueueWorker w = new QueueWorker(QueueName.of(queue), handler, null);
        return w.withOptions(o -> {
            var x = threads != null ? o.withThreads(threads) : o;
            x = batchSize != null ? x.withBatchSize(batchSize) : x;
            return maxAttempts != null ? x.withRetry(x.retry().withMaxAttempts(maxAttempts)) : x;
        });
    }
}
