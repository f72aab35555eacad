package io.cyclium.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.MutableClock;
import java.time.Instant;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The heartbeat's side of the gate: renewing what tasks hold, and letting go of what nobody does. */
class LeasedClaimGateTest {

    private static final int LEASE = 30;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeWorkClaims claims = new FakeWorkClaims(clock);
    private final io.cyclium.testing.RecordingTelemetry telemetry = new io.cyclium.testing.RecordingTelemetry();
    private final LeasedClaimGate gate = new LeasedClaimGate(claims, "node-a", LEASE, telemetry);

    private static Set<HeldClaim> inUse(HeldClaim... claims) {
        Set<HeldClaim> set = Collections.newSetFromMap(new IdentityHashMap<>());
        Collections.addAll(set, claims);
        return set;
    }

    @Test
    void a_lease_no_task_uses_is_released_after_the_grace_and_can_then_be_taken_by_another_node() {
        HeldClaim orphan = gate.acquire("episode:e-1", "recovery").orElseThrow();

        assertThat(gate.releaseUnaccounted(inUse(), 3)).isZero();
        assertThat(gate.releaseUnaccounted(inUse(), 3)).isZero();
        assertThat(claims.acquire("episode:e-1", "node-b", LEASE, "episode"))
                .as("still held during the grace").isInstanceOf(Acquisition.Busy.class);

        assertThat(telemetry.countTagged("work_claims", "outcome", "released_unaccounted")).isZero();
        assertThat(gate.releaseUnaccounted(inUse(), 3)).isEqualTo(1);

        assertThat(telemetry.countTagged("work_claims", "outcome", "released_unaccounted")).isEqualTo(1);
        assertThat(gate.heldCount()).isZero();
        assertThat(gate.renewAll()).as("the heartbeat no longer renews it").isZero();
        assertThat(claims.ownsAtFence("episode:e-1", "node-a", orphan.fence())).isFalse();
        assertThat(claims.acquire("episode:e-1", "node-b", LEASE, "episode")).isInstanceOf(Acquisition.Acquired.class);
    }

    @Test
    void a_lease_a_task_uses_is_never_released_however_many_audits_pass() {
        HeldClaim running = gate.acquire("episode:e-2", "episode").orElseThrow();

        for (int i = 0; i < 10; i++) {
            assertThat(gate.releaseUnaccounted(inUse(running), 3)).isZero();
        }

        assertThat(gate.stillOwns(running)).isTrue();
        assertThat(gate.renewAll()).isEqualTo(1);
    }

    @Test
    void the_grace_starts_over_when_a_lease_is_used_again_between_audits() {
        HeldClaim handedOver = gate.acquire("episode:e-3", "recovery").orElseThrow();

        gate.releaseUnaccounted(inUse(), 3);
        gate.releaseUnaccounted(inUse(), 3);
        gate.releaseUnaccounted(inUse(handedOver), 3); // the task took it up
        gate.releaseUnaccounted(inUse(), 3);
        gate.releaseUnaccounted(inUse(), 3);

        assertThat(gate.stillOwns(handedOver)).as("two unused audits in a row, not three").isTrue();
        assertThat(gate.releaseUnaccounted(inUse(), 3)).isEqualTo(1);
        assertThat(gate.stillOwns(handedOver)).isFalse();
    }

    @Test
    void a_lease_settled_by_its_task_between_audits_is_forgotten_by_the_audit() {
        HeldClaim done = gate.acquire("episode:e-4", "episode").orElseThrow();
        gate.releaseUnaccounted(inUse(), 2);

        gate.complete(done);
        HeldClaim again = gate.acquire("episode:e-4", "episode").orElseThrow();

        assertThat(gate.releaseUnaccounted(inUse(), 2)).as("a new lease on the same key starts its own grace").isZero();
        assertThat(gate.stillOwns(again)).isTrue();
    }

    @Test
    void a_claim_held_outside_the_gate_is_renewed_by_the_heartbeat_and_not_failed_as_an_orphan_until_let_go() {
        String key = "maintenance:retention:2026-01-01";
        gate.holdOutside(key);
        long fence = ((Acquisition.Acquired) claims.acquire(key, "node-a", LEASE, "maintenance")).claim().fence();

        clock.advance(java.time.Duration.ofSeconds(LEASE - 1));
        assertThat(gate.renewAll()).as("renewed with this node's other claims").isEqualTo(1);
        clock.advance(java.time.Duration.ofSeconds(LEASE - 1));
        assertThat(claims.ownsAtFence(key, "node-a", fence)).as("renewed, and not failed by the audit of live claims").isTrue();

        gate.releaseOutside(key);
        gate.renewAll();
        assertThat(claims.ownsAtFence(key, "node-a", fence)).as("let go: a live claim no task holds is failed").isFalse();
    }

    @Test
    void a_lease_its_task_settles_while_the_heartbeat_reads_the_live_leases_is_not_released_as_an_orphan() {
        // the claims as a database answers them, with the read of live leases racing a settle:
        // the row is read as live, then the task's settle commits before the gate looks at it
        java.util.List<String> failed = new java.util.ArrayList<>();
        LeasedClaimGate[] racing = new LeasedClaimGate[1];
        HeldClaim[] settledDuringRead = new HeldClaim[1];
        WorkClaims raced = (WorkClaims) java.lang.reflect.Proxy.newProxyInstance(WorkClaims.class.getClassLoader(),
                new Class<?>[] {WorkClaims.class}, (proxy, method, args) -> {
                    Object answer;
                    try {
                        answer = method.invoke(claims, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("ownedLive") && settledDuringRead[0] != null) {
                        racing[0].complete(settledDuringRead[0]);
                        settledDuringRead[0] = null;
                    } else if (method.getName().equals("fail")) {
                        failed.add((String) args[0]);
                    }
                    return answer;
                });
        LeasedClaimGate gate = new LeasedClaimGate(raced, "node-a", LEASE, telemetry);
        racing[0] = gate;
        HeldClaim finishing = gate.acquire("episode:finishing", "episode").orElseThrow();
        HeldClaim stolen = gate.acquire("episode:stolen", "episode").orElseThrow();
        claims.lapse("episode:stolen");
        claims.acquire("episode:stolen", "node-b", LEASE, "episode");
        settledDuringRead[0] = finishing;

        assertThat(gate.renewAll()).as("one of two held leases renewed: the gate reconciles").isEqualTo(1);

        assertThat(gate.stillOwns(stolen)).as("the stolen lease is found lost").isFalse();
        assertThat(claims.find("episode:finishing").orElseThrow().state()).as("settled by its task").isEqualTo(ClaimState.DONE);
        assertThat(failed).as("no release of a lease settled during the read: it would change nothing and cost a statement")
                .isEmpty();
    }

    @Test
    void every_lease_taken_settled_or_lost_is_announced_and_a_renewal_is_not() {
        java.util.List<String> heard = new java.util.ArrayList<>();
        gate.onChange(c -> heard.add(c.change() + " " + c.key() + " " + c.owner() + " fence " + c.fence()));
        HeldClaim a = gate.acquire("episode:a", "episode").orElseThrow();
        HeldClaim b = gate.acquire("episode:b", "episode").orElseThrow();
        gate.renewAll();
        gate.complete(a);
        gate.fail(b, "boom");
        HeldClaim c = gate.acquire("episode:c", "episode").orElseThrow();
        claims.lapse("episode:c");
        claims.acquire("episode:c", "node-b", LEASE, "episode");
        gate.renewAll();
        claims.acquire("episode:d", "node-b", LEASE, "episode");
        claims.lapse("episode:d");
        gate.acquire("episode:d", "episode");
        gate.acquire("episode:b", "episode");

        assertThat(c.lost()).isTrue();
        assertThat(heard).containsExactly("acquired episode:a node-a fence 1", "acquired episode:b node-a fence 1",
                "completed episode:a node-a fence 1", "failed episode:b node-a fence 1", "acquired episode:c node-a fence 1",
                "lost episode:c node-a fence 1", "taken_over episode:d node-a fence 2",
                "acquired episode:b node-a fence 2");
    }

    @Test
    void a_listener_that_throws_never_fails_the_lease_it_hears_of() {
        gate.onChange(c -> {
            throw new IllegalStateException("push channel closed");
        });
        HeldClaim a = gate.acquire("episode:x", "episode").orElseThrow();
        gate.complete(a);
        assertThat(claims.find("episode:x").orElseThrow().state()).isEqualTo(ClaimState.DONE);
    }

    /** Claims on {@link #claims} that run {@code whileReading} in the middle of the heartbeat's read of its live leases. */
    private static final class ConcurrentRead implements WorkClaims {
        private final WorkClaims inner;
        Runnable whileReading = () -> { };

        ConcurrentRead(WorkClaims inner) {
            this.inner = inner;
        }

        @Override
        public Acquisition acquire(String key, String owner, int leaseSeconds, String workType) {
            return inner.acquire(key, owner, leaseSeconds, workType);
        }

        @Override
        public boolean renew(String key, String owner, int leaseSeconds) {
            return inner.renew(key, owner, leaseSeconds);
        }

        @Override
        public int renewAll(String owner, int leaseSeconds) {
            return inner.renewAll(owner, leaseSeconds);
        }

        @Override
        public java.util.List<ClaimRecord> ownedLive(String owner) {
            java.util.List<ClaimRecord> answer = inner.ownedLive(owner);
            Runnable r = whileReading;
            whileReading = () -> { };
            r.run();
            return answer;
        }

        @Override
        public boolean complete(String key, String owner) {
            return inner.complete(key, owner);
        }

        @Override
        public boolean fail(String key, String owner, String detail) {
            return inner.fail(key, owner, detail);
        }

        @Override
        public java.util.List<ClaimRecord> reclaimExpired(int limit) {
            return inner.reclaimExpired(limit);
        }

        @Override
        public boolean ownsAtFence(String key, String owner, long fence) {
            return inner.ownsAtFence(key, owner, fence);
        }

        @Override
        public int releaseAll(String owner) {
            return inner.releaseAll(owner);
        }

        @Override
        public java.util.Optional<ClaimRecord> find(String key) {
            return inner.find(key);
        }
    }

    @Test
    void a_lease_acquired_while_the_heartbeat_reads_its_live_leases_is_not_taken_for_lost() {
        ConcurrentRead racing = new ConcurrentRead(claims);
        LeasedClaimGate racingGate = new LeasedClaimGate(racing, "node-a", LEASE, Telemetry.NOOP);
        HeldClaim stolen = racingGate.acquire("episode:e-5", "episode").orElseThrow();
        claims.lapse("episode:e-5");
        assertThat(claims.acquire("episode:e-5", "node-b", LEASE, "episode")).isInstanceOf(Acquisition.Acquired.class);
        HeldClaim[] fresh = new HeldClaim[1];
        racing.whileReading = () -> fresh[0] = racingGate.acquire("episode:e-6", "episode").orElseThrow();

        racingGate.renewAll(); // renews nothing of e-5: it looks for what was lost, and e-6 arrives meanwhile

        assertThat(stolen.lost()).as("the lease node-b took").isTrue();
        assertThat(fresh[0].lost()).as("a lease taken during the heartbeat's read").isFalse();
        assertThat(racingGate.stillOwns(fresh[0])).isTrue();
    }
}
