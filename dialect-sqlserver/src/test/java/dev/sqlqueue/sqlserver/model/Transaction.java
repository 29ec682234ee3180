package dev.sqlqueue.sqlserver.model;

import java.util.ArrayList;
import java.util.List;

/**
 * One open transaction of a session: its changes in order and its savepoints. "SAVE TRANSACTION
 * (Transact-SQL)", Remarks: a rollback to a savepoint undoes what followed it and keeps the
 * transaction open; the same name may be saved twice and the rollback goes to the latest. "ROLLBACK
 * TRANSACTION (Transact-SQL)", Locking behavior: a rollback to a savepoint releases the locks taken
 * after it (modelled: locks are changes whose undo releases them). Not thread-safe; the model guards it.
 */
final class Transaction {
    private static int counter;

    final int id = ++counter;
    final List<Effect> effects = new ArrayList<>();
    /** Releases of the locks taken in this transaction, in order (a rollback to a savepoint runs those after it). */
    final List<Runnable> locks = new ArrayList<>();
    private final List<String> savepointNames = new ArrayList<>();
    private final List<Integer> savepointMarks = new ArrayList<>();
    private final List<Integer> lockMarks = new ArrayList<>();

    void save(String name) {
        savepointNames.add(name.toLowerCase(java.util.Locale.ROOT));
        savepointMarks.add(effects.size());
        lockMarks.add(locks.size());
    }

    /** Rolls back to the latest savepoint of that name; false if there is none. */
    boolean rollbackTo(String name) {
        int i = savepointNames.lastIndexOf(name.toLowerCase(java.util.Locale.ROOT));
        if (i < 0) {
            return false;
        }
        int mark = savepointMarks.get(i);
        for (int e = effects.size() - 1; e >= mark; e--) {
            effects.get(e).rollBack();
        }
        int lockMark = lockMarks.get(i);
        while (locks.size() > lockMark) {
            locks.remove(locks.size() - 1).run();
        }
        // savepoints taken after this one are gone; this one stays usable
        while (savepointNames.size() > i + 1) {
            savepointNames.remove(savepointNames.size() - 1);
            savepointMarks.remove(savepointMarks.size() - 1);
            lockMarks.remove(lockMarks.size() - 1);
        }
        return true;
    }

    void commit() {
        for (Effect e : effects) {
            e.commit();
        }
    }

    void rollBack() {
        for (int e = effects.size() - 1; e >= 0; e--) {
            effects.get(e).rollBack();
        }
    }
}
