package dev.sqlqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.spi.ForwardingQueueBackend;
import dev.sqlqueue.spi.QueueBackend;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A decorator that forgot a method would silently fall back to an interface default (and, say, drop a
 * backend's wake-ups): every public method of {@link QueueBackend}, inherited and default ones
 * included, must be overridden by {@link ForwardingQueueBackend}.
 */
class ForwardingQueueBackendTest {
    @Test
    void forwardsEveryMethodOfTheBackendPort() throws Exception {
        List<String> missing = new ArrayList<>();
        for (Method m : QueueBackend.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Method impl = ForwardingQueueBackend.class.getMethod(m.getName(), m.getParameterTypes());
            if (impl.getDeclaringClass() != ForwardingQueueBackend.class) {
                missing.add(m.getName() + Arrays.toString(m.getParameterTypes()));
            }
        }
        assertEquals(List.of(), missing, "methods of QueueBackend not forwarded");
    }
}
