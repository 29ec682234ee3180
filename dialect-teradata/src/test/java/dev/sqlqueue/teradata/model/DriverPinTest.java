package dev.sqlqueue.teradata.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The model's driver half ({@link Terajdbc}) was read from one terajdbc version. When the root POM pins
 * another, this fails: read the new jar with {@code javap -c -p} (the classes and methods each fact names),
 * correct the model, then change {@link Terajdbc#VERSION}.
 */
class DriverPinTest {
    @Test
    void theDriverOnTheClassPathIsTheVersionTheModelWasReadFrom() throws Exception {
        // read at run time: the constants of com.teradata.jdbc.Version would be inlined at compile time
        Class<?> v = Class.forName("com.teradata.jdbc.Version");
        String onClassPath = String.format("%d.%02d.%02d.%02d", v.getField("MAJOR").getInt(null),
                v.getField("MINOR").getInt(null), v.getField("MAINT").getInt(null), v.getField("EFIX").getInt(null));
        assertEquals(Terajdbc.VERSION, onClassPath, "the pinned terajdbc changed: read its bytecode again and correct"
                + " the model's driver facts (model/Terajdbc.java, ModelJdbc.java, ModelRequest.java)");
        String manifest = Class.forName("com.teradata.jdbc.TeraDriver").getPackage().getImplementationVersion();
        assertEquals(Terajdbc.VERSION, manifest, "the jar's manifest names another version");
    }
}
