package dev.sqlqueue.teradata.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Deadlock detection of the model. A session that waits for a lock records whom it waits for and on
 * which AMP; a cycle of waits is a deadlock, and the system aborts one of the transactions with error
 * 2631, rolling it back (SQL Request and Transaction Processing, "ANSI Mode Transactions": "the system
 * rolls back the entire transaction if the current request results in a deadlock"). A cycle whose waits
 * are all on one AMP is found by that AMP at once; one spanning AMPs only by the global detection, which
 * runs every DBS Control {@code DeadLockTimeout} seconds, 240 by default ("The value in DeadLockTimeout
 * specifies the time-out value for requests that are locking each other out on different AMPs":
 * Database Utilities, "DeadLockTimeout"). The model finds a cross-AMP cycle once it has existed that long.
 * Which transaction is aborted is not documented; the model aborts the session that logged on last.
 * Row hashes map to AMPs by a hash of table and value ({@link TeradataModel#amps} of them); a table lock
 * covers every AMP. Called with the model's monitor held.
 */
final class Deadlocks {
    /** A wait: for {@code holder}'s lock, on AMP {@code amp} (-1: a table lock, every AMP), since {@code since} ms. */
    record Wait(ModelSession holder, int amp, long since) {
    }

    private Deadlocks() {
    }

    /** The AMP of a row hash of a table, or -1 for a table lock. */
    static int amp(String tableKey, Object row, int amps) {
        return row == null ? -1 : Math.floorMod(java.util.Objects.hash(tableKey, row instanceof String s
                ? s.stripTrailing() : row), amps);
    }

    /** The sessions of the wait cycle through {@code s}, or null when {@code s} is in none. */
    static List<ModelSession> cycle(ModelSession s) {
        List<ModelSession> path = new ArrayList<>();
        ModelSession at = s;
        while (at != null && at.waiting != null && !at.closed) {
            if (path.contains(at)) {
                return at == s ? path : null;
            }
            path.add(at);
            at = at.waiting.holder();
        }
        return null;
    }

    /** True when every wait of the cycle is on one AMP (a table lock matches any AMP). */
    static boolean local(List<ModelSession> cycle) {
        int amp = -1;
        for (ModelSession x : cycle) {
            int a = x.waiting.amp();
            if (a >= 0 && amp >= 0 && a != amp) {
                return false;
            }
            amp = a >= 0 ? a : amp;
        }
        return true;
    }

    /** How long the cycle has existed: since its most recent wait began. */
    static long age(List<ModelSession> cycle, long now) {
        long newest = Long.MIN_VALUE;
        for (ModelSession x : cycle) {
            newest = Math.max(newest, x.waiting.since());
        }
        return now - newest;
    }

    /** The session the model aborts: the one that logged on last. */
    static ModelSession victim(List<ModelSession> cycle) {
        ModelSession v = cycle.get(0);
        for (ModelSession x : cycle) {
            v = x.id > v.id ? x : v;
        }
        return v;
    }
}
