package io.cyclium.claims;

import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Optional;

/**
 * Leases on work keys (an episode's dedupe key, {@code trigger_request:<id>}, …) shared by every
 * node of a cluster, so that a piece of work runs on at most one node at a time.
 *
 * <p>Words used below:
 * <ul>
 *   <li>A claim is <b>live</b> while its state is {@link ClaimState#CLAIMED}: its owner holds it
 *       and has neither settled ({@code done}/{@code failed}) nor released ({@code expired}) it.
 *   <li>Its lease has <b>lapsed</b> once {@code lease_until} lies in the past on the database's
 *       clock. A lapsed live claim still belongs to its owner until someone steals it; stealing
 *       it (a takeover) bumps the fence.
 * </ul>
 *
 * <p>The <b>fence</b> is the ownership generation of a key: 1 for its first claim, +1 on every
 * later acquire (steal or re-claim), never reset. A holder remembers the fence it acquired and
 * checks {@link #ownsAtFence} before side effects, which catches A → B → A: after B took the key
 * and A acquired it again, A's older task holds an older fence and has lost.
 *
 * <p>{@link #renew}, {@link #complete} and {@link #fail} are guarded by owner and state only (as
 * the protocol says): a node acts on behalf of all its tasks. Callers that may hold an older
 * generation check {@link #ownsAtFence} first.
 *
 * <p>Every method is its own committed transaction; none takes a row lock beyond the one an
 * UPDATE takes on the row it changes, and losing a race is an answer, never an exception.
 *
 * <p><b>A service provider interface.</b> The shipped adapter is {@link JpaWorkClaims} (the
 * {@code cyclium_work_claims} table). An application replaces it with a CDI bean of this type
 * (an {@code @ApplicationScoped @Alternative @Priority(…)} class in the application's archive; see
 * {@link ClaimGateProducer}): every user of claims — episode tasks, the sweep, the heartbeat,
 * retention and the drain on the way down — then goes through it. Its leases must be timed on one
 * clock all nodes share (never a node's own), and {@link #releaseAll} must work during shutdown.
 * {@code WorkClaimsContract} in the project's test sources is the behaviour a replacement must show.
 */
public interface WorkClaims {

    /**
     * Takes the claim on {@code key} for {@code owner} with a lease of {@code leaseSeconds}.
     *
     * <ul>
     *   <li>no row: a new claim (attempt 1, fence 1);
     *   <li>live with a lease that has not lapsed: {@link Acquisition.Busy}, <b>even when
     *       {@code owner} is the holder</b> (claims are not re-entrant: two tasks of one node must
     *       not run the same work either);
     *   <li>live with a lapsed lease: stolen in place (attempt + 1, fence + 1, takeover);
     *   <li>{@code expired} (released): taken over (attempt + 1, fence + 1, takeover);
     *   <li>{@code done}: claimed again (attempt back to 1, fence + 1);
     *   <li>{@code failed}: claimed again as a retry (attempt + 1, fence + 1).
     * </ul>
     * Of any number of concurrent acquirers of one key at most one gets {@link Acquisition.Acquired}.
     */
    Acquisition acquire(String key, String owner, int leaseSeconds, String workType);

    /**
     * Extends the lease of {@code owner}'s live claim to {@code leaseSeconds} from now.
     *
     * <p>A lease that has already lapsed but was not stolen is renewed too: the row still names
     * {@code owner} and no other node has started the work (a steal would have changed owner and
     * fence), so extending it is safe and spares a needless abort and restart after a slow
     * heartbeat. The steal and the renewal are each one guarded UPDATE of the same row, so the
     * database orders them: whichever comes second finds its guard false.
     *
     * @return false when the claim is no longer {@code owner}'s live claim (stolen, settled,
     *     released or absent)
     */
    boolean renew(String key, String owner, int leaseSeconds);

    /**
     * A heartbeat tick: extends every live claim of {@code owner} (lapsed ones included, as in
     * {@link #renew}) in one statement.
     *
     * @return how many claims were renewed; fewer than the caller holds means some were lost,
     *     and {@link #ownedLive} tells which
     */
    int renewAll(String owner, int leaseSeconds);

    /** The live claims of {@code owner} (lapsed leases included), ordered by key. */
    List<ClaimRecord> ownedLive(String owner);

    /** Settles {@code owner}'s live claim as {@code done}. False: it was not {@code owner}'s live claim. */
    boolean complete(String key, String owner);

    /**
     * Settles {@code owner}'s live claim as {@code failed}, keeping {@code detail} (may be null).
     * False: it was not {@code owner}'s live claim.
     */
    boolean fail(String key, String owner, String detail);

    /**
     * Lists (does not change) up to {@code limit} claims whose holder is gone: live claims whose
     * lease has lapsed, and released ({@code expired}) claims; oldest lease first. Each can be
     * taken over with {@link #acquire}.
     */
    List<ClaimRecord> reclaimExpired(int limit);

    /**
     * Whether {@code owner} still holds {@code key} at {@code fence} with a lease that has not
     * lapsed: the check before side effects. False after any takeover or re-claim (the fence
     * moved), after settling or releasing, and once the lease has lapsed (it could be stolen at
     * any moment: renew it first).
     */
    boolean ownsAtFence(String key, String owner, long fence);

    /**
     * Gives up every live claim of {@code owner} at once: they become {@code expired}, and any
     * other node can take them over immediately (attempt + 1, fence + 1). Used by the drain, and
     * at boot so that a restarted node does not keep renewing the leases of its previous life
     * (its heartbeat renews by owner). After this, {@code owner}'s renew, complete, fail and
     * ownsAtFence on those claims answer false, so a straggling task cannot revive one.
     *
     * @return how many claims were released
     */
    int releaseAll(String owner);

    /** The row for {@code key}, whatever its state. */
    Optional<ClaimRecord> find(String key);

    /**
     * Inserts the first claim on a key that has no row yet (attempt 1, fence 1), inside the
     * caller's transaction on {@code em}: the episode row and its lease commit together, so a
     * fresh episode costs no transaction of its own for its lease. False when the key already
     * has a row (the task then acquires it as usual) — or when this adapter cannot write in a
     * JPA transaction, which is what the default says.
     */
    default boolean claimFirstIn(EntityManager em, String key, String owner, int leaseSeconds, String workType) {
        return false;
    }

    /**
     * Settles {@code owner}'s claim at {@code fence} — {@code done}, or {@code failed} with
     * {@code detail} — inside the caller's transaction on {@code em}, together with the episode's
     * terminal write. Guarded by owner and fence, and by a state of {@code claimed} or
     * {@code expired}: whatever the lease's expiry, nobody else has taken the key since we did.
     * True: settled; false: the key moved on (the caller undoes its transaction); empty: this
     * adapter cannot write in a JPA transaction (the default), and the caller settles afterwards.
     */
    default Optional<Boolean> settleIn(EntityManager em, String key, String owner, long fence, boolean done, String detail) {
        return Optional.empty();
    }
}
