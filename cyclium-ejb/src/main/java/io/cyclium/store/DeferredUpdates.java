package io.cyclium.store;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Deferred updates for a group commit: the writes of many episodes go to the database as one JDBC
 * batch per statement shape instead of one round trip each.
 *
 * <p>A work is first run against a <em>recording</em> entity manager: each
 * {@link NativeSql#executeUpdate} is recorded and answers 1 (one row changed), which is what every
 * statement of the lean write path changes when no other node interferes — the episode row and its
 * first lease inserted, the terminal UPDATE, the journal row, the lease settled at our fence. Any
 * other use of the entity manager (a read, a query built by hand, the JDBC connection) throws
 * {@link NotDeferrable}: that work runs for real instead, in the same transaction.
 *
 * <p>Then the recorded statements run as batches and every count is checked. A count other than 1
 * means the answer the work was given was wrong (a key taken by another node, a lease that moved
 * on): the whole shared transaction fails, nothing of it stands, and every caller runs its own work
 * again alone — where the guard sees the real count and decides as it always does. So a work's
 * decisions are only ever kept when they were made on the counts the database gave.
 */
final class DeferredUpdates {

    /** Thrown by the recording entity manager for anything but a recorded update. */
    static final class NotDeferrable extends RuntimeException {
        NotDeferrable(String what) {
            super(what + " cannot be deferred", null, false, false);
        }
    }

    private static final class Recorder implements InvocationHandler {
        final List<NativeSql> statements;
        volatile boolean refused;

        Recorder(List<NativeSql> statements) {
            this.statements = statements;
        }

        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method method, Object[] args) {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "recording entity manager";
                };
            }
            // remembered too: a work that caught the exception must not pass for recorded
            refused = true;
            throw new NotDeferrable("EntityManager." + method.getName());
        }
    }

    private DeferredUpdates() {
    }

    /** An entity manager that records {@link NativeSql#executeUpdate} into {@code into} and refuses everything else. */
    static EntityManager recording(List<NativeSql> into) {
        return (EntityManager) Proxy.newProxyInstance(EntityManager.class.getClassLoader(),
                new Class<?>[] {EntityManager.class}, new Recorder(into));
    }

    /** Whether the work refused anything of {@code recording} (then it runs for real). */
    static boolean refused(EntityManager recording) {
        return ((Recorder) Proxy.getInvocationHandler(recording)).refused;
    }

    /** A work's statements, recorded, and the answer it gave on being told 1 row for each. */
    record Recording<T>(List<NativeSql> statements, T answer) {
    }

    /**
     * Runs {@code work} against a recording entity manager: its statements and answer when every
     * write was a deferrable update (the answer then holds only if each changes one row), else null
     * (nothing was sent anywhere: the caller runs it for real).
     */
    static <T> Recording<T> recorded(java.util.function.Function<EntityManager, T> work) {
        List<NativeSql> statements = new ArrayList<>();
        EntityManager recording = recording(statements);
        try {
            T answer = work.apply(recording);
            return refused(recording) ? null : new Recording<>(statements, answer);
        } catch (RuntimeException e) {
            // not deferrable (a read, a statement of its own), or failed although told 1 every
            // time: either way it runs for real, where it meets the real counts
            return null;
        }
    }

    /** Ends a recording of {@code em} at once (the work needs the database: {@code why}); nothing when it is not one. */
    static void refuse(EntityManager em, String why) {
        if (isRecording(em)) {
            ((Recorder) Proxy.getInvocationHandler(em)).refused = true;
            throw new NotDeferrable(why);
        }
    }

    static boolean isRecording(EntityManager em) {
        return Proxy.isProxyClass(em.getClass()) && Proxy.getInvocationHandler(em) instanceof Recorder;
    }

    /** Records {@code statement} when {@code em} is a recording entity manager; false otherwise. */
    static boolean record(EntityManager em, NativeSql statement) {
        if (Proxy.isProxyClass(em.getClass()) && Proxy.getInvocationHandler(em) instanceof Recorder recorder) {
            recorder.statements.add(statement);
            return true;
        }
        return false;
    }

    /**
     * Runs the recorded statements of {@code works} (each a list in the order its work issued
     * them) on the transaction's connection: consecutive works of one shape as one batch per
     * statement position, so each work's statements still run in its own order — or, with
     * {@code oneStatementPerWork} (PostgreSQL's data-modifying {@code WITH}) and every write of
     * the shape marked {@link NativeSql#independent}, as one batch of one statement per work
     * ({@link OneStatementWork}). Throws when a statement changed other than one row: the work
     * was answered wrongly and the transaction must not commit.
     */
    static void run(EntityManager em, List<List<NativeSql>> works, boolean oneStatementPerWork) {
        if (works.isEmpty()) {
            return;
        }
        Connection connection = em.unwrap(Connection.class);
        if (connection == null) {
            throw new IllegalStateException("no JDBC connection for the deferred updates: no active transaction");
        }
        // each statement turned into JDBC's form once; consecutive works of equal shape share batches
        List<List<NativeSql>> ordered = inLockOrder(works);
        List<List<NativeSql.Jdbc>> statements = new ArrayList<>(ordered.size());
        List<List<String>> shapes = new ArrayList<>(ordered.size());
        for (List<NativeSql> work : ordered) {
            List<NativeSql.Jdbc> jdbc = work.stream().map(NativeSql::jdbc).toList();
            statements.add(jdbc);
            shapes.add(jdbc.stream().map(NativeSql.Jdbc::text).toList());
        }
        int i = 0;
        while (i < statements.size()) {
            List<String> shape = shapes.get(i);
            int j = i + 1;
            while (j < statements.size() && shapes.get(j).equals(shape)) {
                j++;
            }
            java.util.Optional<String> one = oneStatementPerWork && independent(ordered.subList(i, j))
                    ? OneStatementWork.text(shape) : java.util.Optional.empty();
            if (one.isPresent()) {
                batch(connection, one.get(), statements.subList(i, j).stream().map(DeferredUpdates::allParameters).toList());
            } else {
                for (int position = 0; position < shape.size(); position++) {
                    int p = position;
                    batch(connection, shape.get(p), statements.subList(i, j).stream().map(w -> w.get(p).parameters()).toList());
                }
            }
            i = j;
        }
    }

    /** Whether every write of every work is marked {@link NativeSql#independent}. */
    private static boolean independent(List<List<NativeSql>> works) {
        return works.stream().allMatch(w -> w.stream().allMatch(NativeSql::isIndependent));
    }

    /** A work's parameters in the order of its statements: those of its {@link OneStatementWork}. */
    private static List<Object> allParameters(List<NativeSql.Jdbc> work) {
        List<Object> all = new ArrayList<>();
        work.forEach(statement -> all.addAll(statement.parameters()));
        return all;
    }

    /**
     * The works in the order their statements may run: those that lock no existing lease row
     * first, as they came, then those that do in ascending order of the lease key (its UTF-8
     * bytes: PostgreSQL's {@code COLLATE "C"}). The heartbeat renews a node's leases in one
     * statement that locks them in that same order (JpaWorkClaims); in the order the works came,
     * a batch settling several of the node's leases and a tick could each hold a row the other
     * waited for, a deadlock that PostgreSQL breaks only after {@code deadlock_timeout} (1 s, both
     * writers of the node stalled until then; seen about once per tick in the benchmark). The works
     * are independent of each other, so any order is theirs. A work that runs for real beside
     * the recorded ones takes its locks earlier, out of that order: it closed such cycles with the
     * tick now and then, which is why the tick now passes over rows a transaction holds instead of
     * waiting (SKIP LOCKED); two batches of two writers of a node may still meet that way (rare: it
     * costs one rerun, never a wrong answer).
     */
    static List<List<NativeSql>> inLockOrder(List<List<NativeSql>> works) {
        List<List<NativeSql>> free = new ArrayList<>();
        List<Map.Entry<byte[], List<NativeSql>>> locking = new ArrayList<>();
        for (List<NativeSql> work : works) {
            String key = work.stream().map(NativeSql::lockedClaim).filter(java.util.Objects::nonNull).findFirst().orElse(null);
            if (key == null) {
                free.add(work);
            } else {
                locking.add(Map.entry(key.getBytes(StandardCharsets.UTF_8), work));
            }
        }
        if (locking.isEmpty()) {
            return works;
        }
        locking.sort((a, b) -> Arrays.compareUnsigned(a.getKey(), b.getKey()));
        locking.forEach(e -> free.add(e.getValue()));
        return free;
    }

    private static void batch(Connection connection, String text, List<List<Object>> rows) {
        try (PreparedStatement ps = connection.prepareStatement(text)) {
            for (List<Object> parameters : rows) {
                for (int p = 0; p < parameters.size(); p++) {
                    ps.setObject(p + 1, parameters.get(p));
                }
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int k = 0; k < counts.length; k++) {
                if (counts[k] != 1) {
                    throw new CountMismatch("a deferred statement changed " + counts[k] + " rows, not 1: " + text);
                }
            }
        } catch (SQLException e) {
            throw new PersistenceException("a batch of " + rows.size() + " deferred statements failed: " + text, e);
        }
    }

    /** A deferred statement's count was not the 1 its work was told: the batch must not commit. */
    static final class CountMismatch extends RuntimeException {
        CountMismatch(String message) {
            super(message);
        }
    }
}
