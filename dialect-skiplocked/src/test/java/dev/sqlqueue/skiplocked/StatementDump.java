package dev.sqlqueue.skiplocked;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every statement of {@link SkipLockedStatements} by field name, in declaration order. Run as a main
 * ({@code StatementDump h2|postgresql|mariadb [prefix]}) to print the rendered SQL of one dialect.
 */
final class StatementDump {
    private StatementDump() {
    }

    /** Field name to SQL text; {@code dropSchema} entries are named {@code dropSchema[i]}; null fields are left out. */
    static Map<String, String> of(SkipLockedStatements s) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Field f : SkipLockedStatements.class.getDeclaredFields()) {
            if (!Modifier.isPublic(f.getModifiers()) || Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            Object v;
            try {
                v = f.get(s);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            if (v instanceof String text) {
                if (!f.getName().equals("channel")) {
                    out.put(f.getName(), text);
                }
            } else if (v instanceof List<?> list) {
                for (int i = 0; i < list.size(); i++) {
                    out.put(f.getName() + "[" + i + "]", (String) list.get(i));
                }
            } else if (v instanceof Map<?, ?> byTable) { // statements keyed by the table they act on
                int i = 0;
                for (Object text : byTable.values()) {
                    out.put(f.getName() + "[" + i++ + "]", (String) text);
                }
            }
        }
        return out;
    }

    static SkipLockedDialect dialect(String folder) {
        for (SkipLockedDialect d : SkipLockedDialect.values()) {
            if (d.migrations().endsWith("/" + folder)) {
                return d;
            }
        }
        throw new IllegalArgumentException("no dialect " + folder);
    }

    public static void main(String[] args) {
        SkipLockedDialect d = dialect(args[0]);
        String prefix = args.length > 1 ? args[1] : "sqlq_";
        of(new SkipLockedStatements(d, prefix)).forEach((k, v) -> System.out.println(k + "\t" + v));
    }
}
