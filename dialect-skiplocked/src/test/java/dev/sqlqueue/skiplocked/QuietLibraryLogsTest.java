package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** jOOQ's logo and tips are off unless the application chose otherwise. */
class QuietLibraryLogsTest {
    private String logo;
    private String tips;

    @BeforeEach
    void save() {
        logo = System.getProperty(QuietLibraryLogs.NO_LOGO);
        tips = System.getProperty(QuietLibraryLogs.NO_TIPS);
    }

    @AfterEach
    void restore() {
        set(QuietLibraryLogs.NO_LOGO, logo);
        set(QuietLibraryLogs.NO_TIPS, tips);
    }

    private static void set(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }

    @Test
    void switchesLogoAndTipsOffByDefault() {
        System.clearProperty(QuietLibraryLogs.NO_LOGO);
        System.clearProperty(QuietLibraryLogs.NO_TIPS);
        new SkipLockedStatements(SkipLockedDialect.H2, "sqlq_");
        assertEquals("true", System.getProperty(QuietLibraryLogs.NO_LOGO));
        assertEquals("true", System.getProperty(QuietLibraryLogs.NO_TIPS));
    }

    @Test
    void keepsTheApplicationsChoice() {
        System.setProperty(QuietLibraryLogs.NO_LOGO, "false");
        System.setProperty(QuietLibraryLogs.NO_TIPS, "false");
        new SkipLockedStatements(SkipLockedDialect.H2, "sqlq_");
        assertEquals("false", System.getProperty(QuietLibraryLogs.NO_LOGO));
        assertEquals("false", System.getProperty(QuietLibraryLogs.NO_TIPS));
    }
}
