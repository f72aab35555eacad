package io.cyclium.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.claims.Acquisition.Acquired;
import io.cyclium.claims.Acquisition.Busy;
import io.cyclium.testing.Concurrently;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * What every {@link WorkClaims} must do, run against each implementation by a subclass. Tests
 * share the subclass's store, so each one uses keys and owners of its own.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
abstract class WorkClaimsContract {

    static final int LEASE = 60;
    static final String EPISODE = "episode";

    WorkClaims claims;
    String nodeA;
    String nodeB;
    String nodeC;

    /** The implementation under test, on a store that may hold other tests' rows. */
    abstract WorkClaims newClaims();

    /** Lets the lease on {@code key} run out now, as if its holder had stopped renewing it. */
    abstract void lapse(String key);

    @BeforeEach
    void setUpClaims() {
        claims = newClaims();
        String run = UUID.randomUUID().toString().substring(0, 8);
        nodeA = "node-a-" + run;
        nodeB = "node-b-" + run;
        nodeC = "node-c-" + run;
    }

    static String key() {
        return "episode:" + UUID.randomUUID();
    }

    ClaimRecord acquired(String key, String owner) {
        Acquisition a = claims.acquire(key, owner, LEASE, EPISODE);
        assertThat(a).as("acquire of %s by %s", key, owner).isInstanceOf(Acquired.class);
        return ((Acquired) a).claim();
    }

    // ---------------------------------------------------------------- acquire

    @Test
    void a_first_acquire_creates_a_live_claim_at_attempt_1_and_fence_1() {
        String key = key();

        Acquisition a = claims.acquire(key, nodeA, LEASE, "trigger_request");

        assertThat(a).isInstanceOfSatisfying(Acquired.class, acq -> {
            assertThat(acq.takeover()).isFalse();
            ClaimRecord c = acq.claim();
            assertThat(c.key()).isEqualTo(key);
            assertThat(c.state()).isEqualTo(ClaimState.CLAIMED);
            assertThat(c.owner()).isEqualTo(nodeA);
            assertThat(c.attempt()).isEqualTo(1);
            assertThat(c.fence()).isEqualTo(1);
            assertThat(c.workType()).isEqualTo("trigger_request");
            assertThat(c.leaseUntil()).isAfter(c.claimedAt());
        });
        assertThat(claims.find(key)).contains(((Acquired) a).claim());
    }

    @Test
    void a_live_lease_is_busy_for_another_owner() {
        String key = key();
        acquired(key, nodeA);

        assertThat(claims.acquire(key, nodeB, LEASE, EPISODE)).isEqualTo(new Busy(key));
        assertThat(claims.find(key).orElseThrow().owner()).isEqualTo(nodeA);
    }

    @Test
    void a_live_lease_is_busy_even_for_the_owner_that_holds_it() {
        String key = key();
        acquired(key, nodeA);

        assertThat(claims.acquire(key, nodeA, LEASE, EPISODE)).isEqualTo(new Busy(key));
        assertThat(claims.find(key).orElseThrow().fence()).isEqualTo(1);
    }

    @Test
    void a_lapsed_lease_is_stolen_once_with_fence_and_attempt_one_higher() {
        String key = key();
        acquired(key, nodeA);
        lapse(key);

        Acquisition steal = claims.acquire(key, nodeB, LEASE, "recovery");
        Acquisition second = claims.acquire(key, nodeC, LEASE, "recovery");

        assertThat(steal).isInstanceOfSatisfying(Acquired.class, acq -> {
            assertThat(acq.takeover()).isTrue();
            assertThat(acq.claim().owner()).isEqualTo(nodeB);
            assertThat(acq.claim().fence()).isEqualTo(2);
            assertThat(acq.claim().attempt()).isEqualTo(2);
            assertThat(acq.claim().workType()).isEqualTo("recovery");
        });
        assertThat(second).isInstanceOf(Busy.class);
    }

    @Test
    void the_holder_of_a_lapsed_lease_can_steal_it_back_at_a_new_fence() {
        String key = key();
        acquired(key, nodeA);
        lapse(key);

        ClaimRecord again = acquired(key, nodeA);

        assertThat(again.fence()).isEqualTo(2);
        assertThat(claims.ownsAtFence(key, nodeA, 1)).isFalse();
        assertThat(claims.ownsAtFence(key, nodeA, 2)).isTrue();
    }

    @Test
    void a_done_claim_is_claimed_again_with_attempt_back_at_1_and_the_next_fence() {
        String key = key();
        ClaimRecord first = acquired(key, nodeA);
        lapse(key);
        acquired(key, nodeB);
        assertThat(claims.complete(key, nodeB)).isTrue();

        Acquisition again = claims.acquire(key, nodeC, LEASE, EPISODE);

        assertThat(again).isInstanceOfSatisfying(Acquired.class, acq -> {
            assertThat(acq.takeover()).isFalse();
            assertThat(acq.claim().attempt()).isEqualTo(1);
            assertThat(acq.claim().fence()).isEqualTo(first.fence() + 2);
            assertThat(acq.claim().owner()).isEqualTo(nodeC);
        });
    }

    @Test
    void a_failed_claim_is_claimed_again_as_a_retry_with_attempt_one_higher() {
        String key = key();
        acquired(key, nodeA);
        assertThat(claims.fail(key, nodeA, "boom")).isTrue();
        assertThat(claims.find(key).orElseThrow().state()).isEqualTo(ClaimState.FAILED);

        Acquisition retry = claims.acquire(key, nodeA, LEASE, EPISODE);

        assertThat(retry).isInstanceOfSatisfying(Acquired.class, acq -> {
            assertThat(acq.takeover()).isFalse();
            assertThat(acq.claim().attempt()).isEqualTo(2);
            assertThat(acq.claim().fence()).isEqualTo(2);
        });
    }

    @Test
    void sixteen_concurrent_first_acquires_give_one_claim_and_fifteen_busy_without_an_error() throws Exception {
        String key = key();

        List<Acquisition> results = Concurrently.run(16, i -> claims.acquire(key, nodeA + "-" + i, LEASE, EPISODE));

        List<Acquired> winners = results.stream().filter(Acquired.class::isInstance).map(Acquired.class::cast).toList();
        assertThat(winners).singleElement().satisfies(w -> assertThat(w.claim().fence()).isEqualTo(1));
        assertThat(results).filteredOn(Busy.class::isInstance).hasSize(15);
        assertThat(claims.find(key).orElseThrow().owner()).isEqualTo(winners.get(0).claim().owner());
    }

    @Test
    void sixteen_concurrent_steals_of_one_lapsed_lease_have_one_winner() throws Exception {
        String key = key();
        acquired(key, nodeA);
        lapse(key);

        List<Acquisition> results = Concurrently.run(16, i -> claims.acquire(key, nodeB + "-" + i, LEASE, EPISODE));

        List<Acquired> winners = results.stream().filter(Acquired.class::isInstance).map(Acquired.class::cast).toList();
        assertThat(winners).singleElement().satisfies(w -> {
            assertThat(w.takeover()).isTrue();
            assertThat(w.claim().fence()).isEqualTo(2);
            assertThat(w.claim().attempt()).isEqualTo(2);
        });
        assertThat(results).filteredOn(Busy.class::isInstance).hasSize(15);
        assertThat(claims.find(key).orElseThrow().fence()).isEqualTo(2);
    }

    // ---------------------------------------------------------------- renew, complete, fail

    @Test
    void only_the_owner_renews_completes_or_fails_a_claim() {
        String key = key();
        acquired(key, nodeA);

        assertThat(claims.renew(key, nodeB, LEASE)).isFalse();
        assertThat(claims.complete(key, nodeB)).isFalse();
        assertThat(claims.fail(key, nodeB, "not mine")).isFalse();
        assertThat(claims.find(key).orElseThrow().state()).isEqualTo(ClaimState.CLAIMED);

        assertThat(claims.renew(key, nodeA, LEASE)).isTrue();
        assertThat(claims.complete(key, nodeA)).isTrue();
        assertThat(claims.find(key).orElseThrow().state()).isEqualTo(ClaimState.DONE);
    }

    @Test
    void a_settled_claim_can_be_neither_renewed_nor_settled_again() {
        String key = key();
        acquired(key, nodeA);
        assertThat(claims.fail(key, nodeA, null)).isTrue();

        assertThat(claims.renew(key, nodeA, LEASE)).isFalse();
        assertThat(claims.complete(key, nodeA)).isFalse();
        assertThat(claims.fail(key, nodeA, "again")).isFalse();
        assertThat(claims.find(key).orElseThrow().state()).isEqualTo(ClaimState.FAILED);
    }

    @Test
    void the_old_owner_of_a_stolen_claim_can_no_longer_renew_or_settle_it() {
        String key = key();
        acquired(key, nodeA);
        lapse(key);
        acquired(key, nodeB);

        assertThat(claims.renew(key, nodeA, LEASE)).isFalse();
        assertThat(claims.complete(key, nodeA)).isFalse();
        assertThat(claims.fail(key, nodeA, "late")).isFalse();
        assertThat(claims.find(key).orElseThrow().owner()).isEqualTo(nodeB);
    }

    @Test
    void a_lapsed_lease_nobody_stole_is_renewed_by_its_owner_and_is_live_again() {
        String key = key();
        ClaimRecord claim = acquired(key, nodeA);
        lapse(key);
        assertThat(claims.ownsAtFence(key, nodeA, claim.fence())).isFalse();

        assertThat(claims.renew(key, nodeA, LEASE)).isTrue();

        assertThat(claims.ownsAtFence(key, nodeA, claim.fence())).isTrue();
        assertThat(claims.acquire(key, nodeB, LEASE, EPISODE)).isInstanceOf(Busy.class);
    }

    @Test
    void renew_of_an_unknown_key_is_refused() {
        assertThat(claims.renew(key(), nodeA, LEASE)).isFalse();
        assertThat(claims.complete(key(), nodeA)).isFalse();
        assertThat(claims.find(key())).isEmpty();
    }

    // ---------------------------------------------------------------- heartbeat and release

    @Test
    void renew_all_renews_only_the_owners_live_claims_and_counts_them() {
        String held1 = key();
        String held2 = key();
        String lapsed = key();
        String done = key();
        String others = key();
        acquired(held1, nodeA);
        acquired(held2, nodeA);
        acquired(lapsed, nodeA);
        acquired(done, nodeA);
        acquired(others, nodeB);
        lapse(lapsed);
        claims.complete(done, nodeA);
        lapse(others);

        int renewed = claims.renewAll(nodeA, LEASE);

        assertThat(renewed).isEqualTo(3);
        assertThat(claims.ownsAtFence(lapsed, nodeA, 1)).as("lapsed but not stolen: renewed").isTrue();
        assertThat(claims.find(done).orElseThrow().state()).isEqualTo(ClaimState.DONE);
        assertThat(claims.ownsAtFence(others, nodeB, 1)).as("another owner's lapsed lease is left alone").isFalse();
        assertThat(claims.ownedLive(nodeA)).extracting(ClaimRecord::key)
                .containsExactlyInAnyOrder(held1, held2, lapsed);
    }

    @Test
    void renew_all_of_an_owner_without_claims_renews_nothing() {
        assertThat(claims.renewAll(nodeC, LEASE)).isZero();
        assertThat(claims.ownedLive(nodeC)).isEmpty();
    }

    @Test
    void owned_live_shows_which_held_claims_were_lost() {
        String kept = key();
        String stolen = key();
        acquired(kept, nodeA);
        acquired(stolen, nodeA);
        lapse(stolen);
        acquired(stolen, nodeB);

        assertThat(claims.renewAll(nodeA, LEASE)).isEqualTo(1);
        assertThat(claims.ownedLive(nodeA)).singleElement().satisfies(c -> {
            assertThat(c.key()).isEqualTo(kept);
            assertThat(c.fence()).isEqualTo(1);
        });
    }

    @Test
    void release_all_makes_the_owners_claims_stealable_at_once() {
        String k1 = key();
        String k2 = key();
        String settled = key();
        String others = key();
        acquired(k1, nodeA);
        acquired(k2, nodeA);
        acquired(settled, nodeA);
        claims.complete(settled, nodeA);
        acquired(others, nodeB);

        assertThat(claims.releaseAll(nodeA)).isEqualTo(2);

        assertThat(claims.find(k1).orElseThrow().state()).isEqualTo(ClaimState.EXPIRED);
        assertThat(claims.find(settled).orElseThrow().state()).isEqualTo(ClaimState.DONE);
        assertThat(claims.ownsAtFence(others, nodeB, 1)).isTrue();
        assertThat(claims.acquire(k1, nodeC, LEASE, EPISODE)).isInstanceOfSatisfying(Acquired.class, acq -> {
            assertThat(acq.takeover()).isTrue();
            assertThat(acq.claim().fence()).isEqualTo(2);
            assertThat(acq.claim().attempt()).isEqualTo(2);
        });
    }

    @Test
    void after_release_all_the_previous_owner_cannot_revive_or_settle_its_claims() {
        String key = key();
        acquired(key, nodeA);
        claims.releaseAll(nodeA);

        assertThat(claims.renew(key, nodeA, LEASE)).isFalse();
        assertThat(claims.renewAll(nodeA, LEASE)).isZero();
        assertThat(claims.complete(key, nodeA)).isFalse();
        assertThat(claims.ownsAtFence(key, nodeA, 1)).isFalse();
        assertThat(claims.ownedLive(nodeA)).isEmpty();
        assertThat(claims.releaseAll(nodeA)).isZero();
    }

    @Test
    void a_released_claim_can_be_taken_back_by_its_previous_owner() {
        String key = key();
        acquired(key, nodeA);
        claims.releaseAll(nodeA);

        ClaimRecord back = acquired(key, nodeA);

        assertThat(back.fence()).isEqualTo(2);
        assertThat(claims.ownsAtFence(key, nodeA, 2)).isTrue();
    }

    // ---------------------------------------------------------------- fence

    @Test
    void owns_at_fence_is_true_for_the_holder_and_false_after_a_steal() {
        String key = key();
        ClaimRecord a = acquired(key, nodeA);
        assertThat(claims.ownsAtFence(key, nodeA, a.fence())).isTrue();
        assertThat(claims.ownsAtFence(key, nodeB, a.fence())).isFalse();
        assertThat(claims.ownsAtFence(key, nodeA, a.fence() + 1)).isFalse();

        lapse(key);
        ClaimRecord b = acquired(key, nodeB);

        assertThat(claims.ownsAtFence(key, nodeA, a.fence())).isFalse();
        assertThat(claims.ownsAtFence(key, nodeB, b.fence())).isTrue();
    }

    @Test
    void owns_at_fence_detects_a_to_b_to_a_because_the_fence_moved() {
        String key = key();
        ClaimRecord firstLife = acquired(key, nodeA);
        lapse(key);
        acquired(key, nodeB);
        assertThat(claims.complete(key, nodeB)).isTrue();
        ClaimRecord secondLife = acquired(key, nodeA);

        assertThat(secondLife.owner()).isEqualTo(firstLife.owner());
        assertThat(secondLife.fence()).isEqualTo(3);
        assertThat(claims.ownsAtFence(key, nodeA, firstLife.fence())).as("A's first task has lost").isFalse();
        assertThat(claims.ownsAtFence(key, nodeA, secondLife.fence())).isTrue();
    }

    @Test
    void owns_at_fence_is_false_once_the_lease_has_lapsed_or_the_claim_is_settled() {
        String lapsedKey = key();
        String doneKey = key();
        acquired(lapsedKey, nodeA);
        acquired(doneKey, nodeA);
        lapse(lapsedKey);
        claims.complete(doneKey, nodeA);

        assertThat(claims.ownsAtFence(lapsedKey, nodeA, 1)).isFalse();
        assertThat(claims.ownsAtFence(doneKey, nodeA, 1)).isFalse();
        assertThat(claims.ownsAtFence(key(), nodeA, 1)).isFalse();
    }

    @Test
    void the_fence_only_grows_over_many_claims_of_one_key() {
        String key = key();
        long last = 0;
        for (int i = 0; i < 6; i++) {
            String owner = i % 2 == 0 ? nodeA : nodeB;
            ClaimRecord c = acquired(key, owner);
            assertThat(c.fence()).isEqualTo(last + 1);
            last = c.fence();
            switch (i % 3) {
                case 0 -> claims.complete(key, owner);
                case 1 -> claims.fail(key, owner, "try again");
                default -> lapse(key);
            }
        }
        assertThat(claims.find(key).orElseThrow().fence()).isEqualTo(6);
    }

    // ---------------------------------------------------------------- reclaim

    @Test
    void reclaim_expired_lists_lapsed_and_released_claims_only() {
        String live = key();
        String lapsed = key();
        String released = key();
        String done = key();
        acquired(live, nodeA);
        acquired(lapsed, nodeA);
        acquired(released, nodeB);
        acquired(done, nodeA);
        lapse(lapsed);
        claims.releaseAll(nodeB);
        claims.complete(done, nodeA);

        List<ClaimRecord> listed = claims.reclaimExpired(10_000);

        assertThat(listed).extracting(ClaimRecord::key).contains(lapsed, released).doesNotContain(live, done);
        assertThat(listed).allSatisfy(c -> {
            assertThat(c.state()).isIn(ClaimState.CLAIMED, ClaimState.EXPIRED);
            assertThat(claims.ownsAtFence(c.key(), c.owner(), c.fence())).isFalse();
        });
        assertThat(claims.find(lapsed).orElseThrow().fence()).as("listing changes nothing").isEqualTo(1);
    }

    @Test
    void reclaim_expired_honours_its_limit() {
        for (int i = 0; i < 3; i++) {
            String key = key();
            acquired(key, nodeA);
            lapse(key);
        }

        assertThat(claims.reclaimExpired(2)).hasSize(2);
        assertThat(claims.reclaimExpired(1)).hasSize(1);
    }

    // ---------------------------------------------------------------- arguments

    @Test
    void a_lease_shorter_than_a_second_or_a_blank_key_is_refused() {
        assertThatThrownBy(() -> claims.acquire(key(), nodeA, 0, EPISODE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> claims.acquire("", nodeA, LEASE, EPISODE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> claims.acquire("x".repeat(513), nodeA, LEASE, EPISODE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> claims.reclaimExpired(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
