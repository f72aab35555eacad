package io.cyclium.claims;

import static io.cyclium.claims.ClaimArguments.checkClaim;
import static io.cyclium.claims.ClaimArguments.checkLease;
import static io.cyclium.claims.ClaimArguments.checkLimit;
import static io.cyclium.claims.ClaimArguments.checkOwner;
import static io.cyclium.claims.ClaimArguments.checkWorkType;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.DeadlockRetry;
import io.cyclium.store.NativeSql;
import io.cyclium.store.Tx;
import io.cyclium.store.UniqueInsert;
import io.cyclium.telemetry.Telemetry;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Owns every statement on {@code cyclium_work_claims}.
 *
 * <p>Race-free on READ COMMITTED without row locks or lock hints. A first claim is an INSERT whose
 * primary key turns a concurrent first acquire into {@link Acquisition.Busy}. Every other
 * transition is one UPDATE whose WHERE re-states what the caller read (state, fence, and for a
 * steal that the lease has lapsed): the database serialises the UPDATEs of one row, and whichever
 * comes second finds its guard false. Row counts: 0 means another node won (normal, debug log),
 * 1 means mine, more than 1 is a bug and throws. Correctness needs no lock beyond the one each
 * UPDATE takes on the rows it changes; on MariaDB those locks can still meet in a deadlock, whose
 * victim is run again (see {@link #inTransaction}).
 *
 * <p>All lease arithmetic runs on the database's clock through {@link DatabaseVendor#utcNow()} and
 * {@link DatabaseVendor#utcNowPlusSeconds(String)}: no node-local instant enters a lease, so
 * nodes whose clocks drift still agree on who holds what.
 */
public final class JpaWorkClaims implements WorkClaims {

    private static final Logger LOG = Logger.getLogger(JpaWorkClaims.class.getName());

    static final String TABLE = "cyclium_work_claims";
    static final String METRIC = "work_claims";
    private static final String COLUMNS =
            "dedupe_key, state, owner_node, fence, attempt, work_type, lease_until, claimed_at";
    private static final String CLAIMED = "'claimed'";

    private final Tx tx;
    private final DatabaseVendor vendor;
    private final Telemetry telemetry;

    private final String selectForAcquire;
    private final String steal;
    private final String reclaimDone;
    private final String reclaimUnsettled;
    private final String renew;
    private final String renewAll;
    private final String complete;
    private final String failWithDetail;
    private final String failWithoutDetail;
    private final String ownsAtFence;
    private final String lapsedOrReleased;
    private final String ownedLive;
    private final String releaseAll;
    private final String selectOne;
    private final String settleDone;
    private final String settleFailed;
    private final String settleFailedWithoutDetail;

    public JpaWorkClaims(Tx tx, DatabaseVendor vendor, Telemetry telemetry) {
        this.tx = Objects.requireNonNull(tx, "tx");
        this.vendor = Objects.requireNonNull(vendor, "vendor");
        this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
        String now = vendor.utcNow();

        selectOne = "SELECT " + COLUMNS + " FROM " + TABLE + " WHERE dedupe_key = ?1";
        // The database says whether the lease has lapsed, on its own clock.
        selectForAcquire = "SELECT state, fence, CASE WHEN lease_until < " + now + " THEN 1 ELSE 0 END"
                + " FROM " + TABLE + " WHERE dedupe_key = ?1";

        // ?1 owner, ?2 lease seconds, ?3 work type, ?4 key, ?5 the fence we read
        String takeOver = "UPDATE " + TABLE + " SET state = " + CLAIMED + ", owner_node = ?1, lease_until = "
                + vendor.utcNowPlusSeconds("?2") + ", claimed_at = " + now + ", last_heartbeat_at = NULL,"
                + " finished_at = NULL, error_detail = NULL, work_type = ?3, fence = fence + 1, ";
        steal = takeOver + "attempt = attempt + 1 WHERE dedupe_key = ?4 AND fence = ?5 AND state = " + CLAIMED
                + " AND lease_until < " + now;
        reclaimDone = takeOver + "attempt = 1 WHERE dedupe_key = ?4 AND fence = ?5 AND state = 'done'";
        // ?6 the state we read: failed or expired
        reclaimUnsettled = takeOver + "attempt = attempt + 1 WHERE dedupe_key = ?4 AND fence = ?5 AND state = ?6";

        String extend = "UPDATE " + TABLE + " SET lease_until = " + vendor.utcNowPlusSeconds("?1")
                + ", last_heartbeat_at = " + now;
        renew = extend + " WHERE dedupe_key = ?2 AND owner_node = ?3 AND state = " + CLAIMED;
        // PostgreSQL: the rows locked in key order first (a CTE with FOR UPDATE runs before the
        // UPDATE and keeps its locks), passing over rows another transaction holds: those are
        // being settled or taken over right now (only short transactions of the database's own
        // lock a lease row), and the next tick renews any of them still live. A group commit
        // settles many of the node's leases in one transaction, in key order too
        // (DeferredUpdates.inLockOrder); in index order instead, a tick and such a batch
        // deadlocked about once per tick under load, and PostgreSQL breaks a deadlock only after
        // deadlock_timeout (1 s). Waiting in key order, ticks still deadlocked with batches of
        // finishes now and then (three times in eight runs of the three-node fairness test), and
        // a tick waiting for one row held every other lease of the node unrenewed. Fewer rows
        // renewed than held sends the gate to read which ones are live (LeasedClaimGate): a row
        // passed over is, and is kept. MariaDB finds its deadlocks at once (the victim runs again,
        // see inTransaction); H2 keeps the plain statement. The locked rows were re-checked under
        // the lock (a row stolen or settled meanwhile is not among them).
        renewAll = vendor == DatabaseVendor.POSTGRESQL
                ? "WITH mine AS (SELECT dedupe_key FROM " + TABLE + " WHERE owner_node = ?2 AND state = " + CLAIMED
                        + " ORDER BY dedupe_key COLLATE \"C\" FOR UPDATE SKIP LOCKED) " + extend
                        + " WHERE dedupe_key IN (SELECT dedupe_key FROM mine)"
                : extend + " WHERE owner_node = ?2 AND state = " + CLAIMED;

        String settle = "UPDATE " + TABLE + " SET finished_at = " + now + ", state = ";
        String ownersLiveClaim = " WHERE dedupe_key = ?1 AND owner_node = ?2 AND state = " + CLAIMED;
        complete = settle + "'done'" + ownersLiveClaim;
        failWithDetail = settle + "'failed', error_detail = ?3" + ownersLiveClaim;
        failWithoutDetail = settle + "'failed', error_detail = NULL" + ownersLiveClaim;

        // lease_until >= now is exactly "not stealable": the steal's guard is lease_until < now
        ownsAtFence = "SELECT COUNT(*) FROM " + TABLE + ownersLiveClaim + " AND fence = ?3 AND lease_until >= " + now;
        lapsedOrReleased = "SELECT " + COLUMNS + " FROM " + TABLE + " WHERE (state = " + CLAIMED
                + " AND lease_until < " + now + ") OR state = 'expired' ORDER BY lease_until, dedupe_key";
        ownedLive = "SELECT " + COLUMNS + " FROM " + TABLE + " WHERE owner_node = ?1 AND state = " + CLAIMED
                + " ORDER BY dedupe_key";
        // ?1 key, ?2 owner, ?3 fence (+ ?4 detail): an expired row at our fence was released by a
        // drain but taken by nobody, so settling it is still ours to do
        String atOurFence = " WHERE dedupe_key = ?1 AND owner_node = ?2 AND fence = ?3 AND state IN ("
                + CLAIMED + ", 'expired')";
        settleDone = settle + "'done'" + atOurFence;
        settleFailed = settle + "'failed', error_detail = ?4" + atOurFence;
        settleFailedWithoutDetail = settle + "'failed', error_detail = NULL" + atOurFence;
        // the drain: on PostgreSQL in key order too, as renewAll above, so that it and a batch still
        // settling this node's leases (tasks finish while the node drains) never wait for each other in a cycle
        String expire = "UPDATE " + TABLE + " SET state = 'expired', lease_until = " + now;
        releaseAll = vendor == DatabaseVendor.POSTGRESQL
                ? "WITH mine AS (SELECT dedupe_key FROM " + TABLE + " WHERE owner_node = ?1 AND state = " + CLAIMED
                        + " ORDER BY dedupe_key COLLATE \"C\" FOR UPDATE) " + expire
                        + " WHERE dedupe_key IN (SELECT dedupe_key FROM mine)"
                : expire + " WHERE owner_node = ?1 AND state = " + CLAIMED;
    }

    public DatabaseVendor vendor() {
        return vendor;
    }

    @Override
    public Acquisition acquire(String key, String owner, int leaseSeconds, String workType) {
        checkClaim(key, owner);
        checkLease(leaseSeconds);
        checkWorkType(workType);
        long started = System.nanoTime();
        Acquisition result = inTransaction("acquire", em -> acquireIn(em, key, owner, leaseSeconds, workType));
        String outcome = result instanceof Acquisition.Acquired a ? (a.takeover() ? "steal" : "acquired") : "busy";
        telemetry.count(METRIC, "outcome", outcome);
        telemetry.time(METRIC + "_acquire", Duration.ofNanos(System.nanoTime() - started), "outcome", outcome);
        return result;
    }

    /**
     * Runs {@code work} in a transaction of its own, again if the database rolled it back to break
     * a deadlock. MariaDB's InnoDB locks index entries, not just rows: renewAll and releaseAll walk
     * the (owner_node, state) index and then the primary key, while complete, fail and a steal
     * lock the primary key and then rewrite that index entry, so a heartbeat tick and a settle or
     * steal of one of its rows can each hold what the other waits for. Running the victim again is
     * safe: nothing of it was applied, and each transaction is one guarded operation that re-reads
     * whatever it decides on. (PostgreSQL and H2 lock rows only: a cycle there needs a transaction
     * holding several claim rows, as a group commit's batch does; on PostgreSQL renewAll and the
     * batches lock them in the same order.)
     */
    private <T> T inTransaction(String operation, Function<EntityManager, T> work) {
        return DeadlockRetry.inNewTransaction(tx, work, attempt -> {
            telemetry.count(METRIC + "_deadlock_retries", "operation", operation);
            LOG.log(Level.FINE, "work claims {0} was a deadlock victim (attempt {1}); running it again",
                    new Object[] {operation, attempt});
        });
    }

    private Acquisition acquireIn(EntityManager em, String key, String owner, int leaseSeconds, String workType) {
        List<?> rows = em.createNativeQuery(selectForAcquire).setParameter(1, key).getResultList();
        if (rows.isEmpty()) {
            return insertFirst(em, key, owner, leaseSeconds, workType)
                    ? new Acquisition.Acquired(reload(em, key), false)
                    // A concurrent first acquire inserted the key after our read found no row.
                    : busy(key, owner, "inserted it first");
        }
        Object[] row = (Object[]) rows.get(0);
        ClaimState state = ClaimState.fromWire((String) row[0]);
        long fence = ((Number) row[1]).longValue();
        boolean lapsed = ((Number) row[2]).intValue() == 1;
        Query update;
        switch (state) {
            case CLAIMED:
                if (!lapsed) {
                    // not re-entrant: a live lease is busy for its own owner too
                    return busy(key, owner, "holds a live lease");
                }
                update = em.createNativeQuery(steal);
                break;
            case DONE:
                update = em.createNativeQuery(reclaimDone);
                break;
            case FAILED:
            case EXPIRED:
                update = em.createNativeQuery(reclaimUnsettled).setParameter(6, state.wireName());
                break;
            default:
                throw new IllegalStateException("unknown claim state " + state);
        }
        int changed = update.setParameter(1, owner).setParameter(2, leaseSeconds).setParameter(3, workType)
                .setParameter(4, key).setParameter(5, fence).executeUpdate();
        if (changed == 0) {
            // Another node took the key between our read and this update: it stole or re-claimed
            // it (the fence moved), renewed a lapsed lease, or settled it.
            return busy(key, owner, "took it between our read (" + state.wireName() + ", fence " + fence
                    + ") and our update");
        }
        expectOne(changed, "acquire", key);
        boolean takeover = state == ClaimState.CLAIMED || state == ClaimState.EXPIRED;
        return new Acquisition.Acquired(reload(em, key), takeover);
    }

    /** The first row for a key (attempt 1, fence 1); false when the key already has one. */
    private boolean insertFirst(EntityManager em, String key, String owner, int leaseSeconds, String workType) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("dedupe_key", key);
        row.put("state", ClaimState.CLAIMED.wireName());
        row.put("owner_node", owner);
        row.put("lease_until", NativeSql.raw(vendor.utcNowPlusSeconds(Integer.toString(leaseSeconds))));
        row.put("claimed_at", NativeSql.raw(vendor.utcNow()));
        row.put("attempt", 1);
        row.put("fence", 1L);
        row.put("work_type", workType);
        return UniqueInsert.insertNaturalKey(em, vendor, new NativeSql().insert(TABLE, row));
    }

    private static Acquisition busy(String key, String owner, String why) {
        LOG.log(Level.FINE, "claim {0} busy for {1}: another acquirer {2}", new Object[] {key, owner, why});
        return new Acquisition.Busy(key);
    }

    /** Our own row, inside the transaction that just wrote it (we hold its lock, so nobody changed it). */
    private ClaimRecord reload(EntityManager em, String key) {
        return findIn(em, key).orElseThrow(() -> new IllegalStateException("claim " + key + " vanished after our write"));
    }

    @Override
    public boolean claimFirstIn(EntityManager em, String key, String owner, int leaseSeconds, String workType) {
        checkClaim(key, owner);
        checkLease(leaseSeconds);
        checkWorkType(workType);
        boolean first = insertFirst(em, key, owner, leaseSeconds, workType);
        telemetry.count(METRIC, "outcome", first ? "acquired" : "busy");
        return first;
    }

    @Override
    public Optional<Boolean> settleIn(EntityManager em, String key, String owner, long fence, boolean done, String detail) {
        checkClaim(key, owner);
        // the done form through NativeSql: a group commit may batch it with other episodes' finishes
        // Both forms through NativeSql, naming the lease they lock: a group commit batches them with
        // other episodes' finishes and runs them in key order (DeferredUpdates.inLockOrder), the order
        // the heartbeat and the drain lock leases in. A failure settle run for real beside recorded
        // ones would take its lock ahead of that order and could close a cycle with a tick.
        NativeSql statement = done ? NativeSql.numbered(settleDone, key, owner, fence)
                : detail == null ? NativeSql.numbered(settleFailedWithoutDetail, key, owner, fence)
                : NativeSql.numbered(settleFailed, key, owner, fence, detail);
        // the lease row alone, guarded by its own owner and fence
        int changed = statement.lockingClaim(key).independent().executeUpdate(em);
        if (changed == 0) {
            LOG.log(Level.FINE, "claim {0} not settled at fence {1}: {2} no longer holds it", new Object[] {key, fence, owner});
            return Optional.of(false);
        }
        expectOne(changed, "settle", key);
        telemetry.count(METRIC, "outcome", done ? "completed" : "failed");
        return Optional.of(true);
    }

    @Override
    public boolean renew(String key, String owner, int leaseSeconds) {
        checkClaim(key, owner);
        checkLease(leaseSeconds);
        int changed = inTransaction("renew", em -> em.createNativeQuery(renew).setParameter(1, leaseSeconds)
                .setParameter(2, key).setParameter(3, owner).executeUpdate());
        if (changed == 0) {
            // stolen after our lease lapsed, settled by another task of ours, released, or absent
            LOG.log(Level.FINE, "claim {0} not renewed: {1} no longer holds it", new Object[] {key, owner});
            telemetry.count(METRIC, "outcome", "renew_failed");
            return false;
        }
        expectOne(changed, "renew", key);
        telemetry.count(METRIC, "outcome", "renewed");
        return true;
    }

    @Override
    public int renewAll(String owner, int leaseSeconds) {
        checkOwner(owner);
        checkLease(leaseSeconds);
        // One statement however many claims the node holds. A row stolen meanwhile no longer
        // names us (READ COMMITTED re-checks the guard on the latest version), so it is skipped.
        int renewed = inTransaction("renewAll", em -> em.createNativeQuery(renewAll).setParameter(1, leaseSeconds)
                .setParameter(2, owner).executeUpdate());
        for (int i = 0; i < renewed; i++) {
            telemetry.count(METRIC, "outcome", "renewed");
        }
        return renewed;
    }

    @Override
    public List<ClaimRecord> ownedLive(String owner) {
        checkOwner(owner);
        return inTransaction("ownedLive", em -> records(em.createNativeQuery(ownedLive).setParameter(1, owner)));
    }

    @Override
    public boolean complete(String key, String owner) {
        checkClaim(key, owner);
        int changed = inTransaction("complete", em -> em.createNativeQuery(complete).setParameter(1, key)
                .setParameter(2, owner).executeUpdate());
        return settled(changed, "complete", key, owner, "completed");
    }

    @Override
    public boolean fail(String key, String owner, String detail) {
        checkClaim(key, owner);
        int changed = inTransaction("fail", em -> {
            Query q = detail == null ? em.createNativeQuery(failWithoutDetail)
                    : em.createNativeQuery(failWithDetail).setParameter(3, detail);
            return q.setParameter(1, key).setParameter(2, owner).executeUpdate();
        });
        return settled(changed, "fail", key, owner, "failed");
    }

    private boolean settled(int changed, String what, String key, String owner, String outcome) {
        if (changed == 0) {
            // stolen after our lease lapsed, settled by another task of ours, released, or absent
            LOG.log(Level.FINE, "claim {0} not settled ({1}): {2} no longer holds it", new Object[] {key, what, owner});
            return false;
        }
        expectOne(changed, what, key);
        telemetry.count(METRIC, "outcome", outcome);
        return true;
    }

    @Override
    public List<ClaimRecord> reclaimExpired(int limit) {
        checkLimit(limit);
        return inTransaction("reclaimExpired", em -> records(em.createNativeQuery(lapsedOrReleased).setMaxResults(limit)));
    }

    @Override
    public boolean ownsAtFence(String key, String owner, long fence) {
        checkClaim(key, owner);
        Number n = inTransaction("ownsAtFence", em -> (Number) em.createNativeQuery(ownsAtFence).setParameter(1, key)
                .setParameter(2, owner).setParameter(3, fence).getSingleResult());
        return n.intValue() == 1;
    }

    /**
     * {@link #releaseAll(String)} inside the caller's transaction, on the caller's EntityManager: the
     * drain runs at shutdown, when it must not call into another EJB.
     */
    public int releaseAll(EntityManager em, String owner) {
        checkOwner(owner);
        return em.createNativeQuery(releaseAll).setParameter(1, owner).executeUpdate();
    }

    @Override
    public int releaseAll(String owner) {
        checkOwner(owner);
        int released = inTransaction("releaseAll", em -> em.createNativeQuery(releaseAll).setParameter(1, owner).executeUpdate());
        if (released > 0) {
            LOG.log(Level.INFO, "released {0} work claims of {1}: other nodes may take them over now",
                    new Object[] {released, owner});
        }
        return released;
    }

    @Override
    public Optional<ClaimRecord> find(String key) {
        Objects.requireNonNull(key, "key");
        return inTransaction("find", em -> findIn(em, key));
    }

    private Optional<ClaimRecord> findIn(EntityManager em, String key) {
        return records(em.createNativeQuery(selectOne).setParameter(1, key)).stream().findFirst();
    }

    private static List<ClaimRecord> records(Query query) {
        return ((List<?>) query.getResultList()).stream().map(r -> record((Object[]) r)).toList();
    }

    private static ClaimRecord record(Object[] r) {
        return new ClaimRecord((String) r[0], ClaimState.fromWire((String) r[1]), (String) r[2],
                ((Number) r[3]).longValue(), ((Number) r[4]).intValue(), (String) r[5], time(r[6]), time(r[7]));
    }

    private static LocalDateTime time(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Timestamp ts) {
            return ts.toLocalDateTime();
        }
        if (value instanceof LocalDateTime ldt) {
            return ldt;
        }
        throw new IllegalStateException("unexpected database time type " + value.getClass());
    }

    private static void expectOne(int changed, String what, String key) {
        if (changed != 1) {
            // dedupe_key is the primary key: more than one row means the schema is not ours
            throw new IllegalStateException(what + " of claim " + key + " changed " + changed
                    + " rows; cyclium_work_claims must have dedupe_key as its primary key");
        }
    }
}
