package dev.sqlqueue.conformance;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs only the named conformance cases (by id, for example {@code C17}) of the suites nested in the
 * annotated class (or of the annotated suite itself); the other cases are reported disabled with
 * {@link #why()}. For a backend's test that runs a few cases on a server of its own (a private server the case
 * may restart), or on other options than its main conformance test.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(OnlyCases.Condition.class)
public @interface OnlyCases {
    /**
     * Case ids, for example {@code "C17"}.
     *
     * @return the ids of the cases that run, each {@code C} and two digits
     */
    String[] value();

    /**
     * Why the other cases do not run here.
     *
     * @return the reason the other cases are reported disabled with
     */
    String why() default "it runs on the shared server in the backend's main conformance test";

    /** The JUnit condition behind the annotation. */
    final class Condition implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (context.getTestMethod().isEmpty()) {
                return ConditionEvaluationResult.enabled("a container");
            }
            OnlyCases only = null;
            for (Class<?> c = context.getRequiredTestClass(); c != null && only == null; c = c.getEnclosingClass()) {
                only = c.getAnnotation(OnlyCases.class);
            }
            if (only == null) {
                return ConditionEvaluationResult.enabled("no case filter");
            }
            Method m = context.getRequiredTestMethod();
            DisplayName name = m.getAnnotation(DisplayName.class);
            String id = name == null ? m.getName() : name.value().split(" ", 2)[0];
            return Arrays.asList(only.value()).contains(id)
                    ? ConditionEvaluationResult.enabled(id + " is one of the cases run here")
                    : ConditionEvaluationResult.disabled(id + ": " + only.why());
        }
    }
}
