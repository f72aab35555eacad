package io.cyclium.claims;

import static io.cyclium.claims.ClaimArguments.checkClaim;
import static io.cyclium.claims.ClaimArguments.checkLease;
import static io.cyclium.claims.ClaimArguments.checkLimit;
import static io.cyclium.claims.ClaimArguments.checkOwner;
import static io.cyclium.claims.ClaimArguments.checkWorkType;

import java.time.Clock;
import java.time.LocalDateTime;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Work claims in memory, for tests of applications that use Cyclium: the same answers as the
 * database implementation (busy on a live lease even for its owner, steals of lapsed leases,
 * fences, attempts, release), on one JVM. Thread-safe.
 *
 * <p>To simulate the rest of a cluster: {@link #setBusy} makes another owner hold a key (the
 * current holder loses it, as after a steal), {@link #clearBusy} makes that owner release it, and
 * {@link #lapse} lets a lease run out now without waiting. Leases are measured on the given
 * {@link Clock} (UTC), so a settable clock can stand in for time.
 */
public final class FakeWorkClaims implements WorkClaims {

    /** The owner that {@link #setBusy} puts on a key. */
    public static final String OTHER_OWNER = "fake-work-claims:another-node";

    private static final String BUSY_WORK_TYPE = "simulated";
    private static final long BUSY_LEASE_SECONDS = 100L * 365 * 24 * 3600;

    private final Clock clock;
    private final Map<String, ClaimRecord> rows = new HashMap<>();

    public FakeWorkClaims() {
        this(Clock.systemUTC());
    }

    public FakeWorkClaims(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public synchronized Acquisition acquire(String key, String owner, int leaseSeconds, String workType) {
        checkClaim(key, owner);
        checkLease(leaseSeconds);
        checkWorkType(workType);
        ClaimRecord row = rows.get(key);
        if (row == null) {
            return grant(key, owner, leaseSeconds, workType, 1, 1, false);
        }
        return switch (row.state()) {
            case CLAIMED -> lapsed(row)
                    ? grant(key, owner, leaseSeconds, workType, row.fence() + 1, row.attempt() + 1, true)
                    : new Acquisition.Busy(key);
            case DONE -> grant(key, owner, leaseSeconds, workType, row.fence() + 1, 1, false);
            case FAILED -> grant(key, owner, leaseSeconds, workType, row.fence() + 1, row.attempt() + 1, false);
            case EXPIRED -> grant(key, owner, leaseSeconds, workType, row.fence() + 1, row.attempt() + 1, true);
        };
    }

    private Acquisition grant(String key, String owner, long leaseSeconds, String workType, long fence, int attempt,
            boolean takeover) {
        LocalDateTime now = now();
        ClaimRecord claim = new ClaimRecord(key, ClaimState.CLAIMED, owner, fence, attempt, workType,
                now.plusSeconds(leaseSeconds), now);
        rows.put(key, claim);
        return new Acquisition.Acquired(claim, takeover);
    }

    @Override
    public synchronized boolean renew(String key, String owner, int leaseSeconds) {
        checkClaim(key, owner);
        checkLease(leaseSeconds);
        ClaimRecord row = liveClaimOf(key, owner);
        if (row == null) {
            return false;
        }
        rows.put(key, withLease(row, now().plusSeconds(leaseSeconds)));
        return true;
    }

    @Override
    public synchronized int renewAll(String owner, int leaseSeconds) {
        checkOwner(owner);
        checkLease(leaseSeconds);
        LocalDateTime until = now().plusSeconds(leaseSeconds);
        List<ClaimRecord> mine = ownedLive(owner);
        mine.forEach(row -> rows.put(row.key(), withLease(row, until)));
        return mine.size();
    }

    @Override
    public synchronized List<ClaimRecord> ownedLive(String owner) {
        checkOwner(owner);
        return rows.values().stream()
                .filter(r -> r.state() == ClaimState.CLAIMED && r.owner().equals(owner))
                .sorted(Comparator.comparing(ClaimRecord::key))
                .toList();
    }

    @Override
    public synchronized boolean complete(String key, String owner) {
        return settle(key, owner, ClaimState.DONE);
    }

    @Override
    public synchronized boolean fail(String key, String owner, String detail) {
        return settle(key, owner, ClaimState.FAILED);
    }

    private boolean settle(String key, String owner, ClaimState state) {
        checkClaim(key, owner);
        ClaimRecord row = liveClaimOf(key, owner);
        if (row == null) {
            return false;
        }
        rows.put(key, withState(row, state, row.leaseUntil()));
        return true;
    }

    @Override
    public synchronized List<ClaimRecord> reclaimExpired(int limit) {
        checkLimit(limit);
        return rows.values().stream()
                .filter(r -> r.state() == ClaimState.EXPIRED || (r.state() == ClaimState.CLAIMED && lapsed(r)))
                .sorted(Comparator.comparing(ClaimRecord::leaseUntil).thenComparing(ClaimRecord::key))
                .limit(limit)
                .toList();
    }

    @Override
    public synchronized boolean ownsAtFence(String key, String owner, long fence) {
        checkClaim(key, owner);
        ClaimRecord row = liveClaimOf(key, owner);
        return row != null && row.fence() == fence && !lapsed(row);
    }

    @Override
    public synchronized int releaseAll(String owner) {
        checkOwner(owner);
        LocalDateTime now = now();
        List<ClaimRecord> mine = ownedLive(owner);
        mine.forEach(row -> rows.put(row.key(), withState(row, ClaimState.EXPIRED, now)));
        return mine.size();
    }

    @Override
    public synchronized Optional<ClaimRecord> find(String key) {
        Objects.requireNonNull(key, "key");
        return Optional.ofNullable(rows.get(key));
    }

    /**
     * Another node takes {@code key} with a lease that never runs out: acquires answer busy, and
     * a current holder has lost it (its renew, complete, fail and ownsAtFence answer false).
     */
    public synchronized void setBusy(String key) {
        ClaimRecord row = rows.get(key);
        if (row != null && row.state() == ClaimState.CLAIMED && row.owner().equals(OTHER_OWNER)) {
            return;
        }
        grant(key, OTHER_OWNER, BUSY_LEASE_SECONDS, BUSY_WORK_TYPE, row == null ? 1 : row.fence() + 1,
                row == null ? 1 : row.attempt() + 1, row != null);
    }

    /** The other node of {@link #setBusy} releases {@code key}: the next acquire takes it over. */
    public synchronized void clearBusy(String key) {
        ClaimRecord row = rows.get(key);
        if (row != null && row.state() == ClaimState.CLAIMED && row.owner().equals(OTHER_OWNER)) {
            rows.put(key, withState(row, ClaimState.EXPIRED, now()));
        }
    }

    /** The lease on {@code key} runs out now, as if its holder had stopped renewing it. */
    public synchronized void lapse(String key) {
        ClaimRecord row = rows.get(key);
        if (row != null && row.state() == ClaimState.CLAIMED) {
            rows.put(key, withLease(row, now().minusSeconds(1)));
        }
    }

    private ClaimRecord liveClaimOf(String key, String owner) {
        ClaimRecord row = rows.get(key);
        return row != null && row.state() == ClaimState.CLAIMED && row.owner().equals(owner) ? row : null;
    }

    private boolean lapsed(ClaimRecord row) {
        return row.leaseUntil().isBefore(now());
    }

    private LocalDateTime now() {
        return LocalDateTime.now(clock);
    }

    private static ClaimRecord withLease(ClaimRecord r, LocalDateTime leaseUntil) {
        return new ClaimRecord(r.key(), r.state(), r.owner(), r.fence(), r.attempt(), r.workType(), leaseUntil,
                r.claimedAt());
    }

    private static ClaimRecord withState(ClaimRecord r, ClaimState state, LocalDateTime leaseUntil) {
        return new ClaimRecord(r.key(), state, r.owner(), r.fence(), r.attempt(), r.workType(), leaseUntil,
                r.claimedAt());
    }
}
