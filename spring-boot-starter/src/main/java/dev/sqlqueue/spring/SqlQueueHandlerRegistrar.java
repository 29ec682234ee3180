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
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/** Finds {@link SqlQueueHandler} methods on beans and turns each into a {@link QueueWorker}. */
public class SqlQueueHandlerRegistrar implements BeanPostProcessor {
    private final List<QueueWorker> workers = new CopyOnWriteArrayList<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, SqlQueueHandler> found = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<SqlQueueHandler>) m -> AnnotatedElementUtils.findMergedAnnotation(m, SqlQueueHandler.class));
        found.forEach((method, a) -> workers.add(worker(bean, beanName, AopUtils.selectInvocableMethod(method, bean.getClass()), a)));
        return bean;
    }

    /** The workers found so far. */
    public List<QueueWorker> workers() {
        return List.copyOf(workers);
    }

    private static QueueWorker worker(Object bean, String beanName, Method method, SqlQueueHandler a) {
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
        QueueWorker w = new QueueWorker(QueueName.of(a.queue()), handler, null);
        return w.withOptions(o -> {
            var x = a.threads() > 0 ? o.withThreads(a.threads()) : o;
            return a.batchSize() > 0 ? x.withBatchSize(a.batchSize()) : x;
        });
    }
}
