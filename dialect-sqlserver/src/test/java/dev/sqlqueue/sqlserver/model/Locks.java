package dev.sqlqueue.sqlserver.model;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Row (key) and key-range locks of the tables the model keeps ({@link Tables}), per session. Source:
 * "Transaction locking and row versioning guide" (Microsoft Learn), "Key-range locking": the modes S, U, X
 * and the key-range modes RangeS-S (serializable range scan), RangeS-U (serializable update scan), RangeI-N
 * (tests the range before an insert; not held) and RangeX-X, and their compatibility matrix, copied into
 * {@link #COMPATIBLE}. A key-range lock sits on an index entry and covers that entry and the gap below it
 * ("Singleton fetch of nonexistent data": the lock goes on the next entry; above the last entry on the end
 * of the index). Locks are kept on the clustered key only; escalation is not modelled.
 *
 * <p>A session waiting for a lock waits on the sessions holding an incompatible one; a cycle of waits is a
 * deadlock ("Deadlocking": the monitor ends one transaction with error 1205). Not thread-safe; the model
 * guards it.
 */
final class Locks {
    /** Lock modes, in the order of the matrix's columns. */
    enum Mode { S, U, X, RANGE_S_S, RANGE_S_U, RANGE_I_N, RANGE_X_X;

        String label() {
            return name().replace("RANGE_", "Range").replace('_', '-');
        }
    }

    /**
     * "Key-range lock compatibility matrix": row = requested mode, column = existing granted mode
     * (S, U, X, RangeS-S, RangeS-U, RangeI-N, RangeX-X).
     */
    private static final boolean[][] COMPATIBLE = {
        /* S        */ {true, true, false, true, true, true, false},
        /* U        */ {true, false, false, true, false, true, false},
        /* X        */ {false, false, false, false, false, true, false},
        /* RangeS-S */ {true, true, false, true, true, false, false},
        /* RangeS-U */ {true, false, false, true, false, false, false},
        /* RangeI-N */ {true, true, true, false, false, true, false},
        /* RangeX-X */ {false, false, false, false, false, false, false},
    };

    static boolean compatible(Mode requested, Mode granted) {
        return COMPATIBLE[requested.ordinal()][granted.ordinal()];
    }

    /** A lockable index entry: a table's row by its clustered key, or the end of the table's index. */
    record Resource(String table, String key) {
        static final String END = "(end of index)";

        @Override
        public String toString() {
            return table + " " + key;
        }
    }

    private final Map<Resource, Map<Integer, EnumSet<Mode>>> granted = new LinkedHashMap<>();
    private final Map<Integer, Set<Integer>> waitsFor = new HashMap<>();
    private final List<Lock> log = new ArrayList<>();

    /** The sessions other than {@code session} holding a lock incompatible with {@code mode} on {@code r}. */
    Set<Integer> conflicts(int session, Resource r, Mode mode) {
        Set<Integer> out = new HashSet<>();
        Map<Integer, EnumSet<Mode>> holders = granted.get(r);
        if (holders == null) {
            return out;
        }
        for (Map.Entry<Integer, EnumSet<Mode>> h : holders.entrySet()) {
            if (h.getKey() == session) {
                continue;
            }
            for (Mode m : h.getValue()) {
                if (!compatible(mode, m)) {
                    out.add(h.getKey());
                }
            }
        }
        return out;
    }

    /** Grants {@code mode}; true if the session did not hold it already. */
    boolean grant(int session, Resource r, Mode mode, boolean heldToEnd) {
        boolean added = granted.computeIfAbsent(r, k -> new LinkedHashMap<>()).computeIfAbsent(session, k -> EnumSet.noneOf(Mode.class))
                .add(mode);
        if (added) {
            log.add(new Lock(session, r.table(), r.key(), mode.label(), heldToEnd));
        }
        return added;
    }

    void release(int session, Resource r, Mode mode) {
        Map<Integer, EnumSet<Mode>> holders = granted.get(r);
        if (holders != null && holders.containsKey(session)) {
            holders.get(session).remove(mode);
            if (holders.get(session).isEmpty()) {
                holders.remove(session);
            }
            if (holders.isEmpty()) {
                granted.remove(r);
            }
        }
    }

    /** The end of the session's transaction (or of its autocommitted statement): every lock goes. */
    void releaseAll(int session) {
        granted.values().forEach(h -> h.remove(session));
        granted.values().removeIf(Map::isEmpty);
    }

    /** The locks {@code session} holds now. */
    List<Lock> held(int session) {
        List<Lock> out = new ArrayList<>();
        granted.forEach((r, h) -> {
            EnumSet<Mode> modes = h.get(session);
            if (modes != null) {
                modes.forEach(m -> out.add(new Lock(session, r.table(), r.key(), m.label(), true)));
            }
        });
        return out;
    }

    /** Every lock ever granted, in order. */
    List<Lock> log() {
        return List.copyOf(log);
    }

    /**
     * Records that {@code session} waits for {@code holders}; true if that closes a cycle of waits (a
     * deadlock), in which case nothing is recorded.
     */
    boolean waitWouldDeadlock(int session, Set<Integer> holders) {
        if (reaches(holders, session, new HashSet<>())) {
            return true;
        }
        waitsFor.put(session, holders);
        return false;
    }

    private boolean reaches(Set<Integer> from, int target, Set<Integer> seen) {
        for (int s : from) {
            if (s == target) {
                return true;
            }
            if (seen.add(s) && reaches(waitsFor.getOrDefault(s, Set.of()), target, seen)) {
                return true;
            }
        }
        return false;
    }

    void stopWaiting(int session) {
        waitsFor.remove(session);
    }

    /** Whether the session is waiting for a lock. */
    boolean waiting(int session) {
        return waitsFor.containsKey(session);
    }
}
